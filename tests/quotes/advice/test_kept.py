"""Computed results kept per process and data version: the wizard and the partner
API compute a question once per data version, and what they store and quote is what a fresh
computation gives."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from catalog.models import Price
from quotes.advice import kept
from quotes.advice.result import AdviceInputs
from quotes.advice.store import result_from_json, result_to_json
from quotes.models import QuoteOrigin, WizardResult
from quotes.sales.services import quote_create_from_result
from tests.factories import advice_inputs_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

CUSTOMER = {"company": "Acme", "contact_name": "Ada", "email": "ada@example.com", "country": "FR"}


def _inputs(**overrides: Any) -> AdviceInputs:
    return advice_inputs_make(workload={"task": "inference", "model": "llama-3.1-8b"}, **overrides)


def test_the_same_question_is_computed_once_per_data_version():
    with mock.patch.object(kept, "compute", wraps=kept.compute) as compute:
        first = kept.computed_get(_inputs())
        again = kept.computed_get(_inputs())
        other = kept.computed_get(_inputs(horizon_years=5))
        assert compute.call_count == 2
        assert again is first
        assert other.result.inputs.horizon_years == 5

        price = Price.objects.filter(price_kind="purchase", currency="USD").latest("id")
        price.pk = None
        price.amount += 1
        price.save()  # a new price: a new data version
        after = kept.computed_get(_inputs())
        assert compute.call_count == 3
        assert after is not first


def test_the_kept_result_is_what_a_fresh_computation_stores():
    fresh = result_to_json(kept.compute(_inputs()))
    kept.computed_get(_inputs())

    assert kept.computed_get(_inputs()).stored == fresh


def test_a_quote_of_the_kept_result_is_the_quote_of_the_stored_one():
    computed = kept.computed_get(_inputs())
    result = WizardResult.objects.create(language="fr", answers={}, result=computed.stored)
    given = quote_create_from_result(
        user=None,
        result=result,
        advice=computed.result,
        customer=CUSTOMER,
        origin=QuoteOrigin.PARTNER_API,
    )
    decoded = quote_create_from_result(
        user=None, result=result, customer=CUSTOMER, origin=QuoteOrigin.PARTNER_API
    )

    assert result_from_json(result.result) == computed.result
    assert given.snapshot == decoded.snapshot
    fields = ("kind", "sku", "description", "quantity", "unit_price", "recurrence", "role")

    def lines(quote):
        return list(quote.current_revision.lines.order_by("position").values_list(*fields))

    assert lines(given) == lines(decoded)
    assert len(lines(given)) > 1
