"""The OpenAPI schema documents every endpoint and generates without a warning."""

import pytest
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
