"""Computed results cached per process and data version: the wizard and the partner
API compute a question once per data version, and what they store and quote is what a fresh
computation gives."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from catalog.models import Price
from quotes.advice import computed_cache
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
    with mock.patch.object(computed_cache, "compute", wraps=computed_cache.compute) as compute:
        first = computed_cache.computed_get(_inputs())
        again = computed_cache.computed_get(_inputs())
        other = computed_cache.computed_get(_inputs(horizon_years=5))
        assert compute.call_count == 2
        assert again is first
        assert other.result.inputs.horizon_years == 5

        price = Price.objects.filter(price_kind="purchase", currency="USD").latest("id")
        price.pk = None
        price.amount += 1
        price.save()  # a new price: a new data version
        after = computed_cache.computed_get(_inputs())
        assert compute.call_count == 3
        assert after is not first


def test_the_cached_result_is_what_a_fresh_computation_stores():
    fresh = result_to_json(computed_cache.compute(_inputs()))
    computed_cache.computed_get(_inputs())

    assert computed_cache.computed_get(_inputs()).stored == fresh


def test_a_quote_of_the_cached_result_is_the_quote_of_the_stored_one():
    computed = computed_cache.computed_get(_inputs())
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
