"""POST /api/v1/configurations/ on the seed catalog, and the TCO of what it returns."""

import pytest
from django.urls import reverse

from catalog.selectors import catalog_snapshot_get
from engine.advice.pipeline import advise
from engine.build.builder import Environment
from engine.workload import workload_from_dict
from quotes.advice.calculators import gpu_preference
from quotes.advice.inputs import GPU_COUNT_MAX

pytestmark = pytest.mark.django_db

CONFIGURATIONS = reverse("api:configurations")
SERVE_70B = {
    "task": "inference",
    "model": "llama-3.1-70b",
    "precision": "bf16",
    "inference": {"concurrent_requests": 16, "sequence_length": 8192},
}
L40S = "NVIDIA-L40S-48GB"
PRETRAIN_8B = {
    "task": "pretraining",
    "model": "llama-3.1-8b",
    "training": {
        "training_tokens": 100_000_000_000,
        "deadline_days": 30,
        "sharding": "zero3",
        "gradient_checkpointing": True,
    },
}


def _post(client, payload):
    return client.post(CONFIGURATIONS, payload, content_type="application/json")


@pytest.mark.usefixtures("seed_catalog")
@pytest.mark.parametrize("environment", ["production", "experiment"])
def test_options_match_the_engine_and_every_check_passes(client, environment):
    response = _post(client, {"workload": SERVE_70B, "environment": environment})

    assert response.status_code == 200
    body = response.json()
    expected = advise(
        workload_from_dict(SERVE_70B),
        catalog_snapshot_get(currency="EUR"),
        environment=Environment(environment),
    ).build
    assert [o["tier"] for o in body["options"]] == [str(o.tier) for o in expected.options]
    assert body["options"][0]["tier"] == "budget"
    for got, want in zip(body["options"], expected.options, strict=True):
        assert got["totals"]["price"] == str(want.totals.price.rounded().amount)
        assert got["totals"]["currency"] == "EUR"
        assert {"kind", "sku", "name", "quantity", "unit_price"} <= set(got["parts"][0])
        assert all(check["passed"] for check in got["checks"])
        assert {c["rule"] for c in got["checks"]} >= {"gpu_memory", "system_ram", "power"}
    assert body["unmet"] == []


@pytest.mark.usefixtures("seed_catalog")
def test_production_gets_datacenter_gpus_in_rack_servers(client):
    body = _post(client, {"workload": SERVE_70B, "environment": "production"}).json()
    for option in body["options"]:
        checks = {c["rule"]: c for c in option["checks"]}
        assert checks["production_gpu"]["passed"]
        assert checks["rack_chassis"]["passed"]
        gpus = [p for p in option["parts"] if p["kind"] == "gpu"]
        assert all("4090" not in p["name"] and "5090" not in p["name"] for p in gpus)
        ram, vram = option["totals"]["ram_gb"], option["totals"]["vram_gb"]
        assert ram >= 2 * vram  # the seed rule: system RAM at least twice the VRAM


@pytest.mark.usefixtures("seed_catalog")
def test_budget_below_the_cheapest_says_by_how_much(client):
    body = _post(
        client, {"workload": PRETRAIN_8B, "environment": "production", "budget": "1000"}
    ).json()
    assert body["options"] == []
    assert len(body["unmet"]) == 1
    assert "budget of 1000" in body["unmet"][0]


@pytest.mark.usefixtures("seed_catalog")
def test_usd_prices_come_from_usd_price_rows(client):
    body = _post(
        client, {"workload": SERVE_70B, "environment": "production", "currency": "USD"}
    ).json()
    assert body["options"]
    assert all(o["totals"]["currency"] == "USD" for o in body["options"])


@pytest.mark.usefixtures("seed_catalog")
def test_an_option_feeds_the_tco_endpoint_unchanged(client):
    option = _post(client, {"workload": SERVE_70B, "environment": "production"}).json()["options"][
        0
    ]
    response = client.post(
        reverse("api:tco"), {"configuration": option}, content_type="application/json"
    )
    assert response.status_code == 200
    body = response.json()
    price = body["options"]["on_premises"]["by_category"]["capital"]
    assert price == option["totals"]["price"]


