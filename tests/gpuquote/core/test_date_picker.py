"""Every date field of the project's forms is the browser's date picker, whose value is ISO
(YYYY-MM-DD) in every language: a French page that rendered "04/01/2027" showed an empty field
and the browser refused to submit it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from quotes.sales.forms import DashboardFilterForm, TermsForm

DAY = dt.date(2027, 1, 4)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_terms_date_renders_and_reads_iso(language):
    with translation.override(language):
        html = str(TermsForm(initial={"valid_until": DAY})["valid_until"])
        bound = TermsForm(
            {"discount_pct": "5", "valid_until": "2027-01-04", "contract_months": "12"}
        )
        assert bound.is_valid(), bound.errors

    assert 'type="date"' in html
    assert 'value="2027-01-04"' in html
    assert bound.cleaned_data["valid_until"] == DAY


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_dashboard_filter_dates_render_iso(language):
    with translation.override(language):
        form = DashboardFilterForm(initial={"created_from": DAY, "created_to": DAY})
        html = str(form["created_from"]) + str(form["created_to"])

    assert html.count('value="2027-01-04"') == 2
    assert html.count('type="date"') == 2
