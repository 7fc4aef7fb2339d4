"""POST /api/v1/tco/: a configuration by totals, an option, or a workload -> three options."""

from decimal import Decimal

import pytest
from django.urls import reverse

from catalog.selectors import versions_forget
from engine.assumptions import region_defaults
from engine.money import Money
from engine.tco import TcoConfiguration, TcoInput, compute_tco
from quotes.advice.services import region_assumptions_seed
from quotes.models import RegionAssumption

pytestmark = pytest.mark.django_db

TCO = reverse("api:tco")
EIGHT_H100 = {
    "servers": 1,
    "gpus_per_server": 8,
    "gpu_model": "H100 SXM",
    "power_w": 10200,
    "price": "250000.00",
    "currency": "EUR",
    "rack_units": 8,
    "managed_monthly_price": "9000.00",
}


def _post(client, payload, **headers):
    return client.post(TCO, payload, content_type="application/json", **headers)


def _engine_result(**overrides):
    assumptions = region_defaults("FR", "EUR")
    if overrides:
        assumptions = assumptions.with_overrides(**overrides)
    return compute_tco(
        TcoInput(
            configuration=TcoConfiguration(
                servers=1,
                gpus_per_server=8,
                gpu_model="H100 SXM",
                power_w=10200,
                price=Money(Decimal("250000.00"), "EUR"),
                rack_units=8,
                managed_monthly_price=Money(Decimal("9000.00"), "EUR"),
            ),
            horizon_years=3,
            utilization=Decimal("0.7"),
            region="FR",
            currency="EUR",
            assumptions=assumptions,
        )
    )


def test_totals_configuration_gives_the_engine_totals_for_every_option(client):
    response = _post(client, {"configuration": EIGHT_H100})

    assert response.status_code == 200
    body = response.json()
    expected = _engine_result()
    assert set(body["options"]) >= {"on_premises", "managed", "cloud"}
    for name, cost in expected.options.items():
        assert body["options"][name]["total"] == str(cost.total.amount.quantize(Decimal("0.01")))
    on_prem = body["options"]["on_premises"]
    assert {"capital", "power", "cooling", "space", "staff", "support"} <= set(
        on_prem["by_category"]
    )
    assert sum(Decimal(v) for v in on_prem["by_category"].values()) == Decimal(on_prem["total"])
    assert len(on_prem["monthly_cumulative"]) == 36
    assert body["break_even_month"]["vs_managed"] == expected.break_even_month.vs_managed
    assert body["cheapest"] == str(expected.cheapest)
    assert body["sensitivity"]
    assert body["it_energy_kwh_per_year"] > 0
    assert body["co2e_kg_per_year"] > 0
    names = {a["name"] for a in body["assumptions"]}
    assert {"electricity_price_per_kwh", "pue", "staff_cost_per_year"} <= names
    assert all(a["source"] for a in body["assumptions"])


def test_an_override_changes_what_depends_on_it_and_is_marked(client):
    base = _post(client, {"configuration": EIGHT_H100}).json()
    changed = _post(client, {"configuration": EIGHT_H100, "pue": "1.2"}).json()

    before, after = base["options"]["on_premises"], changed["options"]["on_premises"]
    assert Decimal(after["by_category"]["cooling"]) < Decimal(before["by_category"]["cooling"])
    for unaffected in ("capital", "power", "staff", "support", "space"):
        assert after["by_category"][unaffected] == before["by_category"][unaffected]
    pue = next(a for a in changed["assumptions"] if a["name"] == "pue")
    assert (pue["value"], pue["source"], pue["overridden"]) == ("1.2", "override", True)
    expected = _engine_result(pue=Decimal("1.2"))
    assert after["total"] == str(expected.on_premises.total.amount.quantize(Decimal("0.01")))


