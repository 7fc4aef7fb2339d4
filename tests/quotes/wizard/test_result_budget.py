"""A budget below every sound configuration gets one clear message and a one-click way out:
"Use 146,493 EUR" computes the same answers with that budget."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from gpuquote.core.formatting import money_format
from quotes.models import WizardResult
from quotes.wizard.result_page import result_context
from tests.quotes.wizard.wizard_cases import FINE_TUNING, stored_advice, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

TOO_SMALL = FINE_TUNING | {"deployment": FINE_TUNING["deployment"] | {"budget": "1000"}}


def test_a_budget_too_small_shows_the_price_needed_and_uses_it_in_one_click(client):
    result = wizard_result_make(client, TOO_SMALL, language="en")
    advice = stored_advice(result)
    needed = advice.build.budget_needed
    assert advice.chosen is None
    assert needed is not None
    assert needed.amount > 1000

    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    with translation.override("en"):
        shown = money_format(needed.amount, "EUR", places=0)
    assert f"Use {shown}" in html
    assert 'id="budget-short"' in html
    assert "checklist-waiting" in html  # no five red crosses
    assert 'class="checklist"' not in html

    response = client.post(reverse("wizard:result_use_budget", kwargs={"token": result.token}))

    fresh = WizardResult.objects.exclude(pk=result.pk).get()
    assert response["Location"] == reverse("wizard:result", kwargs={"token": fresh.token})
    rebuilt = stored_advice(fresh)
    assert rebuilt.inputs.budget == needed.amount
    assert rebuilt.chosen is not None
    assert rebuilt.chosen.totals.price.amount <= needed.amount
    assert fresh.answers["deployment"]["budget"] == str(needed.amount)


def test_a_result_that_fits_ignores_the_button(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")

    response = client.post(reverse("wizard:result_use_budget", kwargs={"token": result.token}))

    assert response["Location"] == reverse("wizard:result", kwargs={"token": result.token})
    assert WizardResult.objects.count() == 1


def test_the_checklist_pdf_draws_the_chart_once_and_the_page_twice(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    context = result_context(result, stored_advice(result))

    pdf_html = render_to_string("pdf/checklist.html", context)
    page_html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content
    assert pdf_html.count('class="chart chart-') == 1  # the wide drawing only
    assert page_html.decode().count('class="chart chart-') == 2  # wide and phone, CSS picks
