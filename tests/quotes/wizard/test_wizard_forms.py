"""Each wizard step validates its own answers and names what is allowed (ranges from LIMITS)."""

from decimal import Decimal

import pytest
from django.utils import translation

from engine.workload import LIMITS
from quotes.wizard.forms import (
    DataForm,
    DeploymentForm,
    ProjectForm,
    QuoteRequestForm,
    UsageForm,
    number_parse,
)
from tests.quotes.wizard.wizard_cases import FINE_TUNING

PROJECT = FINE_TUNING["project"]
TRAINING_PROJECT = {
    "task": "fine_tuning",
    "precision": "bf16",
    "model": "llama-3.1-8b",
    "training": {
        "method": "lora",
        "batch_size": 8,
        "sequence_length": 2048,
        "lora_rank": 16,
        "gradient_checkpointing": True,
    },
}
INFERENCE_PROJECT = {"task": "inference", "precision": "bf16", "model": "llama-3.1-8b"}
DEPLOYMENT = {
    "deployment": "managed",
    "region": "FR",
    "currency": "EUR",
    "horizon_years": "3",
    "utilization_pct": "70",
}


def _allowed(path: str) -> str:
    """LIMITS[path] as the English messages write it: "0.001 to 100,000,000"."""
    low, high = (Decimal(str(bound)).normalize() for bound in LIMITS[path])
    return f"{low:,f} to {high:,f}"


def _errors(form) -> dict[str, list[str]]:
    assert not form.is_valid()
    return {name: list(messages) for name, messages in form.errors.items()}


# --- Numbers as people type them -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "raw", "expected"),
    [
        ("en", "1,000,000", Decimal(1000000)),
        ("en", "0.19", Decimal("0.19")),
        ("en", " 42 ", Decimal(42)),
        ("fr", "1 000 000", Decimal(1000000)),
        ("fr", "1\u202f000", Decimal(1000)),
        ("fr", "0,19", Decimal("0.19")),
        ("fr", "0.19", Decimal("0.19")),
    ],
)
def test_numbers_are_read_in_the_visitors_locale(language, raw, expected):
    with translation.override(language):
        assert number_parse(raw) == expected


@pytest.mark.parametrize("raw", ["abc", "1.2.3", "0,19", "nan", "inf", "1e"])
def test_what_is_not_a_number_in_english(raw):
    with translation.override("en"):
        assert number_parse(raw) is None


# --- Step 1: project -----------------------------------------------------------------------------


def test_project_answers_are_the_engines_json_shape():
    form = ProjectForm(data=PROJECT)

    assert form.is_valid(), form.errors
    assert form.answers() == TRAINING_PROJECT


@pytest.mark.parametrize(
    ("field", "path", "bad"),
    [
        ("batch_size", "training.batch_size", "0"),
        ("batch_size", "training.batch_size", "65537"),
        ("sequence_length", "training.sequence_length", "0"),
        ("lora_rank", "training.lora_rank", "5000"),
    ],
)
def test_project_ranges_come_from_limits_and_are_named(field, path, bad):
    with translation.override("en"):
        errors = _errors(ProjectForm(data=PROJECT | {field: bad}))

    assert errors == {field: [f"Enter a number from {_allowed(path)}."]}


def test_project_help_text_states_the_allowed_range():
    with translation.override("en"):
        form = ProjectForm()

    assert form.fields["batch_size"].help_text == "Allowed: 1 to 65,536."
    assert form.fields["parameters_billions"].help_text == "Allowed: 0.001 to 10,000."


def test_project_range_message_is_localised_in_french():
    with translation.override("fr"):
        errors = _errors(ProjectForm(data=PROJECT | {"batch_size": "70000"}))

    assert "65\u00a0536" in errors["batch_size"][0]


def test_whole_numbers_only_for_counts():
    with translation.override("en"):
        errors = _errors(ProjectForm(data=PROJECT | {"batch_size": "8.5"}))

    assert errors == {"batch_size": ["Enter a whole number."]}


def test_another_model_needs_its_size():
    with translation.override("en"):
        errors = _errors(ProjectForm(data=PROJECT | {"model": "custom"}))

    assert errors == {
        "parameters_billions": ["Give the size of your model: 0.001 to 10,000 billion parameters."]
    }


def test_another_model_by_its_size():
    form = ProjectForm(data=PROJECT | {"model": "custom", "parameters_billions": "13,5"})

    with translation.override("fr"):
        assert form.is_valid(), form.errors
    assert form.answers()["parameters_billions"] == 13.5
    assert "model" not in form.answers()