def test_staff_edited_regional_default_is_used_with_its_source(client):
    region_assumptions_seed()
    RegionAssumption.objects.filter(region="FR", name="pue").update(
        value=Decimal("1.3"), source="Paris site, measured 2026"
    )
    versions_forget()  # a bulk update sends no signal (seen within DATA_VERSION_MS)
    body = _post(client, {"configuration": EIGHT_H100}).json()
    pue = next(a for a in body["assumptions"] if a["name"] == "pue")
    assert (pue["value"], pue["source"], pue["overridden"]) == (
        "1.3",
        "Paris site, measured 2026",
        False,
    )


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"configuration": EIGHT_H100, "horizon_years": 9}, "horizon_years"),
        ({"configuration": EIGHT_H100, "utilization": "0"}, "utilization"),
        ({"configuration": EIGHT_H100, "region": "XX"}, "region"),
        ({"configuration": EIGHT_H100, "pue": "9"}, "pue"),
        ({"configuration": EIGHT_H100 | {"servers": 0}}, "configuration.servers"),
        ({"configuration": EIGHT_H100 | {"price": "-1"}}, "configuration.price"),
        ({"configuration": EIGHT_H100, "currency": "USD"}, "currency"),
        ({}, "configuration"),
        ({"configuration": "eight GPUs"}, "configuration"),
        ({"configuration": EIGHT_H100, "min_gpus": 0}, "min_gpus"),
        ({"configuration": EIGHT_H100, "min_gpus": 513}, "min_gpus"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, payload, field):
    response = _post(client, payload)
    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()


def test_a_configuration_and_a_workload_together_are_refused_before_the_workload_is_read(client):
    bad_workload = {"task": "inference", "training": {"gpus": 0}}

    response = _post(client, {"configuration": EIGHT_H100, "workload": bad_workload})

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "configuration": ["Give either a configuration or a workload, not both."]
    }


def test_a_refreshed_cloud_price_feeds_the_cloud_option_with_its_source(client):
    from django.utils import timezone

    from catalog.models import CloudPrice

    CloudPrice.objects.create(
        gpu_model="H100_SXM",
        commitment="on_demand",
        provider="ExampleCloud",
        price_per_gpu_hour=Decimal("2.50"),
        currency="EUR",
        observed_on=timezone.localdate(),
        source="https://cloud.example/pricing",
    )
    body = _post(client, {"configuration": EIGHT_H100}).json()

    cloud_price = next(a for a in body["assumptions"] if a["name"] == "cloud_price_per_gpu_hour")
    assert cloud_price["value"] == "2.5"
    assert cloud_price["source"].startswith("ExampleCloud")
    # 8 GPUs x 730 h x 36 months x 0.7 utilisation x 2.50 EUR
    gpu_hours = Decimal(8 * 730 * 36) * Decimal("0.7")
    assert Decimal(body["options"]["cloud"]["by_category"]["cloud"]) == gpu_hours * Decimal("2.50")


def test_an_always_on_service_pays_every_cloud_hour_and_rent_follows_the_provisioned_power(client):
    by_use = _post(client, {"configuration": EIGHT_H100}).json()
    always_on = _post(client, {"configuration": EIGHT_H100, "uptime": "always_on"}).json()
    provisioned = _post(client, {"configuration": {**EIGHT_H100, "provisioned_w": 14300}}).json()

    # Billed for 100 % of the hours instead of the default 70 % utilisation.
    cloud_by_use = Decimal(by_use["options"]["cloud"]["by_category"]["cloud"])
    cloud_always = Decimal(always_on["options"]["cloud"]["by_category"]["cloud"])
    assert abs(cloud_always - cloud_by_use / Decimal("0.7")) <= Decimal("0.01")  # cents
    assert always_on["options"]["on_premises"] == by_use["options"]["on_premises"]
    # Rent on 14.3 kW instead of 10.2 kW; energy unchanged.
    space = Decimal(by_use["options"]["on_premises"]["by_category"]["space"])
    more_space = Decimal(provisioned["options"]["on_premises"]["by_category"]["space"])
    assert abs(more_space - space * Decimal("14.3") / Decimal("10.2")) <= Decimal("0.01")
    power = by_use["options"]["on_premises"]["by_category"]["power"]
    assert provisioned["options"]["on_premises"]["by_category"]["power"] == power


