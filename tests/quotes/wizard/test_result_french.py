"""The result page in French reads as French: the task, the language menu, the
punctuation of an error, a point left out of the checklist."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.quotes.wizard.wizard_cases import INFERENCE, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def _page(client):
    result = wizard_result_make(client, INFERENCE, language="fr")
    url = reverse("wizard:result", kwargs={"token": result.token})
    return result, client.get(url).content.decode()


def test_the_task_the_menu_and_a_point_left_out_read_as_french(client):
    _result, html = _page(client)

    assert "Inférence Llama 3.1 8B" in html  # not "En cours", a price run's status
    assert '<option value="fr" lang="fr" selected>Français</option>' in html
    # INFERENCE plans no growth: a choice, shown neutral, not a failure
    growth = html[html.index('data-point="growth"') :][:600]
    assert "not-planned" in html[html.index('data-point="growth"') - 40 :][:80]
    assert "non prévu" in growth
    assert "des 4 points prévus sont respectés" in html
    memory = html[html.index('data-figure="memory"') :][:400]
    assert " Go</p>" in memory  # gigaoctets
    assert " GB</p>" not in memory


def test_an_error_reads_with_french_punctuation(client):
    result, _html = _page(client)
    form = {
        "name": "Ada Lovelace",
        "company": "Analytical Engines",
        "email": "ada@example.com",
        "country": "FR",
    }

    html = client.post(
        reverse("wizard:quote_request", kwargs={"token": result.token}), form
    ).content.decode()

    assert "à cette fin : Cochez cette case" in html  # not "à cette fin.: Cochez"
