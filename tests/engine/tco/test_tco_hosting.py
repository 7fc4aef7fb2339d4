"""The host's managed-hosting price: cost-plus per contract term, its floor, the market band."""

import csv
import datetime as dt
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.assumptions import region_defaults
from engine.money import Money
from engine.tco.hosting import TERMS, FeeBasis, managed_offer
from engine.tco.market import (
    OFFERS_FILE,
    REFERENCE_ORIGIN,
    HostingOffer,
    MarketOffers,
    MarketPosition,
    hosting_offers,
    market_band,
    market_class,
    offer_counts,
    offer_seen_on,
    per_gpu_month_price,
)
from tests.engine.tco.tco_cases import assumptions, configuration, eur, tco

# The customer's own inputs (the on-premises side), then the host's own cost base.
CUSTOMER = {
    "electricity_price_per_kwh": "0.2",
    "pue": "1.5",
    "colocation_per_kw_month": "150",
    "staff_cost_per_year": "120000",
    "staff_fte_per_server": "0.05",
    "managed_staff_fte_per_server": "0.02",
    "support_pct_per_year": "0.1",
    "network_per_server_month": "100",
}
HOST = {
    "host_pue": "1.2",
    "host_electricity_price_per_kwh": "0.1",
    "host_space_per_kw_month": "80",
    "host_support_pct_per_year": "0.04",
    "host_staff_fte_per_server": "0.01",
    "host_network_per_server_month": "30",
    "host_hardware_life_years": "3",
    "host_fleet_occupancy": "0.75",
    "host_setup_cost_per_server": "200",
    "host_setup_cost_per_gpu": "50",
}
HAND = CUSTOMER | HOST | {"provider_margin_pct": "0.2", "managed_discount_36m_pct": "0.1"}


def hand_server(**changes):
    # 4 GPUs, 3 kW drawn, 3.6 kW provisioned, 108,000 EUR
    fields = {
        "gpus_per_server": 4,
        "gpu_model": "NVIDIA H100 PCIe 80GB",
        "power_w": 3000,
        "provisioned_w": 3600,
        "price": eur("108000"),
    }
    return configuration(**{**fields, **changes})


def test_the_fee_is_the_hosts_own_cost_plus_its_margin_by_hand():
    offer = managed_offer(hand_server(), assumptions(**HAND).for_gpu_model("H100 PCIe"))
    by_term = {fee.months: fee for fee in offer.terms}
    three_years = by_term[36]

    # The host's own cost base, per month on a contract: hardware 108,000 over its 3-year
    # life = 3,000 (no cost of capital); power 3 kW x 730 h x host PUE 1.2 x 0.10 = 262.8;
    # space 3.6 kW x 80 = 288; staff 0.01 FTE x 120,000 / 12 = 100; spares 4 % x 108,000 / 12
    # = 360; network 30
    assert three_years.cost.power == eur("262.8")
    assert three_years.cost.space == eur("288")
    assert three_years.cost.staff == eur("100")
    assert three_years.cost.support == eur("360")
    assert three_years.cost.total == eur("4040.8")
    # Month to month, the lines a server costs let or not are carried at 75 % occupancy:
    # (3,000 + 288 + 100 + 360 + 30) / 0.75 + 262.8 = 5,300.13; / (1 - 20 % margin)
    assert by_term[0].cost.amortisation == eur("4000")
    assert by_term[0].monthly == eur("6625.17")
    assert by_term[0].floor == eur("4000.00")
    # A term discounts from the month-to-month fee: 6,625.1667 x (1 - 10 %) = 5,962.65
    assert three_years.monthly == eur("5962.65")
    assert three_years.per_gpu_month == eur("1490.66")
    assert three_years.floor == eur("3000.00")
    # The setup fee is the installation: 200 per server + 4 GPUs x 50, whatever the term
    assert {fee.setup for fee in offer.terms} == {eur("400.00")}
    assert offer.basis is FeeBasis.COST_PLUS
    assert [fee.months for fee in offer.terms] == list(TERMS)


