"""Step 1's kind of another model: offered next to its size, sent to the engine with it."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from engine.sizing import size
from engine.workload import workload_from_dict
from quotes.wizard.forms import ProjectForm
from tests.quotes.wizard.wizard_cases import PROJECT_DEFAULTS

EMBEDDER = PROJECT_DEFAULTS | {
    "goal": "inference",
    "model": "custom",
    "parameters_billions": "0.335",
    "model_kind": "encoder",
}


def test_the_kind_of_another_model_reaches_the_engine():
    form = ProjectForm(data=EMBEDDER)

    assert form.is_valid(), form.errors
    answers = form.answers()
    assert answers == {
        "task": "inference",
        "precision": "bf16",
        "parameters_billions": 0.335,
        "model_kind": "encoder",
    }
    assert size(workload_from_dict(answers)).memory_gb.kv_cache == 0


def test_without_a_kind_another_model_is_a_text_generator():
    # No kind sent (an old form, a stored answer): the engine's default, a decoder.
    for data in (
        EMBEDDER | {"model_kind": ""},
        {k: v for k, v in EMBEDDER.items() if k != "model_kind"},
    ):
        form = ProjectForm(data=data)
        assert form.is_valid(), form.errors
        assert "model_kind" not in form.answers()
        assert workload_from_dict(form.answers()).model_kind is None


def test_a_kind_left_set_is_ignored_for_a_registry_model():
    # The field is visible without JavaScript: a kind chosen before switching to a known model
    # must not contradict the registry's own kind.
    form = ProjectForm(data=EMBEDDER | {"model": "llama-3.1-8b", "model_kind": "diffusion"})

    assert form.is_valid(), form.errors
    assert form.answers() == {"task": "inference", "precision": "bf16", "model": "llama-3.1-8b"}


def test_an_unknown_kind_is_refused_on_its_field():
    with translation.override("en"):
        form = ProjectForm(data=EMBEDDER | {"model_kind": "gan"})

        assert not form.is_valid()
        assert list(form.errors) == ["model_kind"]
        assert "gan" in form.errors["model_kind"][0]


@pytest.mark.django_db
def test_the_kind_sits_next_to_the_size_and_works_without_javascript(client):
    page = client.get(reverse("wizard:step", kwargs={"step": "project"})).content.decode()

    row = re.search(r'<div class="field-row">(.*?)</div>\s*<fieldset', page, re.S)
    assert row is not None
    assert 'name="parameters_billions"' in row.group(1)
    select = re.search(r'<select name="model_kind"[^>]*>(.*?)</select>', row.group(1), re.S)
    assert select is not None
    values = re.findall(r'<option value="([a-z]+)"', select.group(1))
    assert values == ["decoder", "encoder", "diffusion", "vision"]
    assert re.search(r'<option value="decoder" selected>', select.group(1))
    # Rendered in the page (not built by a script); the script only hides it for known models.
    assert 'id="id_model_kind_field"' in page