def test_parameter_count_out_of_range_is_named():
    with translation.override("en"):
        errors = _errors(
            ProjectForm(data=PROJECT | {"model": "custom", "parameters_billions": "20000"})
        )

    assert errors == {"parameters_billions": ["Enter a number from 0.001 to 10,000."]}


def test_unknown_model_is_refused():
    errors = _errors(ProjectForm(data=PROJECT | {"model": "gpt-17"}))

    assert set(errors) == {"model"}


def test_training_from_scratch_always_trains_every_weight():
    form = ProjectForm(data=PROJECT | {"goal": "pretraining", "method": "qlora"})

    assert form.is_valid(), form.errors
    assert form.answers()["training"]["method"] == "full"


def test_the_engines_cross_field_rule_lands_on_the_precision_field():
    with translation.override("en"):
        errors = _errors(ProjectForm(data=PROJECT | {"method": "full", "precision": "int4"}))

    assert set(errors) == {"precision"}
    assert errors["precision"][0].startswith("Full training needs fp32, bf16, fp16 or fp8 weights")


def test_serving_ignores_the_training_settings():
    form = ProjectForm(data=PROJECT | {"goal": "inference", "precision": "int4"})

    assert form.is_valid(), form.errors
    assert form.answers() == {"task": "inference", "precision": "int4", "model": "llama-3.1-8b"}


def test_goal_is_required():
    errors = _errors(ProjectForm(data={k: v for k, v in PROJECT.items() if k != "goal"}))

    assert set(errors) == {"goal"}


# --- Step 2: data ------------------------------------------------------------------------------


def test_data_fields_follow_the_goal():
    assert {"epochs", "training_tokens", "deadline_days"} <= set(
        DataForm(project=TRAINING_PROJECT).fields
    )
    assert "concurrent_users" not in DataForm(project=TRAINING_PROJECT).fields
    assert {"concurrent_users", "context_length"} <= set(DataForm(project=INFERENCE_PROJECT).fields)
    assert "epochs" not in DataForm(project=INFERENCE_PROJECT).fields


def test_training_data_becomes_the_whole_workload():
    form = DataForm(
        data={"kind": "text", "total_gb": "2", "epochs": "3", "deadline_days": "7"},
        project=TRAINING_PROJECT,
    )

    assert form.is_valid(), form.errors
    assert form.workload() == {
        "task": "fine_tuning",
        "precision": "bf16",
        "model": "llama-3.1-8b",
        "data": {"kind": "text", "total_gb": 2.0},
        "training": TRAINING_PROJECT["training"] | {"epochs": 3.0, "deadline_days": 7.0},
    }


def test_training_needs_a_data_size_or_tokens():
    with translation.override("en"):
        errors = _errors(DataForm(data={"kind": "text", "epochs": "1"}, project=TRAINING_PROJECT))

    assert list(errors) == ["items"]
    assert "total size in GB or the number of training tokens" in errors["items"][0]


@pytest.mark.parametrize(
    ("field", "path", "bad"),
    [
        ("items", "data.items", "0"),
        ("total_gb", "data.total_gb", "0.0001"),
        ("epochs", "training.epochs", "5000"),
        ("deadline_days", "training.deadline_days", "4000"),
    ],
)
def test_training_data_ranges_come_from_limits(field, path, bad):
    data = {"kind": "images", "items": "1000", "epochs": "1"} | {field: bad}

    with translation.override("en"):
        errors = _errors(DataForm(data=data, project=TRAINING_PROJECT))

    assert errors == {field: [f"Enter a number from {_allowed(path)}."]}


def test_inference_users_and_context_length():
    form = DataForm(
        data={"kind": "documents", "concurrent_users": "32", "context_length": "8192"},
        project=INFERENCE_PROJECT,
    )

    assert form.is_valid(), form.errors
    assert form.workload() == INFERENCE_PROJECT | {
        "data": {"kind": "documents"},
        "inference": {"concurrent_requests": 32, "sequence_length": 8192},
    }


def test_inference_users_range_is_named():
    with translation.override("en"):
        errors = _errors(
            DataForm(
                data={"kind": "text", "concurrent_users": "0", "context_length": "4096"},
                project=INFERENCE_PROJECT,
            )
        )

    assert errors == {"concurrent_users": ["Enter a number from 1 to 100,000."]}


def test_a_context_beyond_the_models_maximum_is_named_on_the_context_field():
    # Llama 2 7B: config.json max_position_embeddings 4,096.
    project = INFERENCE_PROJECT | {"model": "llama-2-7b"}
    data = {"kind": "text", "concurrent_users": "4", "context_length": "8192"}

    with translation.override("en"):
        errors = _errors(DataForm(data=data, project=project))
    with translation.override("fr"):
        french = _errors(DataForm(data=data, project=project))

    assert errors == {
        "context_length": [
            "Must be at most 4096 tokens: the longest context llama-2-7b takes "
            "(its context_length)."
        ]
    }
    assert french == {
        "context_length": [
            "Doit être d'au plus 4096 tokens\u00a0: le plus long contexte que llama-2-7b accepte "
            "(son context_length)."
        ]
    }
    assert DataForm(data=data | {"context_length": "4096"}, project=project).is_valid()