def test_the_offer_shows_the_customers_own_cost_of_the_same_server_next_to_the_hosts():
    offer = managed_offer(hand_server(), assumptions(**HAND).for_gpu_model("H100 PCIe"))
    customer = offer.term(36).customer

    # The customer's inputs: 108,000 over 5 years = 1,800; 3 kW x 730 x PUE 1.5 x 0.20 = 657;
    # 3.6 kW x 150 = 540; 0.05 FTE x 120,000 / 12 = 500; 10 % x 108,000 / 12 = 900; 100
    assert (customer.amortisation, customer.power, customer.space) == (
        eur("1800"),
        eur("657"),
        eur("540"),
    )
    assert (customer.staff, customer.support, customer.network) == (
        eur("500"),
        eur("900"),
        eur("100"),
    )
    assert customer.total == eur("4497")
    # The host runs the same server for less than the customer would
    assert offer.term(36).cost.total.amount < customer.total.amount


def test_the_hosts_cost_follows_its_own_inputs_never_the_customers():
    base = managed_offer(hand_server(), assumptions(**HAND).for_gpu_model("H100 PCIe"))
    dearer_site = managed_offer(
        hand_server(),
        assumptions(
            **HAND
            | {
                "pue": "2",
                "electricity_price_per_kwh": "0.5",
                "colocation_per_kw_month": "400",
                "support_pct_per_year": "0.3",
                "staff_fte_per_server": "0.2",
            }
        ).for_gpu_model("H100 PCIe"),
    )
    dearer_host = managed_offer(
        hand_server(),
        assumptions(**HAND | {"host_electricity_price_per_kwh": "0.2"}).for_gpu_model("H100 PCIe"),
    )

    assert [fee.cost for fee in dearer_site.terms] == [fee.cost for fee in base.terms]
    assert [fee.monthly for fee in dearer_site.terms] == [fee.monthly for fee in base.terms]
    assert dearer_site.term(36).customer.total.amount > base.term(36).customer.total.amount
    # 3 kW x 730 h x 1.2 x 0.20 = 525.6
    assert dearer_host.term(36).cost.power == eur("525.6")


def test_month_to_month_pays_the_hardware_back_over_its_life_at_the_fleets_occupancy():
    offer = managed_offer(
        hand_server(),
        assumptions(
            provider_cost_of_capital="0.08",
            host_hardware_life_years="5",
            host_residual_value_pct="0.1",
            host_fleet_occupancy="0.8",
        ).for_gpu_model("H100 PCIe"),
    )
    monthly_rate = Decimal("1.08") ** (Decimal(1) / 12) - 1
    resale = Decimal(10800) / (1 + monthly_rate) ** 60  # 10 % of the price, in 60 months

    committed = offer.term(12).cost.amortisation.amount
    present = sum(committed / (1 + monthly_rate) ** k for k in range(1, 61))
    # The payments over the server's 60-month life repay the price less its resale, exactly
    assert abs(present + resale - Decimal(108000)) < Decimal("0.0001")
    # Month to month, the let servers also carry the idle fifth of the fleet
    assert offer.term(0).cost.amortisation.amount == committed / Decimal("0.8")
    assert offer.occupancy == Decimal("0.8")
    # Not one customer's 12 months: far below 108,000 / 12 = 9,000
    assert offer.term(0).floor.amount < Decimal(3000)


def test_a_renewal_after_the_contract_paid_the_hardware_back_bills_running_cost_and_margin():
    given = assumptions(**HAND)
    offer = managed_offer(hand_server(), given.for_gpu_model("H100 PCIe"))
    three_years = offer.term(36)

    # 5,962.65 - running 1,040.80 = 4,921.85 a month covers 108,000 / 36 = 3,000: paid back;
    # staying on then costs the running cost 1,040.80 / (1 - 20 %) = 1,301.00
    assert three_years.paid_back
    assert three_years.renewal == eur("1301.00")
    assert not offer.term(0).paid_back
    five = tco(hand_server(), given, years=5)
    seven = tco(hand_server(), given, years=7)
    # 1 server: 36 x 5,962.65 + 24 x 1,301 = 245,879.40; 36 x 5,962.65 + 48 x 1,301 = 277,103.40
    assert five.managed.by_category["hosting_fees"] == eur("245879.40")
    assert seven.managed.by_category["hosting_fees"] == eur("277103.40")
    assert any("renewing" in message.template for message in five.explanations)


