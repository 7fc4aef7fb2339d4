"""The OpenAPI schema documents every endpoint and generates without a warning."""

from dataclasses import fields
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

from engine.workload import LIMITS, Data, Inference, Training, Workload
from engine.workload.registry import Architecture
from quotes.api.inputs import ConfigurationInput, SizingInput
from quotes.api.partners.quote_payloads import QuoteCreateInput
from quotes.api.partners.webhooks import WebhookCreateInput, WebhookUpdateInput
from quotes.api.tco_inputs import TcoInput


def test_schema_validates_without_warnings(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    text = target.read_text()
    for path in ("/api/v1/models/", "/api/v1/sizing/", "/api/v1/configurations/", "/api/v1/tco/"):
        assert path in text


@pytest.mark.django_db
def test_docs_are_served_by_the_app_itself(client):
    page = client.get("/api/v1/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower()


# The published contract: the schema as partners know it. Regenerate it after a deliberate change
# with `DEBUG=true .venv/bin/python manage.py spectacular --file docs/api/openapi.yaml`.
CONTRACT = Path(__file__).resolve().parent.parent / "docs" / "api" / "openapi.yaml"


def _annotated_ref(old, new) -> bool:
    """``new`` is ``old``'s bare reference with annotations beside it (a default, a
    description): OpenAPI 3.0 allows no sibling next to ``$ref``, so it wraps it in ``allOf``."""
    return (
        isinstance(old, dict)
        and isinstance(new, dict)
        and set(old) == {"$ref"}
        and "$ref" not in new
        and new.get("allOf") == [old]
    )


def _removed(old, new, at="") -> list[str]:
    """What ``old`` has that ``new`` lacks or changed; additions in ``new`` are allowed."""
    if _annotated_ref(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            problem
            for key, value in old.items()
            for problem in (
                _removed(value, new[key], f"{at}/{key}") if key in new else [f"{at}/{key} removed"]
            )
        ]
    if old != new:
        return [f"{at} changed: {old!r} -> {new!r}"]
    return []


def test_the_published_contract_only_grows(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(target))
    current = yaml.safe_load(target.read_text())
    published = yaml.safe_load(CONTRACT.read_text())
    assert _removed(published, current) == []


def test_the_contract_check_sees_a_removed_field():
    old = {"paths": {"/a/": {"get": {"parameters": [1]}}}, "info": {"version": "1"}}
    assert _removed(old, old | {"extra": 1}) == []
    assert _removed(old, {"paths": {"/a/": {}}, "info": {"version": "2"}}) == [
        "/paths//a//get removed",
        "/info/version changed: '1' -> '2'",
    ]


def test_the_contract_check_allows_a_default_beside_a_reference_and_nothing_else():
    ref = {"$ref": "#/components/schemas/RegionEnum"}
    other = {"$ref": "#/components/schemas/CurrencyEnum"}
    assert _removed({"p": ref}, {"p": {"allOf": [ref], "default": "FR"}}) == []
    assert _removed({"p": ref}, {"p": {"allOf": [other], "default": "EUR"}}) == ["/p/$ref removed"]
    assert _removed({"p": ref}, {"p": {"allOf": [ref, other]}}) == ["/p/$ref removed"]


# Each operation taking a body, and the serializer its view validates the body with.
VALIDATED_BY = {
    "sizing_create": SizingInput,
    "configurations_create": ConfigurationInput,
    "tco_create": TcoInput,
    "quotes_create": QuoteCreateInput,
    "webhooks_create": WebhookCreateInput,
    "webhooks_partial_update": WebhookUpdateInput,
}


def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _component(schema: dict, reference: dict) -> dict:
    return schema["components"]["schemas"][reference["$ref"].rsplit("/", 1)[-1]]


def test_every_request_is_documented_by_the_serializer_that_validates_it():
    schema = _schema()
    bodies = {
        operation["operationId"]: operation["requestBody"]["content"]
        for operations in schema["paths"].values()
        for operation in operations.values()
        if "requestBody" in operation
    }
    assert set(bodies) == set(VALIDATED_BY)
    for operation_id, serializer in VALIDATED_BY.items():
        references = {media["schema"]["$ref"] for media in bodies[operation_id].values()}
        assert len(references) == 1, operation_id
        documented = _component(schema, {"$ref": references.pop()})["properties"]
        assert set(documented) == set(serializer().fields), operation_id


def _workload_components(schema: dict) -> dict[str, dict]:
    workload = schema["components"]["schemas"]["WorkloadSchemaRequest"]
    parts = {
        name: _component(schema, workload["properties"][name])
        for name in ("architecture", "training", "inference", "data")
    }
    return {"": workload} | parts


def test_the_workload_is_documented_field_for_field_as_the_engine_reads_it():
    documented = _workload_components(_schema())
    read = {"": Workload, "architecture": Architecture, "training": Training}
    read |= {"inference": Inference, "data": Data}
    for part, dataclass in read.items():
        assert set(documented[part]["properties"]) == {f.name for f in fields(dataclass)}, part


def test_the_workload_ranges_documented_are_the_engines():
    documented = _workload_components(_schema())
    for path, (low, high) in LIMITS.items():
        part, _, name = path.rpartition(".")
        field = documented[part]["properties"][name]
        assert (field["minimum"], field["maximum"]) == (low, high), path


def test_every_operation_taking_a_workload_documents_it_with_the_one_schema():
    schema = _schema()
    components = schema["components"]["schemas"]
    for component in ("ConfigurationRequestSchemaRequest", "TcoRequestSchemaRequest"):
        workload = components[component]["properties"]["workload"]
        assert workload.get("allOf", [workload])[0]["$ref"].endswith("/WorkloadSchemaRequest")
    quote = components["QuoteCreateSchemaRequest"]["properties"]["workload"]
    assert quote["$ref"].endswith("/WorkloadSchemaRequest")
    sizing = set(components["SizingRequestSchemaRequest"]["properties"])
    assert sizing == set(components["WorkloadSchemaRequest"]["properties"]) | {
        "gpu",
        "gpus",
        "gpu_memory_gb",
    }
