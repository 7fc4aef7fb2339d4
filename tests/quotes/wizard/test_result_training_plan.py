"""A training result names its plan: micro-batch, accumulation, parallelism, sharding, speed with
its MFU source, goodput and time, the engine's one ``TrainingPlan`` in the reader's language."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from gpuquote.core.formatting import number_localized
from quotes.advice.labels import SHARDING_LABELS
from tests.quotes.wizard.wizard_cases import CASES, stored_advice, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_training_result_shows_its_training_plan(client, language):
    result = wizard_result_make(client, CASES["training"], language=language)
    plan = stored_advice(result).training_plan
    assert plan is not None
    assert plan.units_per_second is not None

    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    section = html[html.index('id="training-plan"') :]
    section = section[: section.index("</details>")]
    with translation.override(language):
        speed = number_localized(round(plan.units_per_second), 0)
        sharding = str(SHARDING_LABELS[plan.sharding])
    assert speed in section
    assert sharding in section
    assert plan.mfu_source in section
    assert plan.goodput_source in section
    batch = "examples: a micro-batch of" if language == "en" else "exemples : un micro-lot de"
    assert batch in section


def test_a_service_has_no_training_plan(client):
    result = wizard_result_make(client, CASES["inference"], language="en")

    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    assert stored_advice(result).training_plan is None
    assert 'id="training-plan"' not in html