def test_a_contract_that_has_not_paid_the_hardware_back_renews_at_its_fee():
    # A 90 % discount: 662.52 a month cannot pay back 3,000 a month; floored at 3,000
    offer = managed_offer(
        hand_server(),
        assumptions(**HAND | {"managed_discount_36m_pct": "0.9"}).for_gpu_model("H100 PCIe"),
    )

    assert offer.term(36).monthly == eur("3000.00")
    assert offer.term(36).renewal == offer.term(36).monthly
    assert not offer.term(36).paid_back


def test_longer_contracts_cost_less_a_month():
    offer = managed_offer(hand_server(), assumptions(**HAND).for_gpu_model("H100 PCIe"))
    fees = [fee.monthly.amount for fee in offer.terms[1:]]  # 12, 24, 36 months

    assert fees == sorted(fees, reverse=True)
    assert offer.term(60).months == 36  # five years sign 36 months and renew
    assert offer.term(11).months == 0  # under a year: no commitment


def test_a_fee_set_by_sales_below_the_hardware_payback_is_raised_and_flagged():
    # 2,500 a month (2,250 after the 36-month discount) cannot pay back 108,000 over its
    # 36-month life (3,000 a month, 4,000 month to month): raised to the floor, at every term
    low = managed_offer(
        hand_server(managed_monthly_price=eur("2500")),
        assumptions(**HAND).for_gpu_model("H100 PCIe"),
    )
    fair = managed_offer(
        hand_server(managed_monthly_price=eur("12000")),
        assumptions(**HAND).for_gpu_model("H100 PCIe"),
    )

    assert low.basis is FeeBasis.OVERRIDE
    assert low.override == eur("2500")
    assert low.override_below_floor
    assert all(fee.monthly == fee.floor and fee.floored for fee in low.terms)
    assert not fair.override_below_floor
    assert fair.term(36).monthly == eur("10800.00")  # 12,000 less 10 % for 36 months

    result = tco(hand_server(managed_monthly_price=eur("2500")), assumptions(**HAND), years=3)
    assert result.managed.by_category["hosting_fees"] == eur("108000.00")  # 3,000 x 36
    assert any("floor" in message.template for message in result.explanations)


@settings(max_examples=200, deadline=None)
@given(
    price=st.decimals(min_value=0, max_value=10_000_000, places=2),
    margin=st.decimals(min_value=0, max_value="0.9", places=3),
    capital=st.decimals(min_value=0, max_value=1, places=3),
    discounts=st.tuples(*[st.decimals(min_value=0, max_value=1, places=2)] * 3),
    override=st.none() | st.decimals(min_value=0, max_value=1_000_000, places=2),
    years=st.integers(min_value=1, max_value=10),
    occupancy=st.decimals(min_value="0.05", max_value=1, places=2),
)
def test_no_fee_is_ever_below_the_hardware_payback_of_its_term(
    price, margin, capital, discounts, override, years, occupancy
):
    given_assumptions = assumptions(
        provider_margin_pct=margin,
        provider_cost_of_capital=capital,
        managed_discount_12m_pct=discounts[0],
        managed_discount_24m_pct=discounts[1],
        managed_discount_36m_pct=discounts[2],
        host_hardware_life_years=years,
        host_fleet_occupancy=occupancy,
    )
    config = hand_server(
        price=eur(price), managed_monthly_price=None if override is None else eur(override)
    )

    offer = managed_offer(config, given_assumptions.for_gpu_model(config.gpu_model))

    for fee in offer.terms:
        assert fee.monthly.amount >= fee.floor.amount
        assert fee.monthly.amount >= fee.cost.amortisation.amount.quantize(Decimal("0.01")) - (
            Decimal("0.005")
        )


def _band_by_hand(klass):
    per_eur = {"EUR": Decimal(1), "USD": Decimal("1.0824")}
    prices = []
    with OFFERS_FILE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if market_class(row["gpu_model"]) != klass:
                continue
            price = Decimal(row["price"]) / per_eur[row["currency"]]
            if row["price_per"] != "gpu":
                price /= int(row["gpu_count"])
            prices.append(price * 730 if row["unit"] == "hour" else price)
    return min(prices), max(prices)