def test_the_context_field_states_the_models_maximum_and_starts_within_it():
    with translation.override("en"):
        bert = DataForm(project=INFERENCE_PROJECT | {"model": "bert-large"})
        llama = DataForm(project=INFERENCE_PROJECT)
        custom = DataForm(project={"task": "inference", "parameters_billions": 7})
    with translation.override("fr"):
        french = DataForm(project=INFERENCE_PROJECT).fields["context_length"].help_text

    assert bert.fields["context_length"].initial == 512
    assert bert.fields["context_length"].help_text.endswith("This model takes at most 512 tokens.")
    assert llama.fields["context_length"].initial == 4096
    assert llama.fields["context_length"].help_text.endswith(
        "This model takes at most 131,072 tokens."
    )
    assert "at most" not in custom.fields["context_length"].help_text
    assert french.endswith("Ce modèle accepte au plus 131\u00a0072\u00a0tokens.")


# --- Step 3: production or experiment ----------------------------------------------------------


def test_usage_is_valid():
    form = UsageForm(data={"environment": "production", "uptime": "always_on", "growth_gpus": "2"})

    assert form.is_valid(), form.errors
    assert form.cleaned_data["growth_gpus"] == 2


def test_growth_is_bounded_like_the_configurations_api():
    with translation.override("en"):
        errors = _errors(
            UsageForm(data={"environment": "production", "uptime": "flexible", "growth_gpus": "17"})
        )

    assert errors == {"growth_gpus": ["Enter a number from 0 to 16."]}


def test_round_the_clock_service_is_production():
    errors = _errors(
        UsageForm(data={"environment": "experiment", "uptime": "always_on", "growth_gpus": "0"})
    )

    assert list(errors) == ["environment"]


def test_environment_and_uptime_are_required():
    errors = _errors(UsageForm(data={"growth_gpus": "0"}))

    assert set(errors) == {"environment", "uptime"}


# --- Step 4: deployment and costs ----------------------------------------------------------------


@pytest.mark.django_db  # the form offers the catalog's service tiers
def test_deployment_overrides_only_what_was_given():
    form = DeploymentForm(data=DEPLOYMENT | {"electricity_price": "0,21", "pue": ""})

    with translation.override("fr"):
        assert form.is_valid(), form.errors
    assert form.overrides() == {"electricity_price_per_kwh": "0.21"}
    assert form.cleaned_data["budget"] is None


@pytest.mark.django_db  # the form offers the catalog's service tiers
@pytest.mark.parametrize(
    ("field", "bad", "message"),
    [
        ("pue", "0.9", "Enter a number from 1 to 3."),
        ("pue", "3.5", "Enter a number from 1 to 3."),
        ("electricity_price", "-1", "Enter a number of at least 0."),
        ("horizon_years", "8", "Enter a number from 1 to 7."),
        ("horizon_years", "0", "Enter a number from 1 to 7."),
        ("utilization_pct", "4", "Enter a number from 5 to 100."),
        ("utilization_pct", "101", "Enter a number from 5 to 100."),
        ("budget", "-5", "Enter a number from 0 to 999,999,999,999.99."),
    ],
)
def test_deployment_ranges_are_named(field, bad, message):
    with translation.override("en"):
        errors = _errors(DeploymentForm(data=DEPLOYMENT | {field: bad}))

    assert errors == {field: [message]}


@pytest.mark.django_db  # the form offers the catalog's service tiers
def test_region_and_currency_must_be_known():
    errors = _errors(DeploymentForm(data=DEPLOYMENT | {"region": "ZZ", "currency": "JPY"}))

    assert set(errors) == {"region", "currency"}


# --- Quote request -------------------------------------------------------------------------------


def test_quote_request_needs_consent():
    form = QuoteRequestForm(
        data={"name": "Ada", "company": "ACME", "email": "ada@example.com", "country": "FR"}
    )

    assert not form.is_valid()
    assert list(form.errors) == ["consent"]


def test_quote_request_country_is_an_iso_code():
    form = QuoteRequestForm(
        data={
            "name": "Ada",
            "company": "ACME",
            "email": "ada@example.com",
            "country": "France",
            "consent": "on",
        }
    )

    assert not form.is_valid()
    assert list(form.errors) == ["country"]
