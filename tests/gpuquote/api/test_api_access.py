"""Who may call what, for every API operation in the schema: anonymous, a revoked key, the
partner that owns the resource, another partner, a staff account without a sales role. One
matrix, so a new endpoint without a decision shows up here (the test fails for an operation it
does not know)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
import yaml
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from quotes.models import ApiKey, Webhook
from quotes.partners.keys import api_key_revoke
from tests.api_fixtures import auth, partner_key

# Webhook URLs are resolved when registered: *.example names resolve without the network.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("example_dns")]

WORKLOAD = {"task": "inference", "model": "llama-3.1-8b"}
QUOTE_BODY = {
    "customer": {
        "company": "Acme",
        "contact_name": "Ada",
        "email": "a@example.com",
        "country": "FR",
    },
    "workload": WORKLOAD,
    "environment": "production",
}
BODIES = {
    "/api/v1/sizing/": WORKLOAD,
    "/api/v1/configurations/": {"workload": WORKLOAD, "environment": "production"},
    "/api/v1/tco/": {"workload": WORKLOAD, "environment": "production"},
    "/api/v1/quotes/": QUOTE_BODY,
    "/api/v1/webhooks/": {"url": "https://partner.example/hooks"},
}
PUBLIC = {
    "/api/v1/models/",
    "/api/v1/sizing/",
    "/api/v1/configurations/",
    "/api/v1/tco/",
    "/api/v1/service-tiers/",
}
SCHEMA_PATHS = {"/api/v1/schema/"}


def _operations() -> list[tuple[str, str]]:
    out = StringIO()
    call_command("spectacular", stdout=out)
    paths = yaml.safe_load(out.getvalue())["paths"]
    return sorted(
        (path, method.upper())
        for path, methods in paths.items()
        for method in methods
        if path not in SCHEMA_PATHS
    )


OPERATIONS = _operations()


@pytest.fixture
def world(seed_catalog):
    owner, owner_key = partner_key("Owner")
    _other, other_key = partner_key("Other")
    _partner, revoked_key = partner_key("Revoked")
    api_key_revoke(key=ApiKey.objects.get(prefix=revoked_key.split("_")[1]))
    hook = Webhook.objects.create(partner=owner, url="https://owner.example/hooks")
    return {"owner": owner_key, "other": other_key, "revoked": revoked_key, "hook": hook}


@pytest.fixture
def roleless_client(django_user_model):
    """Signed in with ``is_staff`` but in no sales group: staff status alone grants nothing."""
    user = django_user_model.objects.create_user(username="roleless", is_staff=True)
    client = Client()
    client.force_login(user)
    return client


def _call(client, path: str, method: str, world: dict, key: str | None, quote_id: int):
    url = path.replace("{id}", str(quote_id)).replace("{webhook_id}", str(world["hook"].pk))
    url = url.replace("{sku}", "NVIDIA-H100-SXM5-80GB")
    headers = auth(key) if key else {}
    body = BODIES.get(path, {"is_active": True} if method == "PATCH" else {})
    return client.generic(
        method, url, data=json.dumps(body) if method in ("POST", "PATCH") else "",
        content_type="application/json", headers=headers,
    )  # fmt: skip


def _owner_quote(client, world) -> int:
    response = client.post(
        reverse("api:quote-list"), QUOTE_BODY, content_type="application/json",
        headers=auth(world["owner"]),
    )  # fmt: skip
    assert response.status_code == 201
    return response.json()["id"]


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_access_matrix(client, roleless_client, world, path, method):
    quote_id = _owner_quote(client, world)
    owned = "{id}" in path or "{webhook_id}" in path
    public = path in PUBLIC

    anonymous = _call(client, path, method, world, None, quote_id)
    revoked = _call(client, path, method, world, world["revoked"], quote_id)
    other = _call(client, path, method, world, world["other"], quote_id)
    roleless = _call(roleless_client, path, method, world, None, quote_id)
    owner = _call(client, path, method, world, world["owner"], quote_id)

    assert anonymous.status_code == (200 if public else 401), anonymous.content[:300]
    assert revoked.status_code == 401
    assert roleless.status_code == (200 if public else 403), roleless.content[:300]
    assert owner.status_code in (200, 201, 202, 204), owner.content[:300]
    if owned:
        assert other.status_code == 404, other.content[:300]
    else:
        assert other.status_code in (200, 201, 202), other.content[:300]


def test_the_matrix_covers_every_partner_operation():
    paths = {path for path, _method in OPERATIONS}
    assert {"/api/v1/quotes/", "/api/v1/quotes/{id}/pdf/", "/api/v1/webhooks/"} <= paths
    assert {"/api/v1/catalog/prices/", "/api/v1/webhooks/{webhook_id}/deliveries/"} <= paths
