"""The partner catalog API: who may read it, what its filters return, pages, and conditional GETs.

Expected rows come from the database through the existing selectors (``current_price_queryset``)
or plain ORM filters, never from the API's own selectors, so the two are checked against each
other. Seed prices are dated: stale flags are computed with ``price_is_stale``, not hard-coded.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection
from django.db.models import Max
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.http import http_date, parse_http_date

from catalog.models import Chassis, Cpu, Gpu, Part, Price, PriceKind
from catalog.selectors import current_price_queryset, price_is_stale
from catalog.services import price_record
from engine.money import CURRENCIES
from quotes.partners.keys import api_key_issue, api_key_revoke
from quotes.sales.services import REP_GROUP
from tests.api_fixtures import auth, partner_key
from tests.factories import gpu_make

pytestmark = pytest.mark.django_db

GPUS = "/api/v1/catalog/gpus/"
H100 = "NVIDIA-H100-SXM5-80GB"
GPU_DETAIL = f"{GPUS}{H100}/"
CPUS = "/api/v1/catalog/cpus/"
CHASSIS = "/api/v1/catalog/chassis/"
PRICES = "/api/v1/catalog/prices/"
ENDPOINTS = [GPUS, GPU_DETAIL, CPUS, CHASSIS, PRICES]
SEED_PRICES = 158  # 13 GPUs and 9 chassis x 4 prices, 35 other parts x 2 (load_catalog)


@pytest.fixture
def catalog() -> None:
    call_command("load_catalog", stdout=StringIO())


@pytest.fixture
def raw_key() -> str:
    _partner, raw = partner_key("Acme Cloud")
    return raw


def _get(client, url: str, raw: str, **headers: str):
    return client.get(url, headers=auth(raw) | headers)


def _skus(response) -> list[str]:
    return [row["sku"] for row in response.json()["results"]]


def _assert_problem(response, status: int, slug: str) -> dict:
    body = response.json()
    assert response.status_code == status
    assert body["type"] == f"https://gpuquote.example/problems/{slug}"
    assert body["status"] == status
    assert body["message"] == body["detail"]
    return body


def _current_prices() -> dict[tuple[str, str, str], Price]:
    """(SKU, price kind, currency) -> the current price of every offered part."""
    return {
        (price.part.sku, price.price_kind, price.currency): price
        for kind in PriceKind.values
        for currency in CURRENCIES
        for price in current_price_queryset(price_kind=kind, currency=currency).filter(
            part__active=True
        )
    }


# --- Who may read the catalog -----------------------------------------------------------------


def test_url_names_resolve_to_the_documented_paths():
    assert reverse("api:catalog-gpus") == GPUS
    assert reverse("api:catalog-gpu", kwargs={"sku": H100}) == GPU_DETAIL
    assert reverse("api:catalog-cpus") == CPUS
    assert reverse("api:catalog-chassis") == CHASSIS
    assert reverse("api:catalog-prices") == PRICES


@pytest.mark.parametrize("url", ENDPOINTS)
def test_anonymous_gets_401_with_the_problem_shape(client, url):
    response = client.get(url)

    body = _assert_problem(response, 401, "unauthenticated")
    assert body["errors"] == {}
    assert response["WWW-Authenticate"] == 'Api-Key realm="GPUQuote API"'
    assert "ETag" not in response


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_partner_key_reads(client, raw_key, url):
    assert _get(client, url, raw_key).status_code == 200


def test_a_bearer_key_reads_too(client, raw_key):
    assert client.get(GPUS, headers=auth(raw_key, scheme="Bearer")).status_code == 200


@pytest.mark.parametrize("url", ENDPOINTS)
def test_revoked_and_expired_keys_are_refused(client, url):
    partner, _raw = partner_key("Acme Cloud")
    revoked, revoked_raw = api_key_issue(partner=partner, name="revoked")
    api_key_revoke(key=revoked)
    _expired, expired_raw = api_key_issue(
        partner=partner, name="expired", expires_at=timezone.now() - dt.timedelta(minutes=1)
    )

    for raw in (revoked_raw, expired_raw):
        body = _assert_problem(_get(client, url, raw), 401, "unauthenticated")
        assert body["detail"] == "The API key is unknown, expired or revoked."


@pytest.mark.parametrize("staff", ["sales rep", "superuser"])  # is_staff alone: tests/security
@pytest.mark.parametrize("url", ENDPOINTS)
def test_the_sales_team_reads_through_its_session(client, catalog, django_user_model, staff, url):
    user = django_user_model.objects.create_user(
        username="seller", password="not-a-real-password", is_superuser=staff == "superuser"
    )
    if staff == "sales rep":
        user.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])
    client.force_login(user)

    assert client.get(url).status_code == 200


def test_a_signed_in_user_outside_the_sales_team_is_refused(client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="visitor"))

    _assert_problem(client.get(GPUS), 403, "forbidden")


# --- What the lists show ----------------------------------------------------------------------


@pytest.mark.usefixtures("catalog")
def test_gpus_are_the_offered_ones_by_sku_with_their_current_eur_purchase_price(client, raw_key):
    Gpu.objects.filter(sku="NVIDIA-RTX4090-24GB").update(active=False)
    unpriced = gpu_make(sku="ZZ-UNPRICED")

    response = _get(client, GPUS, raw_key)

    body = response.json()
    offered = sorted(Gpu.objects.filter(active=True).values_list("sku", flat=True))
    assert body["count"] == 13  # 12 seed GPUs still offered + the unpriced one
    assert _skus(response) == offered
    assert "NVIDIA-RTX4090-24GB" not in offered
    rows = {row["sku"]: row for row in body["results"]}
    assert rows[unpriced.sku]["price"] is None
    h200 = rows["NVIDIA-H200-SXM5-141GB"]
    assert h200.pop("source") == Gpu.objects.get(sku="NVIDIA-H200-SXM5-141GB").source
    assert h200 == {
        "sku": "NVIDIA-H200-SXM5-141GB",
        "name": "NVIDIA H200 SXM5 141GB",
        "vendor": "NVIDIA",
        "model": "H200 SXM5 141GB",
        "architecture": "Hopper",
        "gpu_class": "datacenter",
        "form_factor": "sxm",
        "memory_gb": 141,
        "memory_bandwidth_gbs": 4800,
        "bf16_tflops": "989.4",
        "fp8_tflops": "1978.9",
        "tdp_w": 700,
        "nvlink_gbs": 900,
        "ecc": True,
        "mig": True,
        "pcie_gen": 5,
        "price": {
            "amount": "28879.31",
            "currency": "EUR",
            "observed_on": "2026-10-15",
            "stale": price_is_stale(dt.date(2026, 10, 15)),
        },
    }


@pytest.mark.usefixtures("catalog")
def test_the_price_follows_the_requested_currency_and_the_latest_observation(client, raw_key):
    h100 = Gpu.objects.get(sku=H100)
    price_record(
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("24000.00"),
        currency="USD",
        observed_on=timezone.localdate(),
        source="test",
    )
    price_record(  # older than the current price: history, not current
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("1.00"),
        currency="USD",
        observed_on=dt.date(2020, 1, 1),
        source="test",
    )

    usd = _get(client, f"{GPUS}?currency=USD&page_size=200", raw_key).json()["results"]

    prices = {row["sku"]: row["price"] for row in usd}
    assert prices[H100] == {
        "amount": "24000.00",
        "currency": "USD",
        "observed_on": timezone.localdate().isoformat(),
        "stale": False,
    }
    assert prices["NVIDIA-H200-SXM5-141GB"]["amount"] == "33500.00"


@pytest.mark.usefixtures("catalog")
def test_gpu_detail_shows_one_offered_gpu(client, raw_key):
    response = _get(client, f"{GPU_DETAIL}?currency=USD", raw_key)

    body = response.json()
    assert (body["sku"], body["memory_gb"], body["price"]["amount"]) == (H100, 80, "25500.00")


@pytest.mark.usefixtures("catalog")
def test_gpu_detail_of_an_unknown_or_withdrawn_sku_is_a_404(client, raw_key):
    Gpu.objects.filter(sku=H100).update(active=False)

    for url in (GPU_DETAIL, f"{GPUS}NO-SUCH-GPU/"):
        _assert_problem(_get(client, url, raw_key), 404, "not-found")


@pytest.mark.usefixtures("catalog")
def test_cpus_and_chassis_list_every_offered_part_with_its_fields(client, raw_key):
    cpus = _get(client, f"{CPUS}?page_size=200", raw_key).json()
    chassis = _get(client, f"{CHASSIS}?page_size=200", raw_key).json()

    assert [row["sku"] for row in cpus["results"]] == sorted(
        Cpu.objects.values_list("sku", flat=True)
    )
    assert [row["sku"] for row in chassis["results"]] == sorted(
        Chassis.objects.values_list("sku", flat=True)
    )
    epyc = next(row for row in cpus["results"] if row["sku"] == "AMD-EPYC-9654")
    assert (epyc["cores"], epyc["socket"], epyc["base_ghz"]) == (96, "SP5", "2.40")
    assert epyc["price"]["currency"] == "EUR"
    tower = next(row for row in chassis["results"] if row["sku"] == "SMC-SYS-551A-T")
    assert (tower["rack_mount"], tower["gpu_slots"], tower["accepts_pcie"]) == (False, 4, True)


GPU_FILTERS = [
    ("vendor=amd", {"vendor__iexact": "amd"}),
    ("gpu_class=consumer", {"gpu_class": "consumer"}),
    ("form_factor=pcie", {"form_factor": "pcie"}),
    ("min_memory_gb=94", {"memory_gb__gte": 94}),
    ("ecc=false", {"ecc": False}),
    (
        "ecc=true&form_factor=sxm&min_memory_gb=100",
        {"ecc": True, "form_factor": "sxm", "memory_gb__gte": 100},
    ),
]
CPU_FILTERS = [
    ("vendor=INTEL", {"vendor__iexact": "intel"}),
    ("socket=sp5", {"socket__iexact": "sp5"}),
    ("min_cores=64", {"cores__gte": 64}),
    ("vendor=amd&min_cores=96", {"vendor": "AMD", "cores__gte": 96}),
]
CHASSIS_FILTERS = [
    ("rack_mount=false", {"rack_mount": False}),
    ("min_gpu_slots=8", {"gpu_slots__gte": 8}),
    ("form_factor=oam", {"accepts_oam": True}),
    ("cooling=liquid", {"cooling": "liquid"}),
    ("vendor=dell&form_factor=sxm", {"vendor": "Dell", "accepts_sxm": True}),
]


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(
    ("url", "model", "query", "lookups"),
    [(GPUS, Gpu, *case) for case in GPU_FILTERS]
    + [(CPUS, Cpu, *case) for case in CPU_FILTERS]
    + [(CHASSIS, Chassis, *case) for case in CHASSIS_FILTERS],
)
def test_part_filters_return_exactly_the_matching_offered_parts(
    client, raw_key, url, model, query, lookups
):
    expected = sorted(model.objects.filter(active=True, **lookups).values_list("sku", flat=True))

    response = _get(client, f"{url}?{query}&page_size=200", raw_key)

    assert response.status_code == 200
    assert _skus(response) == expected
    assert 0 < len(expected) < model.objects.count()  # the filter kept some, not all


@pytest.mark.usefixtures("catalog")
def test_prices_are_the_current_ones_of_offered_parts_one_row_each(client, raw_key):
    h100 = Gpu.objects.get(sku=H100)
    newer = price_record(
        part=h100,
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("21000.00"),
        currency="EUR",
        observed_on=dt.date(2026, 11, 1),
        source="supplier quote 42",
    )
    Part.objects.filter(sku="NVIDIA-RTX4090-24GB").update(active=False)

    response = _get(client, f"{PRICES}?page_size=200", raw_key)

    body = response.json()
    expected = _current_prices()
    assert body["count"] == len(expected) == SEED_PRICES - 4  # the withdrawn GPU's 4 prices
    assert [(r["sku"], r["price_kind"], r["currency"]) for r in body["results"]] == sorted(expected)
    row = next(
        r
        for r in body["results"]
        if (r["sku"], r["price_kind"], r["currency"]) == (H100, "purchase", "EUR")
    )
    assert row == {
        "sku": H100,
        "part_kind": "gpu",
        "price_kind": "purchase",
        "amount": "21000.00",
        "currency": "EUR",
        "observed_on": "2026-11-01",
        "source": "supplier quote 42",
        "stale": price_is_stale(newer.observed_on),
    }


PRICE_FILTERS = [
    ("currency=USD", lambda key, price: key[2] == "USD"),
    ("price_kind=managed_monthly", lambda key, price: key[1] == "managed_monthly"),
    ("part_kind=cpu", lambda key, price: price.part.kind == "cpu"),
    (f"sku={H100}", lambda key, price: key[0] == H100),
    ("stale=true", lambda key, price: price_is_stale(price.observed_on)),
    ("stale=false", lambda key, price: not price_is_stale(price.observed_on)),
    (
        "part_kind=chassis&price_kind=purchase&currency=EUR",
        lambda key, price: key[1:] == ("purchase", "EUR") and price.part.kind == "chassis",
    ),
]


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(("query", "keeps"), PRICE_FILTERS)
def test_price_filters_return_exactly_the_matching_current_prices(client, raw_key, query, keeps):
    today = timezone.localdate()
    stale_on = today - dt.timedelta(days=settings.PRICE_STALE_DAYS + 1)
    for sku, observed_on in (("ZZ-OLD", stale_on), ("ZZ-FRESH", today)):
        price_record(
            part=gpu_make(sku=sku),
            price_kind=PriceKind.PURCHASE,
            amount=Decimal("123.45"),
            currency="EUR",
            observed_on=observed_on,
            source="test",
        )
    current = _current_prices()
    expected = sorted(key for key, price in current.items() if keeps(key, price))

    response = _get(client, f"{PRICES}?{query}&page_size=200", raw_key)

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["sku"], r["price_kind"], r["currency"]) for r in rows] == expected
    assert 0 < len(expected) < len(current)  # the filter kept some, not all


@pytest.mark.usefixtures("catalog")
def test_a_stale_price_is_flagged_and_a_fresh_one_is_not(client, raw_key):
    today = timezone.localdate()
    stale_on = today - dt.timedelta(days=settings.PRICE_STALE_DAYS + 1)
    old, fresh = gpu_make(sku="ZZ-OLD"), gpu_make(sku="ZZ-FRESH")
    for gpu, observed_on in ((old, stale_on), (fresh, today)):
        price_record(
            part=gpu,
            price_kind=PriceKind.PURCHASE,
            amount=Decimal("100.00"),
            currency="EUR",
            observed_on=observed_on,
            source="test",
        )

    stale = _skus(_get(client, f"{PRICES}?stale=true&page_size=200", raw_key))
    not_stale = _skus(_get(client, f"{PRICES}?stale=false&page_size=200", raw_key))
    gpus = {
        row["sku"]: row["price"]
        for row in _get(client, f"{GPUS}?page_size=200", raw_key).json()["results"]
    }

    assert ("ZZ-OLD" in stale, "ZZ-OLD" in not_stale) == (True, False)
    assert ("ZZ-FRESH" in stale, "ZZ-FRESH" in not_stale) == (False, True)
    assert (gpus["ZZ-OLD"]["stale"], gpus["ZZ-FRESH"]["stale"]) == (True, False)


# --- Pages ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("catalog")
def test_lists_are_paginated(client, raw_key):
    first = _get(client, f"{GPUS}?page_size=5", raw_key).json()
    last = _get(client, f"{GPUS}?page_size=5&page=3", raw_key).json()

    every = sorted(Gpu.objects.values_list("sku", flat=True))
    assert (first["count"], len(first["results"])) == (13, 5)
    assert first["next"] == "http://testserver/api/v1/catalog/gpus/?page=2&page_size=5"
    assert first["previous"] is None
    assert [row["sku"] for row in first["results"]] == every[:5]
    assert ([row["sku"] for row in last["results"]], last["next"]) == (every[10:], None)


@pytest.mark.usefixtures("catalog")
def test_page_size_is_capped_at_200(client, raw_key):
    body = _get(client, f"{PRICES}?page_size=500", raw_key).json()

    assert (body["count"], len(body["results"]), body["next"]) == (SEED_PRICES, SEED_PRICES, None)


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize(
    ("url", "query", "num_queries"),
    [
        # key lookup, catalog version (2), last change (2), count, page
        (GPUS, "", 7),
        (CPUS, "", 7),
        (CHASSIS, "", 7),
        (PRICES, "page_size=200", 7),
        (GPU_DETAIL, "", 6),  # no count
    ],
)
def test_a_list_costs_a_fixed_number_of_queries(
    client, raw_key, django_assert_num_queries, url, query, num_queries
):
    _get(client, url, raw_key)  # records the key's last use (written once a minute)

    with django_assert_num_queries(num_queries):
        assert _get(client, f"{url}?{query}", raw_key).status_code == 200


# --- Bad query strings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "query", "field"),
    [
        (GPUS, "min_memory_gb=abc", "min_memory_gb"),
        (GPUS, "min_memory_gb=0", "min_memory_gb"),
        (GPUS, "min_memory_gb=1e3", "min_memory_gb"),
        (GPUS, "min_memory_gb=99999999999999999999999999", "min_memory_gb"),
        (GPUS, "gpu_class=mainframe", "gpu_class"),
        (GPUS, "form_factor=SXM5", "form_factor"),
        (GPUS, "ecc=maybe", "ecc"),
        (GPUS, "currency=GBP", "currency"),
        (GPUS, "vendor=", "vendor"),
        (GPUS, "vendor=%00", "vendor"),
        (GPUS, f"vendor={'x' * 65}", "vendor"),
        (GPUS, "min_memry_gb=80", "min_memry_gb"),
        (GPUS, "vendor=AMD&vendor=NVIDIA", "vendor"),
        (GPU_DETAIL, "currency=JPY", "currency"),
        (GPU_DETAIL, "vendor=AMD", "vendor"),
        (CPUS, "min_cores=-1", "min_cores"),
        (CPUS, "server_grade=2", "server_grade"),
        (CHASSIS, "rack_mount=perhaps", "rack_mount"),
        (CHASSIS, "form_factor=nvl", "form_factor"),
        (CHASSIS, "min_gpu_slots=1001", "min_gpu_slots"),
        (CHASSIS, "cooling=water", "cooling"),
        (PRICES, "stale=perhaps", "stale"),
        (PRICES, "price_kind=rental", "price_kind"),
        (PRICES, "part_kind=gpu2", "part_kind"),
        (PRICES, "currency=eur", "currency"),
        (PRICES, "sku=", "sku"),
        (PRICES, "kind=purchase", "kind"),
        (GPUS, "page=abc", "page"),
        (GPUS, "page=99", "page"),
    ],
)
def test_a_bad_query_parameter_is_a_400_naming_it(client, raw_key, url, query, field):
    body = _assert_problem(_get(client, f"{url}?{query}", raw_key), 400, "invalid-input")

    assert list(body["errors"]) == [field]
    assert body["errors"][field]


def test_every_bad_query_parameter_is_named_at_once(client, raw_key):
    response = _get(client, f"{GPUS}?min_memory_gb=abc&colour=red&ecc=1&ecc=0", raw_key)

    body = _assert_problem(response, 400, "invalid-input")
    assert body["errors"] == {
        "min_memory_gb": ["A valid integer is required."],
        "colour": ["Unknown query parameter: the API schema lists this list's filters."],
        "ecc": ["Give this parameter once."],
    }


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("", 200),
        ("&&&", 200),
        ("page_size=abc", 200),  # the default page size
        ("min_memory_gb=80.0", 200),
        ("vendor=%F0%9F%98%80", 200),
        ("vendor=' OR 1=1 --", 200),
        ("vendor=%ff%fe", 200),
        ("%ff=1", 400),
        ("=", 400),
        ("min_memory_gb=NaN", 400),
        ("min_memory_gb=%00", 400),
    ],
)
def test_no_query_string_breaks_a_list(client, raw_key, query, status):
    response = _get(client, f"{GPUS}?{query}", raw_key)

    assert response.status_code == status
    if status >= 400:
        assert response.json()["status"] == status


# --- Conditional GETs -------------------------------------------------------------------------


@pytest.mark.usefixtures("catalog")
def test_every_answer_carries_validators_and_cache_headers(client, raw_key):
    response = _get(client, GPUS, raw_key)

    assert response["ETag"].startswith('W/"')
    assert response["Cache-Control"] == "private, max-age=0, must-revalidate"
    vary = {name.strip() for name in response["Vary"].split(",")}
    assert {"Authorization", "Accept-Language"} <= vary
    changed_at = max(
        Part.objects.aggregate(at=Max("updated_at"))["at"],
        Price.objects.aggregate(at=Max("created_at"))["at"],
        timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0),
    )
    assert response["Last-Modified"] == http_date(int(changed_at.timestamp()))


@pytest.mark.usefixtures("catalog")
@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_matching_if_none_match_is_a_304_without_a_body(client, raw_key, url):
    first = _get(client, url, raw_key)

    again = _get(client, url, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 304
    assert again.content == b""
    assert (again["ETag"], again["Last-Modified"]) == (first["ETag"], first["Last-Modified"])
    assert again["Cache-Control"] == "private, max-age=0, must-revalidate"


@pytest.mark.usefixtures("catalog")
def test_a_304_is_decided_before_the_list_query_runs(client, raw_key, django_assert_num_queries):
    etag = _get(client, GPUS, raw_key)["ETag"]

    # key lookup, catalog version (2 aggregates), last change (2): no count, no page
    with CaptureQueriesContext(connection) as queries, django_assert_num_queries(5):
        response = _get(client, GPUS, raw_key, **{"If-None-Match": etag})

    assert response.status_code == 304
    assert not [q["sql"] for q in queries.captured_queries if "catalog_gpu" in q["sql"]]


@pytest.mark.usefixtures("catalog")
def test_if_none_match_accepts_a_list_and_the_strong_form(client, raw_key):
    etag = _get(client, GPUS, raw_key)["ETag"]

    for header in (f'"other", {etag}', etag.removeprefix("W/"), "*"):
        assert _get(client, GPUS, raw_key, **{"If-None-Match": header}).status_code == 304
    assert _get(client, GPUS, raw_key, **{"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.usefixtures("catalog")
def test_a_new_price_changes_the_etag(client, raw_key):
    first = _get(client, GPUS, raw_key)
    price_record(
        part=Gpu.objects.get(sku=H100),
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("20000.00"),
        currency="EUR",
        observed_on=timezone.localdate(),
        source="test",
    )

    again = _get(client, GPUS, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    prices = {row["sku"]: row["price"]["amount"] for row in again.json()["results"]}
    assert prices[H100] == "20000.00"


@pytest.mark.usefixtures("catalog")
def test_a_part_edit_changes_the_etag(client, raw_key):
    first = _get(client, CPUS, raw_key)
    cpu = Cpu.objects.get(sku="AMD-EPYC-9654")
    cpu.active = False
    cpu.save()

    again = _get(client, CPUS, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert "AMD-EPYC-9654" not in _skus(again)


@pytest.mark.usefixtures("catalog")
def test_the_etag_differs_per_query_string_and_language(client, raw_key):
    etags = {
        _get(client, GPUS, raw_key)["ETag"],
        _get(client, f"{GPUS}?vendor=AMD", raw_key)["ETag"],
        _get(client, f"{GPUS}?page_size=5", raw_key)["ETag"],
        _get(client, GPUS, raw_key, **{"Accept-Language": "fr"})["ETag"],
        _get(client, CPUS, raw_key)["ETag"],
    }
    assert len(etags) == 5

    unfiltered = _get(client, GPUS, raw_key)["ETag"]
    filtered = _get(client, f"{GPUS}?vendor=AMD", raw_key, **{"If-None-Match": unfiltered})
    assert filtered.status_code == 200


@pytest.mark.usefixtures("catalog")
def test_if_modified_since_is_a_304_until_something_changes(client, raw_key):
    last_modified = _get(client, PRICES, raw_key)["Last-Modified"]
    earlier = http_date(parse_http_date(last_modified) - 1)

    same = _get(client, PRICES, raw_key, **{"If-Modified-Since": last_modified})
    older = _get(client, PRICES, raw_key, **{"If-Modified-Since": earlier})
    garbled = _get(client, PRICES, raw_key, **{"If-Modified-Since": "yesterday"})

    assert (same.status_code, same.content) == (304, b"")
    assert (older.status_code, garbled.status_code) == (200, 200)


@pytest.mark.usefixtures("catalog")
def test_if_none_match_wins_over_if_modified_since(client, raw_key):
    last_modified = _get(client, PRICES, raw_key)["Last-Modified"]

    response = _get(
        client,
        PRICES,
        raw_key,
        **{"If-None-Match": '"other"', "If-Modified-Since": last_modified},
    )

    assert response.status_code == 200


@pytest.mark.usefixtures("catalog")
def test_a_304_still_needs_a_caller_who_may_read(client, raw_key, django_user_model):
    etag = _get(client, GPUS, raw_key)["ETag"]

    anonymous = client.get(GPUS, headers={"If-None-Match": etag})
    client.force_login(django_user_model.objects.create_user(username="visitor"))
    outsider = client.get(GPUS, headers={"If-None-Match": etag})

    _assert_problem(anonymous, 401, "unauthenticated")
    _assert_problem(outsider, 403, "forbidden")


def test_errors_carry_no_validators(client, raw_key):
    response = _get(client, f"{GPUS}?ecc=maybe", raw_key)

    assert response.status_code == 400
    assert "ETag" not in response
    assert "Last-Modified" not in response
