"""The OpenAPI schema documents every endpoint and generates without a warning."""

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command


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


def _removed(old, new, at="") -> list[str]:
    """What ``old`` has that ``new`` lacks or changed; additions in ``new`` are allowed."""
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
