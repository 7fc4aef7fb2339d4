"""The partner catalog API's conditional GETs: ETag and Last-Modified validators, 304 answers
decided before the list query runs, and validators that change with the catalog.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import Max
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.http import http_date, parse_http_date

from catalog.models import Cpu, Gpu, Part, Price, PriceKind
from catalog.services import price_record
from tests.catalog.catalog_api import (
    CPUS,
    ENDPOINTS,
    GPUS,
    H100,
    PRICES,
    api_get,
    assert_problem,
    skus_of,
)
from tests.factories import ecb_rates_load

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("loaded_catalog")
def test_every_answer_carries_validators_and_cache_headers(client, raw_key):
    response = api_get(client, GPUS, raw_key)

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


@pytest.mark.usefixtures("loaded_catalog")
@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_matching_if_none_match_is_a_304_without_a_body(client, raw_key, url):
    first = api_get(client, url, raw_key)

    again = api_get(client, url, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 304
    assert again.content == b""
    assert (again["ETag"], again["Last-Modified"]) == (first["ETag"], first["Last-Modified"])
    assert again["Cache-Control"] == "private, max-age=0, must-revalidate"


@pytest.mark.usefixtures("loaded_catalog")
def test_a_304_is_decided_before_the_list_query_runs(client, raw_key, django_assert_num_queries):
    etag = api_get(client, GPUS, raw_key)["ETag"]

    # key lookup, last change (3: parts, prices, rates): no count, no page (the data versions
    # were read by the first request and are trusted for DATA_VERSION_MS)
    with CaptureQueriesContext(connection) as queries, django_assert_num_queries(4):
        response = api_get(client, GPUS, raw_key, **{"If-None-Match": etag})

    assert response.status_code == 304
    assert not [q["sql"] for q in queries.captured_queries if "catalog_gpu" in q["sql"]]


@pytest.mark.usefixtures("loaded_catalog")
def test_if_none_match_accepts_a_list_and_the_strong_form(client, raw_key):
    etag = api_get(client, GPUS, raw_key)["ETag"]

    for header in (f'"other", {etag}', etag.removeprefix("W/"), "*"):
        assert api_get(client, GPUS, raw_key, **{"If-None-Match": header}).status_code == 304
    assert api_get(client, GPUS, raw_key, **{"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.usefixtures("loaded_catalog")
def test_a_new_price_changes_the_etag(client, raw_key):
    first = api_get(client, GPUS, raw_key)
    price_record(
        part=Gpu.objects.get(sku=H100),
        price_kind=PriceKind.PURCHASE,
        amount=Decimal("20000.00"),
        currency="EUR",
        observed_on=timezone.localdate(),
        source="test",
    )

    again = api_get(client, GPUS, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    prices = {row["sku"]: row["price"]["amount"] for row in again.json()["results"]}
    assert prices[H100] == "20000.00"


@pytest.mark.usefixtures("loaded_catalog")
def test_a_new_reference_rate_changes_the_etag_and_the_converted_prices(client, raw_key):
    first = api_get(client, GPUS, raw_key)
    ecb_rates_load()  # USD 1.0853 on 2026-12-04, the latest

    again = api_get(client, GPUS, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    before = {row["sku"]: row["price"] for row in first.json()["results"]}
    after = {row["sku"]: row["price"] for row in again.json()["results"]}
    assert before[H100]["exchange_rate"]["per_eur"] == "1.0824"  # built in
    assert after[H100]["exchange_rate"]["per_eur"] == "1.0853"  # the ECB's of 2026-12-04
    assert Decimal(after[H100]["amount"]) < Decimal(before[H100]["amount"])


@pytest.mark.usefixtures("loaded_catalog")
def test_a_part_edit_changes_the_etag(client, raw_key):
    first = api_get(client, CPUS, raw_key)
    cpu = Cpu.objects.get(sku="AMD-EPYC-9654")
    cpu.active = False
    cpu.save()

    again = api_get(client, CPUS, raw_key, **{"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert "AMD-EPYC-9654" not in skus_of(again)


@pytest.mark.usefixtures("loaded_catalog")
def test_the_etag_differs_per_query_string_and_language(client, raw_key):
    etags = {
        api_get(client, GPUS, raw_key)["ETag"],
        api_get(client, f"{GPUS}?vendor=AMD", raw_key)["ETag"],
        api_get(client, f"{GPUS}?page_size=5", raw_key)["ETag"],
        api_get(client, GPUS, raw_key, **{"Accept-Language": "fr"})["ETag"],
        api_get(client, CPUS, raw_key)["ETag"],
    }
    assert len(etags) == 5

    unfiltered = api_get(client, GPUS, raw_key)["ETag"]
    filtered = api_get(client, f"{GPUS}?vendor=AMD", raw_key, **{"If-None-Match": unfiltered})
    assert filtered.status_code == 200


@pytest.mark.usefixtures("loaded_catalog")
def test_if_modified_since_is_a_304_until_something_changes(client, raw_key):
    last_modified = api_get(client, PRICES, raw_key)["Last-Modified"]
    earlier = http_date(parse_http_date(last_modified) - 1)

    same = api_get(client, PRICES, raw_key, **{"If-Modified-Since": last_modified})
    older = api_get(client, PRICES, raw_key, **{"If-Modified-Since": earlier})
    garbled = api_get(client, PRICES, raw_key, **{"If-Modified-Since": "yesterday"})

    assert (same.status_code, same.content) == (304, b"")
    assert (older.status_code, garbled.status_code) == (200, 200)


@pytest.mark.usefixtures("loaded_catalog")
def test_if_none_match_wins_over_if_modified_since(client, raw_key):
    last_modified = api_get(client, PRICES, raw_key)["Last-Modified"]

    response = api_get(
        client,
        PRICES,
        raw_key,
        **{"If-None-Match": '"other"', "If-Modified-Since": last_modified},
    )

    assert response.status_code == 200


@pytest.mark.usefixtures("loaded_catalog")
def test_a_304_still_needs_a_caller_who_may_read(client, raw_key, django_user_model):
    etag = api_get(client, GPUS, raw_key)["ETag"]

    anonymous = client.get(GPUS, headers={"If-None-Match": etag})
    client.force_login(django_user_model.objects.create_user(username="visitor"))
    outsider = client.get(GPUS, headers={"If-None-Match": etag})

    assert_problem(anonymous, 401, "unauthenticated")
    assert_problem(outsider, 403, "forbidden")


def test_errors_carry_no_validators(client, raw_key):
    response = api_get(client, f"{GPUS}?ecc=maybe", raw_key)

    assert response.status_code == 400
    assert "ETag" not in response
    assert "Last-Modified" not in response
