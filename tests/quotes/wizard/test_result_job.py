"""The result page leads with the cost of the job when the workload is a run of known length."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from gpuquote.core.formatting import money_format
from tests.quotes.wizard.wizard_cases import (
    FINE_TUNING,
    INFERENCE,
    stored_advice,
    wizard_result_make,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def _page(client, answers):
    result = wizard_result_make(client, answers, language="en")
    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    return html, stored_advice(result)


def test_a_fine_tuning_run_shows_its_cost_rented_and_bought_before_the_horizon(client):
    html, advice = _page(client, FINE_TUNING)
    job = advice.job

    assert job is not None
    assert "The cost of this job" in html
    assert "If you run such jobs continuously: cost over 3 years" in html
    assert html.index('id="job-cost"') < html.index('class="chart-figure"')
    with translation.override("en"):
        for figure in (job.managed, job.buy) + ((job.cloud,) if job.cloud else ()):
            assert money_format(figure.amount, "EUR", places=0) in html
    assert f'data-job="{job.cheapest}"' in html.split('class="total cheapest"')[1][:80]


def test_a_service_shows_the_horizon_view_only(client):
    html, advice = _page(client, INFERENCE)

    assert advice.job is None
    assert "The cost of this job" not in html
    assert "Total cost over 4 years" in html