def test_the_market_band_of_a_class_runs_from_its_cheapest_to_its_dearest_offer():
    band = market_band(
        "NVIDIA H100 SXM5 80GB", "EUR", usd_per_eur=Decimal("1.0824"), gbp_per_eur=Decimal(1)
    )
    low, high = _band_by_hand("H100")
    assert band is not None

    assert band.low == eur(low.quantize(Decimal("0.01")))
    assert band.high == eur(high.quantize(Decimal("0.01")))
    # The reference data's own summary of H100 80 GB offers: 1,453-5,688 EUR per GPU-month;
    # the MI300X's DigitalOcean price, in the same class, is the cheapest
    assert band.high == eur("5687.80")  # Azure NC40ads H100 v5: 7.7915 EUR/h x 730
    assert band.low == eur("1342.11")  # DigitalOcean MI300X: 1.99 USD/h x 730 / 1.0824
    assert band.offers == sum(1 for offer in hosting_offers() if offer.market_class == "H100")
    assert band.position(Money(Decimal("1342.10"), "EUR")) is MarketPosition.BELOW
    assert band.position(Money(Decimal("1342.11"), "EUR")) is MarketPosition.WITHIN
    assert band.position(Money(Decimal("5687.81"), "EUR")) is MarketPosition.ABOVE
    assert all(offer.source_url.startswith("https://") for offer in hosting_offers())


def test_gpu_classes_group_the_gpus_customers_compare():
    assert market_class("AMD Instinct MI300X 192GB OAM") == "H100"
    assert market_class("NVIDIA H100 NVL 94GB") == "H100"
    assert market_class("NVIDIA H200 SXM5 141GB") == "H200"
    assert market_class("NVIDIA B200 SXM 180GB (HGX B200)") == "B200"
    assert market_class("NVIDIA GB200 NVL72") is None
    assert market_class("NVIDIA RTX 6000 Ada Generation 48GB") == "L40S"
    assert market_class("NVIDIA L40S 48GB") == "L40S"
    assert market_class("NVIDIA L4 24GB") == "L4"
    assert market_class("NVIDIA GeForce RTX 4090 24GB") is None
    one = Decimal(1)
    assert market_band("NVIDIA GeForce RTX 4090", "EUR", usd_per_eur=one, gbp_per_eur=one) is None


# Whole servers as the seed catalog prices them (GPUs, chassis, CPUs, memory, drives, NICs), with
# their DGX/HGX power: the fee per GPU-month of a 36-month contract, at the French defaults,
# and where it sits in its class's band. Before the host's price model the catalog fees gave
# 431 EUR (MI300X) and 668 EUR (B200) per GPU-month, below every public offer.
MARKET_CASES = [
    ("AMD Instinct MI300X 192GB OAM", "212767", 10200, 12000, MarketPosition.BELOW),
    ("NVIDIA H100 SXM5 80GB", "260000", 10200, 12000, MarketPosition.WITHIN),
    ("NVIDIA H200 SXM5 141GB", "300000", 10200, 12000, MarketPosition.BELOW),
    ("NVIDIA B200 SXM 180GB (HGX B200)", "381000", 14300, 16000, MarketPosition.BELOW),
]


def test_h100_h200_b200_and_mi300x_servers_are_placed_in_their_market_band():
    french = region_defaults("FR", "EUR")
    for gpu, price, draw, provisioned, position in MARKET_CASES:
        config = configuration(
            gpu_model=gpu, price=eur(price), power_w=draw, provisioned_w=provisioned
        )
        offer = managed_offer(config, french.for_gpu_model(gpu))
        contract = offer.term(36)
        band = offer.band

        assert band is not None, gpu
        assert contract.market is position, (gpu, contract.per_gpu_month, band)
        assert contract.market is band.position(contract.per_gpu_month)
        assert contract.per_gpu_month.amount > Decimal(1000), gpu  # 431 / 668 before
        assert contract.monthly.amount >= contract.floor.amount


def test_the_market_band_is_worked_out_once_per_class_currency_and_rates():
    rates = {"usd_per_eur": Decimal("1.0824"), "gbp_per_eur": Decimal("0.84662")}
    first = market_band("NVIDIA H100 PCIe 80GB", "USD", **rates)
    again = market_band("NVIDIA H100 PCIe 80GB", "USD", **rates)
    other_rate = market_band("NVIDIA H100 PCIe 80GB", "USD", **rates | {"usd_per_eur": Decimal(1)})

    assert first is again  # kept, not recomputed
    assert first is not None
    assert other_rate is not None
    assert other_rate != first  # a new rate is a new band


