"""Exact query counts: every REST list, every page, the admin's main changelists.

A list is read with one row, then with five: the count must be the same both times and exactly
the one written here, so a query per row (an N+1) fails, and so does any new query (raise the
figure in the same change, saying why). Pages that show one thing are counted exactly too; those
listing the lines of a quote are read for a quote of one line and for one of five.

Counts include the request's own overhead: the API key lookup (its last use is written at most
once a minute, so each test calls once before counting), or the session, the user and its
groups for a signed-in page. The wizard's pages run on the seed catalog (``load_catalog``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from quotes.models import Partner, Quote
from quotes.sales import services as sales_services
from tests.api_fixtures import auth
from tests.factories import (
    api_key_make,
    chassis_make,
    cpu_make,
    gpu_make,
    partner_make,
    price_make,
    price_source_make,
    quote_make,
    quote_request_make,
    region_assumption_make,
    staff_user_make,
    stored_result_make,
    webhook_delivery_make,
    webhook_make,
)
from tests.quotes.wizard.wizard_cases import FINE_TUNING_WITH_BUDGET

pytestmark = pytest.mark.django_db

ROWS = 5  # the second reading of a list: one row, then five


@pytest.fixture
def partner() -> Partner:
    return partner_make(name="Acme Cloud")


@pytest.fixture
def api_headers(partner) -> dict[str, str]:
    _key, raw = api_key_make(partner)
    return auth(raw)


@pytest.fixture
def rep(client):
    user = staff_user_make("rep", group=sales_services.REP_GROUP)
    client.force_login(user)
    return user


@pytest.fixture(autouse=True)
def data_versions_trusted_for_the_test(settings) -> None:
    """The warm-up request reads the data versions and the measured one trusts them for
    ``DATA_VERSION_MS``: on a loaded machine (coverage, parallel workers) more than the default
    second can pass between the two, and the count would include a re-read."""
    settings.DATA_VERSION_MS = 60_000


@pytest.fixture
def catalog(seed_catalog) -> None:
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


def assert_list_costs(
    client: Client,
    django_assert_num_queries: Any,
    *,
    url: str,
    num_queries: int,
    row_add: Callable[[], object],
    rows_shown: Callable[[Any], tuple[int, ...]],
    headers: dict[str, str] | None = None,
) -> None:
    """``url`` lists one row, then ``ROWS``, in exactly ``num_queries`` queries both times;
    ``rows_shown`` reads how many rows the answer holds (one figure per list on the page)."""
    row_add()
    for rows in (1, ROWS):
        # Warmed: the key's first use of the minute, and the data versions this process forgot
        # when it saved the rows (read once per DATA_VERSION_MS otherwise).
        client.get(url, headers=headers)
        with django_assert_num_queries(num_queries):
            response = client.get(url, headers=headers)
        assert response.status_code == 200
        shown = rows_shown(response)
        assert shown == (rows,) * len(shown)
        for _ in range(ROWS - rows):
            row_add()


def api_count(response: Any) -> tuple[int]:
    return (response.json()["count"],)


# --- The REST API's lists -----------------------------------------------------------------------


def _priced(part_make: Callable[[], Any]) -> Callable[[Partner], object]:
    return lambda _partner: price_make(part_make())


def _partner_quote(partner: Partner) -> Quote:
    return quote_make(origin="partner_api", partner=partner, lines=2)


# key lookup, last change (3: parts, prices, rates), count, page; the data versions are read at
# most once per DATA_VERSION_MS per process, and not again within the test's second
CATALOG_LIST = 6

API_LISTS = [
    pytest.param("api:catalog-gpus", _priced(gpu_make), CATALOG_LIST, id="catalog-gpus"),
    pytest.param("api:catalog-cpus", _priced(cpu_make), CATALOG_LIST, id="catalog-cpus"),
    pytest.param("api:catalog-chassis", _priced(chassis_make), CATALOG_LIST, id="catalog-chassis"),
    pytest.param("api:catalog-prices", _priced(gpu_make), CATALOG_LIST, id="catalog-prices"),
    # key, count, page, lines, status events
    pytest.param("api:quote-list", _partner_quote, 5, id="quotes"),
    # key, count, page
    pytest.param("api:webhooks", webhook_make, 3, id="webhooks"),
]


@pytest.mark.parametrize(("url_name", "row_make", "num_queries"), API_LISTS)
def test_an_api_list_costs_the_same_queries_for_one_row_or_five(
    client, django_assert_num_queries, partner, api_headers, url_name, row_make, num_queries
):
    assert_list_costs(
        client,
        django_assert_num_queries,
        url=reverse(url_name),
        num_queries=num_queries,
        row_add=lambda: row_make(partner),
        rows_shown=api_count,
        headers=api_headers,
    )


def test_the_quote_list_costs_the_sales_team_the_same_for_one_quote_or_five(
    client, django_assert_num_queries, partner, rep
):
    # session, user, groups, count, page, lines, status events
    assert_list_costs(
        client,
        django_assert_num_queries,
        url=reverse("api:quote-list"),
        num_queries=7,
        row_add=lambda: _partner_quote(partner),
        rows_shown=api_count,
    )


def test_a_webhooks_deliveries_cost_the_same_for_one_or_five(
    client, django_assert_num_queries, partner, api_headers
):
    webhook = webhook_make(partner)
    # key, webhook, count, deliveries, attempts
    assert_list_costs(
        client,
        django_assert_num_queries,
        url=reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk}),
        num_queries=5,
        row_add=lambda: webhook_delivery_make(webhook, attempts=2),
        rows_shown=api_count,
        headers=api_headers,
    )


def test_the_model_registry_is_read_without_a_query(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get(reverse("api:models"))
    assert response.status_code == 200
    assert response.json()


# --- The REST API's single objects: a quote of one line or five ---------------------------------


@pytest.mark.parametrize(
    ("url_name", "num_queries"),
    [
        pytest.param("api:quote-detail", 4, id="quote"),  # key, quote, lines, status events
        pytest.param("api:quote-pdf", 5, id="quote-pdf"),  # the same, and the lines once more
    ],
)
def test_an_api_quote_costs_the_same_for_one_line_or_five(
    client, django_assert_num_queries, partner, api_headers, url_name, num_queries
):
    client.get(reverse("api:quote-list"), headers=api_headers)  # the key's first use
    for lines in (1, ROWS):
        quote = quote_make(origin="partner_api", partner=partner, lines=lines)
        with django_assert_num_queries(num_queries):
            response = client.get(reverse(url_name, kwargs={"pk": quote.pk}), headers=api_headers)
        assert response.status_code == 200


def test_one_catalog_gpu_and_one_webhook_cost_a_fixed_number_of_queries(
    client, django_assert_num_queries, partner, api_headers
):
    gpu = price_make(gpu_make()).part
    webhook = webhook_make(partner)
    client.get(reverse("api:webhooks"), headers=api_headers)  # the key's first use
    for url, num_queries in (
        # key, versions (3: catalog, prices, market data), last change (3: parts, prices,
        # rates), the GPU, its current prices and the day's rates (cached per version); no count
        (reverse("api:catalog-gpu", kwargs={"sku": gpu.sku}), 10),
        (reverse("api:webhook", kwargs={"webhook_id": webhook.pk}), 2),  # key, webhook
    ):
        with django_assert_num_queries(num_queries):
            assert client.get(url, headers=api_headers).status_code == 200


# --- The wizard: steps, result, checklist, quote request ----------------------------------------


def _step_url(step: str) -> str:
    return reverse("wizard:step", kwargs={"step": step})


@pytest.mark.usefixtures("catalog")
def test_each_wizard_step_costs_a_fixed_number_of_queries(client, django_assert_num_queries):
    # No session before the first answer; then the session (the answers so far). The last step
    # also shows each region's defaults: the data versions (4 queries, then trusted for
    # DATA_VERSION_MS), the ECB's latest rates (1), one query per region and currency (4 x 2),
    # and the service tiers (1), cached per version: a second visit reads the session alone.
    expected = {"project": 0, "data": 1, "usage": 1, "deployment": 15}
    with django_assert_num_queries(0):
        assert client.get(reverse("home")).status_code == 200
    for step, data in FINE_TUNING_WITH_BUDGET.items():
        with django_assert_num_queries(expected[step]):
            assert client.get(_step_url(step)).status_code == 200
        if step != "deployment":
            response = client.post(_step_url(step), data | {"nav": "next"})
            assert response.status_code == 302
    with django_assert_num_queries(1):
        assert client.get(_step_url("deployment")).status_code == 200


@pytest.mark.usefixtures("catalog")
def test_the_wizard_result_its_checklist_and_the_quote_request_cost_fixed_queries(
    client, django_assert_num_queries
):
    steps = list(FINE_TUNING_WITH_BUDGET.items())
    for step, data in steps[:-1]:
        client.post(_step_url(step), data | {"nav": "next"})
    last_step, last_answers = steps[-1]
    # session, catalog version (2), current prices (2: purchase and managed, in every currency;
    # the price ages are the purchase ones, kept), parts by kind (9: six server parts,
    # switches, cables, storage servers), assumptions, cloud prices, catalog version again (2),
    # assumptions again, the service tiers (1, cached per catalog version), the ECB's latest rates
    # (1: the prices' conversion and the TCO's rates share them) and the hosting offers of the
    # market band (1), cached per version, the look-up of the same question on the same data,
    # the insert in a savepoint (3), the session saved in a savepoint (3)
    with django_assert_num_queries(29):
        response = client.post(_step_url(last_step), last_answers | {"nav": "next"})
    assert response.status_code == 302
    result_url = response["Location"]
    token = result_url.rstrip("/").split("/")[-1]

    # The re-pricing form's GPU models come from the shared cache (catalog version checks and
    # the snapshot on a miss, every few minutes): the first view fills it.
    client.get(result_url)
    with django_assert_num_queries(1):  # the stored result: the page renders its JSON
        assert client.get(result_url).status_code == 200
    pdf_url = reverse("wizard:checklist_pdf", kwargs={"token": token})
    # The result's language; its figures were decoded by the page's visit and are kept by this
    # process (quotes.wizard.result_cache), so they are not read again.
    with django_assert_num_queries(1):
        response = client.get(pdf_url)
    assert response["Content-Type"] == "application/pdf"
    with django_assert_num_queries(1):  # cached: the figures are not even read
        assert client.get(pdf_url).content == response.content
    request_form = {
        "name": "Ada Lovelace",
        "company": "Analytical Engines SA",
        "email": "ada@example.com",
        "country": "FR",
        "consent": "on",
    }
    # result, savepoint, result again, the same e-mail's request, the model's four check
    # constraints validated in the database (savepoint, check, release: 12), savepoint, insert,
    # release, the outbox job that e-mails the sales team (same transaction), release
    with django_assert_num_queries(21):
        response = client.post(
            reverse("wizard:quote_request", kwargs={"token": token}), request_form
        )
    assert response.status_code == 302
    with django_assert_num_queries(1):  # the result
        assert client.get(response["Location"]).status_code == 200


# --- The sales team's screens and the customer's quote page -------------------------------------


def test_the_dashboard_costs_the_same_for_one_quote_and_request_or_five(
    client, django_assert_num_queries, rep
):
    def quote_and_request() -> None:
        quote_make(user=rep)
        quote_request_make()

    # session, user, groups, status counts, new requests, page count, page rows, the price
    # sources' health (stale ones are named)
    assert_list_costs(
        client,
        django_assert_num_queries,
        url=reverse("sales:dashboard"),
        num_queries=8,
        row_add=quote_and_request,
        rows_shown=lambda response: (
            len(response.context["page"].object_list),
            len(response.context["requests"]),
        ),
    )


@pytest.mark.parametrize(
    ("url_name", "by", "num_queries"),
    [
        # session, user, groups, quote, lines (twice: the document, the server checks),
        # revisions, events (the catalog version and the price ages: read by the first page,
        # cached per version)
        pytest.param("sales:quote_detail", "pk", 8, id="staff-detail"),
        pytest.param("sales:quote_pdf", "pk", 5, id="staff-pdf"),  # ..., quote, lines
        pytest.param("sales:quote_public", "token", 3, id="customer-page"),  # quote, lines, answer
    ],
)
def test_a_quote_page_costs_the_same_for_one_line_or_five(
    client, django_assert_num_queries, rep, url_name, by, num_queries
):
    quotes = [quote_make(user=rep, lines=n) for n in (1, ROWS)]
    if url_name == "sales:quote_public":  # a quote never sent has no customer page
        for quote in quotes:
            sales_services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    urls = [reverse(url_name, args=[getattr(quote, by)]) for quote in quotes]
    client.get(urls[0])  # the catalog snapshot the server checks read, loaded once per process
    for url in urls:
        with django_assert_num_queries(num_queries):
            response = client.get(url)
        assert response.status_code == 200


def test_the_staff_forms_cost_a_fixed_number_of_queries(client, django_assert_num_queries, rep):
    with django_assert_num_queries(3):  # session, user, groups
        assert client.get(reverse("sales:quote_new")).status_code == 200
    client.logout()
    with django_assert_num_queries(0):
        assert client.get(reverse("sales:login")).status_code == 200


# --- The admin's changelists --------------------------------------------------------------------


ADMIN_ROWS: dict[str, Callable[[], object]] = {
    "catalog_gpu": gpu_make,
    "catalog_price": lambda: price_make(gpu_make()),
    "catalog_pricesource": price_source_make,
    # Edited by someone: the row shows who.
    "quotes_regionassumption": lambda: region_assumption_make(updated_by=staff_user_make()),
    "quotes_quote": lambda: quote_make(user=staff_user_make()),
    "quotes_quoterequest": quote_request_make,
    "quotes_wizardresult": stored_result_make,
    "quotes_partner": partner_make,
    "quotes_apikey": lambda: api_key_make(partner_make()),
    "quotes_webhook": lambda: webhook_make(partner_make()),
    "quotes_webhookdelivery": lambda: webhook_delivery_make(webhook_make(partner_make())),
}


@pytest.mark.parametrize(
    ("model_admin", "num_queries"),
    [
        # Each: session, user, count, full count, rows; then the filters' and the date
        # hierarchy's own queries.
        ("catalog_gpu", 7),  # vendors, architectures
        ("catalog_price", 7),  # date hierarchy (2)
        ("catalog_pricesource", 5),  # last run annotated
        ("quotes_regionassumption", 5),  # updated_by joined
        ("quotes_quote", 7),  # date hierarchy (2)
        ("quotes_quoterequest", 7),  # date hierarchy (2)
        ("quotes_wizardresult", 7),  # date hierarchy (2)
        ("quotes_partner", 5),  # keys and quotes counted in the rows' query
        ("quotes_apikey", 6),  # the partner filter's choices
        ("quotes_webhook", 6),  # the partner filter's choices
        ("quotes_webhookdelivery", 8),  # date hierarchy (2), event types
    ],
)
def test_an_admin_changelist_costs_the_same_for_one_row_or_five(
    client, django_assert_num_queries, staff_user, model_admin, num_queries
):
    client.force_login(staff_user)
    assert_list_costs(
        client,
        django_assert_num_queries,
        url=reverse(f"admin:{model_admin}_changelist"),
        num_queries=num_queries,
        row_add=ADMIN_ROWS[model_admin],
        rows_shown=lambda response: (response.context["cl"].result_count,),
    )