def test_provisioned_power_below_the_draw_is_a_400_naming_the_field(client):
    response = _post(client, {"configuration": {**EIGHT_H100, "provisioned_w": 9000}})

    assert response.status_code == 400
    assert "configuration.provisioned_w" in response.json()["errors"]


def test_the_hosts_offer_is_in_the_answer_and_the_total_bills_its_signed_term(client):
    computed = {key: value for key, value in EIGHT_H100.items() if key != "managed_monthly_price"}
    body = _post(client, {"configuration": computed}).json()
    offer = body["managed_offer"]

    assert offer["basis"] == "cost_plus"
    assert offer["contract_months"] == 36
    assert [term["months"] for term in offer["terms"]] == [0, 12, 24, 36]
    signed = offer["terms"][-1]
    assert Decimal(signed["monthly"]) >= Decimal(signed["floor"])
    assert Decimal(body["options"]["managed"]["by_category"]["hosting_fees"]) == (
        Decimal(signed["monthly"]) * 36
    )
    band = offer["market_band"]
    assert band["name"] == "H100 / MI300X"
    assert signed["market"] == (
        "below"
        if Decimal(signed["per_gpu_month"]) < Decimal(band["low"])
        else "above"
        if Decimal(signed["per_gpu_month"]) > Decimal(band["high"])
        else "within"
    )
    # A fee set by sales (5,500 a month) below the hardware's payback month to month (over its
    # 5-year life at 80 % fleet occupancy: 5,866.30) is raised to it there and flagged; a
    # committed term pays back 4,693.04 a month, so 36 months (4,950 after the discount) holds
    given = EIGHT_H100 | {"managed_monthly_price": "5500.00"}
    low = _post(client, {"configuration": given}).json()["managed_offer"]
    assert (low["basis"], low["override_below_floor"]) == ("override", True)
    floored = [term for term in low["terms"] if term["floored"]]
    assert [term["months"] for term in floored] == [0]
    assert all(term["monthly"] == term["floor"] == "5866.30" for term in floored)
    assert low["terms"][-1]["monthly"] == "4950.00"


@pytest.mark.usefixtures("seed_catalog")
def test_an_option_and_its_totals_get_the_same_managed_fee(client):
    workload = {"task": "inference", "model": "llama-3.1-70b"}
    built = _post(client, {"workload": workload, "environment": "production"}).json()
    option = built["configuration"]
    totals = option["totals"]
    servers = option["servers"]
    by_totals = {
        "servers": servers,
        "gpus_per_server": totals["gpus"] // servers,
        "gpu_model": next(p["name"] for p in option["parts"] if p["kind"] == "gpu"),
        "power_w": totals["power_w"],
        "provisioned_w": max(totals["power_sized_w"], totals["power_w"]),
        "price": str(Decimal(totals["price"]) / servers),
        "currency": totals["currency"],
        "rack_units": totals["rack_units"] // servers,
    }

    as_option = _post(client, {"configuration": option}).json()
    as_totals = _post(client, {"configuration": by_totals}).json()

    assert as_option["managed_offer"]["terms"] == built["managed_offer"]["terms"]
    assert as_totals["managed_offer"]["terms"] == built["managed_offer"]["terms"]
    assert built["job"] is None  # a service, not a run


SERVE_70B_64 = {
    "task": "inference",
    "model": "llama-3.1-70b",
    "inference": {"concurrent_requests": 64},
}
L40S = "NVIDIA-L40S-48GB"


