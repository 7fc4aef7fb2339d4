"""The service tier over the API: POST /api/v1/tco/ prices the tier it names as the
managed option's support line, and every configuration says what to watch on its servers."""

from decimal import Decimal

import pytest
from django.urls import reverse

from catalog.selectors.service_tiers import service_tier_get

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

TCO = reverse("api:tco")
CONFIGURATIONS = reverse("api:configurations")
WORKLOAD = {"task": "inference", "model": "llama-3.1-8b"}


def _post(client, url, payload, **headers):
    return client.post(url, payload, content_type="application/json", **headers)


def test_the_tco_prices_the_tier_it_names_as_the_managed_support_line(client):
    plain = _post(client, TCO, {"workload": WORKLOAD, "region": "FR"}).json()
    chosen = _post(client, TCO, {"workload": WORKLOAD, "region": "FR", "service_tier": "24x7"})

    assert chosen.status_code == 200
    body = chosen.json()
    always = service_tier_get(code="24x7", currency="EUR")
    assert always is not None
    assert body["service_tier"]["code"] == "24x7"
    assert body["service_tier"]["monthly"] == str(always.monthly.amount)
    assert "a first answer within 30 min" in body["service_tier"]["included_operations"][0]
    servers = body["configuration"]["servers"]
    support = Decimal(body["options"]["managed"]["by_category"]["support"])
    assert support == always.monthly.amount * servers * body["horizon_months"]
    added = Decimal(body["options"]["managed"]["total"]) - Decimal(
        plain["options"]["managed"]["total"]
    )
    assert added == support
    assert body["options"]["on_premises"] == plain["options"]["on_premises"]
    # Without a tier: the catalog's default, included in the fee (no support line)
    assert plain["service_tier"]["code"] == "standard"
    assert "support" not in plain["options"]["managed"]["by_category"]


def test_the_tier_is_named_in_the_answers_language(client):
    body = _post(
        client, TCO, {"workload": WORKLOAD, "service_tier": "24x7"}, HTTP_ACCEPT_LANGUAGE="fr"
    ).json()

    assert body["service_tier"]["name"] == "24 h/24, 7 j/7"
    assert body["service_tier"]["included_operations"][-1] == (
        "Les disques système sauvegardés chaque jour"
    )


def test_an_unknown_tier_is_a_400_naming_the_field(client):
    response = _post(client, TCO, {"workload": WORKLOAD, "service_tier": "platinum"})

    assert response.status_code == 400
    assert "service_tier" in response.json()["errors"]


def test_each_configuration_says_what_to_watch_and_when_to_alert(client):
    body = _post(client, CONFIGURATIONS, {"workload": WORKLOAD, "environment": "production"})
    body = body.json()

    for option in body["options"]:
        plan = option["performance"]["monitoring"]
        gpu = next(part for part in option["parts"] if part["kind"] == "gpu")
        assert plan["vendor"] in gpu["name"] or plan["vendor"] == "NVIDIA"
        keys = {watch["key"] for watch in plan["watches"]}
        assert {"gpu_temperature", "memory_used", "power"} <= keys
        assert all(watch["sources"] for watch in plan["watches"])
        assert plan["host_watches"]  # what the host would watch in managed hosting
        memory = next(watch for watch in plan["watches"] if watch["key"] == "memory_used")
        assert memory["unit"] == "GB"


def test_the_availability_of_a_24_7_service_uses_the_tiers_repair_time(client):
    always_on = {"workload": WORKLOAD, "region": "FR", "environment": "production"}
    always_on["uptime"] = "always_on"
    default = _post(client, TCO, always_on).json()
    fast = _post(client, TCO, {**always_on, "service_tier": "24x7"}).json()

    def availability(body):
        checks = body["configuration"]["checks"]
        return next(check["detail"] for check in checks if check["rule"] == "availability")

    # 1 server + 1 spare: the default tier replaces in 72 h, 1 - (1.4 x 72 / 8,760)^2 =
    # 99.986 %; the 24x7 tier in 4 h, 1 - (1.4 x 4 / 8,760)^2 = 99.99996 %, quoted 99.999 %
    assert default["configuration"]["servers"] == 2
    assert "expected availability 99.986 %" in availability(default)
    assert "a failed server back within 72 h" in availability(default)
    assert "expected availability 99.999 % (one server alone: 99.936 %" in availability(fast)
    assert "a failed server back within 4 h" in availability(fast)