@pytest.mark.usefixtures("seed_catalog")
def test_tco_from_a_workload_builds_first_and_returns_the_configuration(client):
    response = client.post(
        reverse("api:tco"),
        {"workload": SERVE_70B, "environment": "production", "horizon_years": 5},
        content_type="application/json",
    )
    assert response.status_code == 200
    body = response.json()
    recommended = client.post(
        reverse("api:configurations"),
        {"workload": SERVE_70B, "environment": "production"},
        content_type="application/json",
    ).json()["recommendation"]
    # the TCO is of the option the configurations answer recommends
    assert body["configuration"]["tier"] == recommended["tier"]
    assert len(body["options"]["on_premises"]["monthly_cumulative"]) == 60


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"workload": SERVE_70B}, "environment"),
        ({"workload": SERVE_70B, "environment": "lab"}, "environment"),
        ({"workload": SERVE_70B, "environment": "production", "budget": "-5"}, "budget"),
        ({"workload": SERVE_70B, "environment": "production", "currency": "GBP"}, "currency"),
        ({"workload": {"task": "inference"}, "environment": "production"}, "workload.model"),
        ({"workload": [], "environment": "production"}, "workload"),
        ({"workload": SERVE_70B, "environment": "production", "min_gpus": 0}, "min_gpus"),
        (
            {"workload": SERVE_70B, "environment": "production", "min_gpus": GPU_COUNT_MAX + 1},
            "min_gpus",
        ),
    ],
)
def test_bad_requests_name_the_field(client, payload, field):
    response = _post(client, payload)
    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()


@pytest.mark.usefixtures("seed_catalog")
def test_a_preferred_gpu_and_count_build_as_the_result_pages_repricing_does(client):
    response = _post(
        client,
        {"workload": SERVE_70B, "environment": "production", "gpu": L40S, "min_gpus": 12},
    )

    assert response.status_code == 200
    body = response.json()
    # The wizard's re-pricing path: the same preference, the same engine call.
    expected = advise(
        workload_from_dict(SERVE_70B),
        catalog_snapshot_get(currency="EUR"),
        environment=Environment.PRODUCTION,
        preference=gpu_preference(gpu_sku=L40S, min_gpus=12),
    ).build
    assert expected.options
    assert [o["totals"]["price"] for o in body["options"]] == [
        str(o.totals.price.rounded().amount) for o in expected.options
    ]
    for option in body["options"]:
        gpus = [p for p in option["parts"] if p["kind"] == "gpu"]
        assert [p["sku"] for p in gpus] == [L40S]
        assert option["totals"]["gpus"] >= 12
        # Copies of 4 L40S (tensor parallel 4), each inside its server.
        assert gpus[0]["quantity"] % 4 == 0


@pytest.mark.usefixtures("seed_catalog")
def test_an_unknown_gpu_is_a_400_naming_gpu(client):
    response = _post(
        client, {"workload": SERVE_70B, "environment": "production", "gpu": "NO-SUCH-GPU"}
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"gpu": ["Unknown GPU SKU NO-SUCH-GPU: see the catalog."]}


def test_a_context_beyond_the_models_maximum_is_named_on_the_workload_field(client):
    workload = SERVE_70B | {"model": "llama-2-70b", "inference": {"sequence_length": 8192}}

    response = _post(client, {"workload": workload, "environment": "production"})

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "workload.inference.sequence_length": [
            "must be at most 4096 tokens: the longest context llama-2-70b takes (its "
            "context_length)"
        ]
    }


def test_a_bad_envelope_and_a_bad_workload_are_named_in_one_answer(client):
    # The workload is a field of the request like the others: all its errors come at once.
    payload = {"workload": {"task": "inference", "training": {"gpus": 0}}, "environment": "lab"}

    response = _post(client, payload)

    assert response.status_code == 400
    assert list(response.json()["errors"]) == [
        "workload.model",
        "workload.training.gpus",
        "environment",
    ], response.json()


@pytest.mark.usefixtures("seed_catalog")
def test_each_part_price_is_dated_and_old_prices_are_flagged_stale(client, settings):
    fresh = _post(client, {"workload": SERVE_70B, "environment": "production"}).json()
    part = fresh["options"][0]["parts"][0]
    assert part["price_date"] == "2026-10-15"  # the seed catalog's price date
    assert part["stale"] is False

    settings.PRICE_STALE_DAYS = 10
    stale = _post(client, {"workload": SERVE_70B, "environment": "production"}).json()
    assert all(p["stale"] for p in stale["options"][0]["parts"])
    assert stale["options"][0]["stale_prices"] is True
