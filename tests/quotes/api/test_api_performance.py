"""What each option delivers, over the API: the figures are the engine's
(engine.performance)."""

import json

import pytest
from django.urls import reverse

from catalog.selectors import catalog_snapshot_get
from engine.advice.pipeline import advise
from engine.build.builder import Environment
from engine.performance.options import option_performance
from engine.workload import workload_from_dict
from quotes.advice.presenters import performance_to_dict

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

CHATBOT_8B = {
    "task": "inference",
    "model": "llama-3.1-8b",
    "inference": {"concurrent_requests": 50, "sequence_length": 4096},
}
PRETRAIN_1B = {
    "task": "pretraining",
    "parameters_billions": 1.0,
    "training": {"training_tokens": 20_000_000_000, "deadline_days": 14},
}


def _engine(workload_json, environment="production"):
    """The engine's options for the workload and the catalog's GPUs."""
    workload = workload_from_dict(workload_json)
    catalog = catalog_snapshot_get(currency="EUR")
    options = advise(workload, catalog, environment=Environment(environment)).build.options
    return workload, options, catalog.gpus


def _configurations(client, workload_json, environment="production"):
    response = client.post(
        reverse("api:configurations"),
        {"workload": workload_json, "environment": environment},
        content_type="application/json",
    )
    assert response.status_code == 200
    return response.json()


def test_each_option_states_the_decode_speed_the_engine_computes(client):
    body = _configurations(client, CHATBOT_8B)
    workload, options, gpus = _engine(CHATBOT_8B)

    assert [o["tier"] for o in body["options"]] == [str(o.tier) for o in options]
    for got, option in zip(body["options"], options, strict=True):
        expected = option_performance(workload, option, gpus)
        assert expected is not None
        assert expected.serving is not None
        serving = got["performance"]["serving"]
        assert serving["tokens_per_second_per_user"] == round(
            expected.serving.tokens_per_second_per_user, 1
        )
        assert serving["time_to_first_token_s"] == round(expected.serving.time_to_first_token_s, 3)
        assert serving["users"] == 50
        assert serving["replicas"] * serving["gpus_per_replica"] <= got["totals"]["gpus"]
        assert serving["speed"] in {"good", "fair", "poor"}
        assert got["performance"]["software"]["platform"] in {"CUDA", "ROCm"}
        # The whole object is the presenter's rendering of the engine's answer.
        assert got["performance"] == json.loads(json.dumps(performance_to_dict(expected)))


def test_training_time_is_judged_against_the_deadline(client):
    body = _configurations(client, PRETRAIN_1B)
    workload, options, gpus = _engine(PRETRAIN_1B)

    assert body["options"]
    for got, option in zip(body["options"], options, strict=True):
        expected = option_performance(workload, option, gpus)
        assert expected is not None
        assert expected.training is not None
        training = got["performance"]["training"]
        assert training["hours"] == round(expected.training.hours, 1)
        assert training["deadline_days"] == 14
        assert training["meets_deadline"] is (expected.training.hours <= 14 * 24)
        assert got["performance"]["serving"] is None
        assert got["performance"]["lines"][0].startswith("Training takes ~")


def test_the_tco_endpoints_configuration_carries_its_performance(client):
    options = _configurations(client, CHATBOT_8B)["options"]
    response = client.post(
        reverse("api:tco"),
        {"workload": CHATBOT_8B, "environment": "production"},
        content_type="application/json",
    )

    assert response.status_code == 200
    configuration = response.json()["configuration"]
    same_tier = next(o for o in options if o["tier"] == configuration["tier"])
    assert configuration["performance"] == same_tier["performance"]


def test_each_option_states_its_speed_with_one_server_down_and_its_single_points(client):
    response = client.post(
        reverse("api:configurations"),
        {"workload": CHATBOT_8B, "environment": "production", "uptime": "always_on"},
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    workload, _, gpus = _engine(CHATBOT_8B)
    spared = advise(
        workload,
        catalog_snapshot_get(currency="EUR"),
        environment=Environment.PRODUCTION,
        always_on=True,
    ).build.options

    assert [o["servers"] for o in body["options"]] == [o.servers for o in spared]
    for got, option in zip(body["options"], spared, strict=True):
        expected = option_performance(workload, option, gpus)
        assert expected is not None
        down = expected.one_server_down
        assert down is not None  # N+1: every option has at least two servers
        assert got["performance"]["serving"]["one_server_down"] == {
            "servers": option.servers - 1,
            "replicas": down.replicas,
            "tokens_per_second_per_user": round(down.tokens_per_second_per_user, 1),
            "tokens_per_second": round(down.tokens_per_second, 1),
        }
        # Whole copies on servers that share no switch nor storage: nothing stops them all
        assert got["single_points_of_failure"] == []


def test_a_single_server_is_named_as_the_single_point_of_failure(client):
    body = _configurations(client, CHATBOT_8B, environment="experiment")

    one_server = [o for o in body["options"] if o["servers"] == 1]
    assert one_server
    for got in one_server:
        assert got["performance"]["serving"]["one_server_down"] is None
        assert got["single_points_of_failure"] == [
            {
                "role": "server",
                "name": next(p["name"] for p in got["parts"] if p["kind"] == "chassis"),
                "label": "the one GPU server: no spare takes over when it fails",
            }
        ]


def test_an_encoder_states_its_embeddings_per_second_and_the_time_to_index(client):
    bert = {
        "task": "inference",
        "model": "bert-large",
        "inference": {"concurrent_requests": 64, "sequence_length": 512},
        "data": {"kind": "text", "items": 10_000_000},
    }
    body = _configurations(client, bert)
    workload, options, gpus = _engine(bert)

    assert body["options"]
    for got, option in zip(body["options"], options, strict=True):
        expected = option_performance(workload, option, gpus)
        assert expected is not None
        assert expected.encoder is not None
        encoder = got["performance"]["encoder"]
        assert encoder["embeddings_per_second"] == round(expected.encoder.embeddings_per_second, 1)
        assert encoder["sequence_length"] == 512
        assert expected.encoder.index_hours is not None
        assert encoder["index_hours"] == round(expected.encoder.index_hours, 2)
        assert got["performance"]["lines"][1].startswith("Indexing the 10000000 items takes ~")
