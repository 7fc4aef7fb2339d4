"""Attack: a staff member pastes a hostile workload JSON into the quote's workload form."""

import pytest

from quotes.sales.forms import WorkloadForm


def _form(workload_json: str) -> WorkloadForm:
    return WorkloadForm(
        data={
            "task": "inference",
            "environment": "production",
            "growth_gpus": "0",
            "workload_json": workload_json,
        }
    )


def test_workload_json_nested_ten_thousand_levels_is_a_form_error_not_a_500():
    form = _form('{"a": ' + "[" * 10_000 + "]" * 10_000 + "}")

    assert not form.is_valid()
    assert form.errors["workload_json"] == ["The JSON body is nested more than 32 levels deep."]


def test_workload_json_with_a_lone_surrogate_is_refused_naming_the_path():
    form = _form('{"task": "inference", "model": "\\ud800"}')

    assert not form.is_valid()
    assert form.errors["workload_json"][-1] == (
        "model: Contains an invalid character (a lone UTF-16 surrogate)."
    )


@pytest.mark.parametrize("keys", [2_000, 200_000])
def test_workload_json_with_thousands_of_keys_is_refused(keys, settings):
    settings.API_BODY_LIMITS = {"default": 10_000_000}  # the key count, not the size, refuses
    body = "{" + ",".join(f'"k{i}": 0' for i in range(keys)) + "}"

    form = _form(body)

    assert not form.is_valid()
    assert form.errors["workload_json"] == ["The JSON body has more than 1000 keys."]


def test_a_plain_workload_json_still_passes():
    form = _form('{"task": "inference", "model": "llama-3.1-8b"}')

    assert form.is_valid(), form.errors
    assert form.cleaned_data["workload"] == {"task": "inference", "model": "llama-3.1-8b"}


def test_workload_json_over_the_body_limit_is_refused_before_parsing(settings):
    settings.API_BODY_LIMITS = {"default": 1_000}

    form = _form('{"task": "inference", "model": "' + "x" * 2_000 + '"}')

    assert not form.is_valid()
    assert form.errors["workload_json"] == ["The request body is larger than 1000 bytes."]


def test_workload_json_not_an_object_is_refused():
    form = _form("[[0], [0]]")

    assert not form.is_valid()
    assert str(form.errors["workload_json"][-1]).endswith("Expected a JSON object.")
