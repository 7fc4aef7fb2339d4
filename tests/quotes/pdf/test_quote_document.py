"""The quote document reads its TCO from the engine's own ``TcoResult``, decoded once from the
quote's snapshot (or, for a quote made before the snapshot kept it, from the stored result), and
shows the figures the partner API states from the same snapshot."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from engine.advice.codec import decode
from engine.tco import TcoResult
from gpuquote.core.formatting import money_format
from quotes.models import QuoteRequest
from quotes.pdf.quote import quote_document_context, snapshot_tco_get
from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.test_wizard_views import QUOTE, _result, _walk
from tests.quotes.wizard.wizard_cases import CASES, stored_advice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

MANAGED = CASES["inference"] | {
    "deployment": CASES["inference"]["deployment"] | {"deployment": "managed"}
}


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _quote_from_the_wizard(client, rep, case=MANAGED):
    result = _result(_walk(client, case))
    client.post(reverse("wizard:quote_request", kwargs={"token": result.token}), QUOTE)
    quote = services.quote_create_from_request(user=rep, quote_request=QuoteRequest.objects.get())
    return quote, result


def test_the_snapshot_keeps_the_results_tco_as_the_engine_computed_it(client, rep):
    quote, result = _quote_from_the_wizard(client, rep)

    kept = decode(TcoResult, quote.snapshot["tco_result"])

    assert kept == stored_advice(result).tco
    assert snapshot_tco_get(quote.snapshot) == kept


def test_the_document_shows_the_figures_the_api_states(client, rep):
    quote, _ = _quote_from_the_wizard(client, rep)
    api = quote.snapshot["tco"]  # what the partner API returns for the quote

    with translation.override(quote.language):
        context = quote_document_context(quote=quote)

    assert context["tco_totals"] == [
        {"key": key, "total": Decimal(api["options"][key]["total"])}
        for key in ("on_premises", "managed", "cloud")
        if key in api["options"]
    ]
    managed = api["options"]["managed"]
    fees = sum(
        Decimal(managed["by_category"][name])
        for name in ("setup", "hosting_fees", "support")
        if name in managed["by_category"]
    )
    assert context["managed_split"] == {
        "years": api["horizon_months"] // 12,
        "fees": fees,
        "own": Decimal(managed["total"]) - fees,
        "total": Decimal(managed["total"]),
    }
    with translation.override(quote.language):
        for item in context["tco_totals"]:
            assert money_format(item["total"], quote.currency, places=0) in context["chart"]


def test_a_quote_made_before_the_snapshot_kept_the_tco_reads_its_stored_result(client, rep):
    quote, _ = _quote_from_the_wizard(client, rep)
    with translation.override(quote.language):
        before = quote_document_context(quote=quote)
    quote.snapshot = {key: value for key, value in quote.snapshot.items() if key != "tco_result"}
    quote.save(update_fields=["snapshot"])

    with translation.override(quote.language):
        after = quote_document_context(quote=quote)

    assert after["chart"] == before["chart"]
    assert after["chart"]
    assert after["managed_split"] == before["managed_split"]
    assert after["tco_totals"] == before["tco_totals"]


def test_a_quote_without_a_result_has_no_cost_comparison(rep):
    quote = services.quote_create(
        user=rep,
        origin="staff",
        company="Acme",
        contact_name="Ada",
        email="ada@example.com",
        country="FR",
        lines=[
            services.LineInput(
                kind="service",
                description="Support",
                quantity=Decimal(1),
                unit_price=Decimal("100.00"),
            )
        ],
    )

    context = quote_document_context(quote=quote)

    assert snapshot_tco_get(quote.snapshot) is None
    assert (context["chart"], context["managed_split"], context["tco_totals"]) == ("", None, [])
