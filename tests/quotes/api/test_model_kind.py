"""POST /api/v1/sizing/ with ``model_kind``: a custom size is sized as the kind of model it is."""

import pytest
from django.urls import reverse

from engine.sizing import GpuProfile, size
from engine.workload import workload_from_dict
from tests.factories import gpu_make

pytestmark = pytest.mark.django_db

SIZING = reverse("api:sizing")
EMBEDDER = {"task": "inference", "parameters_billions": 0.335, "model_kind": "encoder"}


def _post(client, payload):
    return client.post(SIZING, payload, content_type="application/json")


def test_a_custom_embedder_has_no_kv_cache_over_the_api(client):
    decoder = _post(client, EMBEDDER | {"model_kind": "decoder"}).json()
    response = _post(client, EMBEDDER)

    assert response.status_code == 200
    body = response.json()
    assert body["memory_gb"]["kv_cache"] == 0
    assert decoder["memory_gb"]["kv_cache"] > 0
    expected = size(workload_from_dict(EMBEDDER))
    assert body["memory_gb"]["total"] == round(expected.memory_gb.total, 2)
    (model,) = [e for e in body["explanations"] if e["key"] == "model"]
    assert "encoder" in model["text"]


def test_without_model_kind_a_custom_size_is_a_decoder(client):
    payload = {"task": "inference", "parameters_billions": 0.335}
    body = _post(client, payload).json()
    assert body == _post(client, payload | {"model_kind": "decoder"}).json()
    assert body["memory_gb"]["kv_cache"] > 0


def test_a_custom_diffusion_model_answers_images_per_second_on_a_gpu(client):
    gpu_make(sku="H100-KIND", memory_gb=80)
    payload = {"task": "inference", "parameters_billions": 2, "model_kind": "diffusion"}

    body = _post(client, payload | {"gpu": "H100-KIND"}).json()

    profile = GpuProfile("H100", 80, 3350, 989.4, 1978.9)
    expected = size(workload_from_dict(payload), gpu=profile)
    assert expected.images_per_second is not None
    assert body["images_per_second"] == round(expected.images_per_second, 3)
    assert body["images_per_second"] > 0
    assert body["tokens_per_second"] is None
    assert _post(client, payload).json()["images_per_second"] is None  # no GPU given


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (EMBEDDER | {"model_kind": "gan"}, "decoder, encoder, diffusion, vision"),
        ({"task": "inference", "model": "bert-large", "model_kind": "decoder"}, "encoder"),
    ],
)
def test_a_bad_model_kind_is_a_400_on_the_field(client, payload, fragment):
    response = _post(client, payload)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == ["model_kind"]
    assert fragment in " ".join(errors["model_kind"])


def test_the_schema_documents_model_kind_and_images_per_second(client):
    schema = client.get(reverse("api:schema") + "?format=json").json()
    components = schema["components"]["schemas"]
    kind = components["WorkloadSchemaRequest"]["properties"]["model_kind"]
    (reference,) = kind["allOf"]
    enum = components[reference["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert enum == ["decoder", "encoder", "diffusion", "vision"]
    assert "model_kind" not in components["WorkloadSchemaRequest"].get("required", [])
    assert "images_per_second" in components["SizingResponseSchema"]["properties"]
