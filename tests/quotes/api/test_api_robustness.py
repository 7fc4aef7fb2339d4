"""Whatever a caller sends to the calculators, the answer is a 200 or a 400, never a 500."""

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["inference", "fine_tuning", "pretraining", "bf16", "int4", "zero3", "lora"]),
    st.sampled_from(["llama-3.1-70b", "mixtral-8x7b", "resnet-50", "stable-diffusion-xl"]),
)
TRAINING = st.dictionaries(
    st.sampled_from(
        [
            "method",
            "lora_rank",
            "optimizer",
            "batch_size",
            "sequence_length",
            "gradient_checkpointing",
            "sharding",
            "gpus",
            "training_tokens",
            "epochs",
            "deadline_days",
        ]
    ),
    SCALARS,
    max_size=6,
)
ARCHITECTURE = st.dictionaries(
    st.sampled_from(
        ["layers", "hidden_size", "attention_heads", "kv_heads", "experts", "experts_per_token"]
    ),
    SCALARS,
    max_size=4,
)
WORKLOAD = st.fixed_dictionaries(
    {"task": st.sampled_from(["inference", "fine_tuning", "pretraining"])},
    optional={
        "model": SCALARS,
        "parameters_billions": SCALARS,
        "precision": SCALARS,
        "architecture": st.one_of(ARCHITECTURE, SCALARS),
        "training": st.one_of(TRAINING, SCALARS),
        "inference": st.dictionaries(
            st.sampled_from(["concurrent_requests", "sequence_length", "kv_cache_precision"]),
            SCALARS,
            max_size=3,
        ),
        "data": st.dictionaries(st.sampled_from(["kind", "items", "total_gb"]), SCALARS),
    },
)
FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _status(path, body) -> int:
    return (
        Client(HTTP_HOST="localhost").post(path, body, content_type="application/json").status_code
    )


@pytest.mark.django_db
@FAST
@given(workload=WORKLOAD, gpu_memory=SCALARS)
def test_sizing_never_fails(workload, gpu_memory):
    assert _status("/api/v1/sizing/", workload | {"gpu_memory_gb": gpu_memory}) in {200, 400}


@pytest.mark.django_db
@FAST
@given(workload=WORKLOAD, environment=SCALARS, budget=SCALARS)
def test_configurations_never_fail(workload, environment, budget):
    body = {"workload": workload, "environment": environment, "budget": budget}
    assert _status("/api/v1/configurations/", body) in {200, 400}


@pytest.mark.django_db
@FAST
@given(
    configuration=st.dictionaries(
        st.sampled_from(
            [
                "servers",
                "gpus_per_server",
                "gpu_model",
                "power_w",
                "price",
                "currency",
                "rack_units",
            ]
        ),
        SCALARS,
    ),
    horizon=SCALARS,
    pue=SCALARS,
)
def test_tco_never_fails(configuration, horizon, pue):
    body = {"configuration": configuration, "horizon_years": horizon, "pue": pue}
    assert _status("/api/v1/tco/", body) in {200, 400}