@pytest.mark.usefixtures("seed_catalog")
def test_a_workload_on_a_preferred_gpu_is_priced_on_whole_copies_per_server(client):
    response = _post(
        client,
        {"workload": SERVE_70B_64, "environment": "production", "uptime": "always_on", "gpu": L40S},
    )

    assert response.status_code == 200
    configuration = response.json()["configuration"]
    gpus = [p for p in configuration["parts"] if p["kind"] == "gpu"]
    assert [p["sku"] for p in gpus] == [L40S]
    # One copy of the 70B model with these users needs 8 L40S, more than a production server
    # powers: 4 per server, a tensor-parallel copy each, never a copy chained over servers.
    assert gpus[0]["quantity"] == 4
    # 8 servers of 4 hold the 64 users (8 copies of 8 users); the spare server is not capacity.
    assert configuration["servers"] == 9
    serving = configuration["performance"]["serving"]
    assert (serving["gpus_per_replica"], serving["replicas"]) == (4, 8)


@pytest.mark.usefixtures("seed_catalog")
def test_a_preferred_gpu_with_a_configuration_is_refused_naming_it(client):
    for field, value in (("gpu", L40S), ("min_gpus", 8)):
        response = _post(client, {"configuration": EIGHT_H100, field: value})

        assert response.status_code == 400
        assert response.json()["errors"] == {
            field: ["Only with a workload: a configuration already has its GPUs."]
        }


@pytest.mark.usefixtures("seed_catalog")
def test_an_unknown_gpu_is_a_400_naming_gpu(client):
    response = _post(client, {"workload": SERVE_70B_64, "gpu": "NO-SUCH-GPU"})

    assert response.status_code == 400
    assert response.json()["errors"] == {"gpu": ["Unknown GPU SKU NO-SUCH-GPU: see the catalog."]}


@pytest.mark.usefixtures("seed_catalog")
def test_a_training_workload_gets_the_cost_of_one_run(client):
    workload = {
        "task": "fine_tuning",
        "model": "llama-3.1-8b",
        "training": {"method": "lora"},
        "data": {"kind": "text", "total_gb": 1},
    }
    body = _post(client, {"workload": workload, "environment": "experiment"}).json()
    job = body["job"]

    assert job["hours"] > 0
    assert job["cheapest"] in {"cloud", "managed"}
    month_to_month = body["managed_offer"]["terms"][0]
    servers = body["configuration"]["servers"]
    assert Decimal(job["managed"]) == servers * (
        Decimal(month_to_month["monthly"]) * job["managed_months"]
        + Decimal(month_to_month["setup"])
    )
    assert Decimal(job["buy"]) == Decimal(body["configuration"]["totals"]["price"]) + Decimal(
        job["energy"]
    )


def test_staff_set_the_hosts_margin_cost_of_capital_and_term_discounts_per_region(client):
    computed = {key: value for key, value in EIGHT_H100.items() if key != "managed_monthly_price"}
    region_assumptions_seed()
    before = _post(client, {"configuration": computed}).json()
    edits = {
        "provider_margin_pct": "0.30",
        "provider_cost_of_capital": "0.12",
        "managed_discount_36m_pct": "0.15",
    }
    for name, value in edits.items():
        RegionAssumption.objects.filter(region="FR", name=name).update(
            value=Decimal(value), source="Board decision, 2026-12-01"
        )
        versions_forget()  # a bulk update sends no signal (seen within DATA_VERSION_MS)
    after = _post(client, {"configuration": computed}).json()

    fee = {body["managed_offer"]["terms"][-1]["monthly"] for body in (before, after)}
    assert len(fee) == 2  # the 36-month fee moved
    offer = after["managed_offer"]
    assert (offer["margin"], offer["cost_of_capital"]) == ("0.3", "0.12")
    assert offer["terms"][-1]["discount"] == "0.15"
    shown = {a["name"]: a for a in after["assumptions"]}
    for name in edits:
        assert shown[name]["source"] == "Board decision, 2026-12-01"
    # The edit never touches another region
    other = _post(client, {"configuration": computed, "region": "DE"}).json()
    assert other["managed_offer"]["margin"] == "0.2"
