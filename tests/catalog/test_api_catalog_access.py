"""The partner catalog API's gate: who may read it (partner keys, the sales team) and what a
bad query string gets (a 400 naming every bad parameter, never a crash).
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from quotes.partners.keys import api_key_issue, api_key_revoke
from quotes.sales.services import REP_GROUP
from tests.api_fixtures import auth, partner_key
from tests.catalog.catalog_api import (
    CHASSIS,
    CPUS,
    ENDPOINTS,
    GPU_DETAIL,
    GPUS,
    H100,
    PRICES,
    api_get,
    assert_problem,
)

pytestmark = pytest.mark.django_db


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

    body = assert_problem(response, 401, "unauthenticated")
    assert body["errors"] == {}
    assert response["WWW-Authenticate"] == 'Api-Key realm="GPUQuote API"'
    assert "ETag" not in response


@pytest.mark.usefixtures("loaded_catalog")
@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_partner_key_reads(client, raw_key, url):
    assert api_get(client, url, raw_key).status_code == 200


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
        body = assert_problem(api_get(client, url, raw), 401, "unauthenticated")
        assert body["detail"] == "The API key is unknown, expired or revoked."


@pytest.mark.parametrize("staff", ["sales rep", "superuser"])  # is_staff alone: tests/security
@pytest.mark.parametrize("url", ENDPOINTS)
def test_the_sales_team_reads_through_its_session(
    client, loaded_catalog, django_user_model, staff, url
):
    user = django_user_model.objects.create_user(
        username="seller", password="not-a-real-password", is_superuser=staff == "superuser"
    )
    if staff == "sales rep":
        user.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])
    client.force_login(user)

    assert client.get(url).status_code == 200


def test_a_signed_in_user_outside_the_sales_team_is_refused(client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="visitor"))

    assert_problem(client.get(GPUS), 403, "forbidden")


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
    body = assert_problem(api_get(client, f"{url}?{query}", raw_key), 400, "invalid-input")

    assert list(body["errors"]) == [field]
    assert body["errors"][field]


def test_every_bad_query_parameter_is_named_at_once(client, raw_key):
    response = api_get(client, f"{GPUS}?min_memory_gb=abc&colour=red&ecc=1&ecc=0", raw_key)

    body = assert_problem(response, 400, "invalid-input")
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
    response = api_get(client, f"{GPUS}?{query}", raw_key)

    assert response.status_code == status
    if status >= 400:
        assert response.json()["status"] == status