def test_an_offer_counts_in_the_band_when_its_day_is_known_and_its_confidence_not_low():
    day = offer_seen_on("2026-09-26")

    assert day == dt.date(2026, 9, 26)
    assert offer_seen_on("2026-05 (month only)") is None
    assert offer_seen_on("unknown (catalog v8 snapshot)") is None
    assert offer_seen_on("2026-02-30") is None
    assert offer_counts(seen_on=day, confidence="high")
    assert offer_counts(seen_on=day, confidence="low-medium")
    assert not offer_counts(seen_on=day, confidence="low")
    assert not offer_counts(seen_on=day, confidence=" Low ")
    assert not offer_counts(seen_on=None, confidence="high")


def test_an_offers_price_per_gpu_month_shares_the_offer_and_counts_730_hours():
    assert per_gpu_month_price(Decimal(18), period="hour", price_per="offer", gpu_count=8) == (
        Decimal("1642.5")  # CoreWeave's 8x L40S node at 18 USD/h
    )
    assert per_gpu_month_price(Decimal("3.99"), period="hour", price_per="gpu", gpu_count=8) == (
        Decimal("2912.70")
    )
    assert per_gpu_month_price(Decimal(7770), period="month", price_per="offer", gpu_count=4) == (
        Decimal("1942.5")
    )


def _offer(provider, market_class, amount, currency, day):
    return HostingOffer(
        provider=provider,
        product=f"{provider} {market_class}",
        market_class=market_class,
        per_gpu_month=Money(Decimal(amount), currency),
        seen_on=day,
        source_url=f"https://{provider.lower()}.example/prices",
    )


def test_the_band_is_a_pure_function_of_the_offers_given():
    market = MarketOffers(
        offers=(
            _offer("Alpha", "H100", "2000", "EUR", dt.date(2026, 9, 1)),
            _offer("Beta", "H100", "2706", "USD", dt.date(2026, 10, 1)),  # 2,500 EUR
            _offer("Gamma", "L4", "400", "EUR", dt.date(2026, 8, 1)),
        ),
        origin="Hosting offers feed",
    )
    rates = {"usd_per_eur": Decimal("1.0824"), "gbp_per_eur": Decimal(1)}

    band = market_band("NVIDIA H100 SXM5 80GB", "EUR", **rates, offers=market)

    assert band is not None
    assert (band.low, band.high, band.offers) == (eur("2000.00"), eur("2500.00"), 2)
    assert (band.oldest, band.newest) == (dt.date(2026, 9, 1), dt.date(2026, 10, 1))
    assert band.sources == ("https://alpha.example/prices", "https://beta.example/prices")
    assert band.origin == "Hosting offers feed"
    assert market_band("NVIDIA B200", "EUR", **rates, offers=market) is None  # none given
    # Without offers given: the reference offers, which have B200s
    reference = market_band("NVIDIA B200", "EUR", **rates)
    assert reference is not None
    assert reference.origin == REFERENCE_ORIGIN


def test_the_band_is_kept_per_set_of_offers():
    rates = {"usd_per_eur": Decimal("1.0824"), "gbp_per_eur": Decimal(1)}
    offers = (_offer("Alpha", "H100", "2000", "EUR", dt.date(2026, 9, 1)),)
    market = MarketOffers(offers=offers, origin="feed")

    first = market_band("NVIDIA H100 PCIe 80GB", "EUR", **rates, offers=market)
    again = market_band("NVIDIA H100 PCIe 80GB", "EUR", **rates, offers=market)
    other_set = market_band(
        "NVIDIA H100 PCIe 80GB", "EUR", **rates, offers=MarketOffers(offers=offers, origin="feed")
    )

    assert first is again
    assert other_set == first
    assert other_set is not first  # a new set (a new data version): worked out again


def test_the_managed_offer_is_placed_among_the_market_offers_given():
    market = MarketOffers(
        offers=(_offer("Alpha", "H100", "100", "EUR", dt.date(2026, 9, 1)),), origin="feed"
    )
    config = hand_server()
    french = assumptions().for_gpu_model(config.gpu_model)

    offer = managed_offer(config, french, market=market)

    assert offer.band is not None
    assert (offer.band.low, offer.band.high, offer.band.origin) == (
        eur("100.00"),
        eur("100.00"),
        "feed",
    )
    assert all(fee.market is MarketPosition.ABOVE for fee in offer.terms)
    reference = managed_offer(config, french).band
    assert reference is not None
    assert reference.origin == REFERENCE_ORIGIN
