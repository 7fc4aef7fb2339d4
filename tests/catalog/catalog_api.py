"""The partner catalog API's paths and the calls its tests make with a partner's key.

``assert_problem`` checks the problem-details shape of an error answer (its asserts are
rewritten by pytest: see tests/catalog/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.api_fixtures import auth

GPUS = "/api/v1/catalog/gpus/"
H100 = "NVIDIA-H100-SXM5-80GB"
GPU_DETAIL = f"{GPUS}{H100}/"
CPUS = "/api/v1/catalog/cpus/"
CHASSIS = "/api/v1/catalog/chassis/"
PRICES = "/api/v1/catalog/prices/"
ENDPOINTS = [GPUS, GPU_DETAIL, CPUS, CHASSIS, PRICES]
SEED_FILE = Path(__file__).resolve().parents[2] / "catalog" / "data" / "catalog.json"
# The price rows load_catalog writes (every part's observed prices).
SEED_PRICES = sum(
    len(part["prices"]) for part in json.loads(SEED_FILE.read_text(encoding="utf-8"))["parts"]
)
# The most rows one page carries (page_size is capped there).
PAGE_MAX = 200


def api_get(client, url: str, raw: str, **headers: str):
    return client.get(url, headers=auth(raw) | headers)


def skus_of(response) -> list[str]:
    return [row["sku"] for row in response.json()["results"]]


def all_rows(client, url: str, raw: str) -> tuple[int, list[dict]]:
    """The list's ``count`` and every row, following ``next`` page by page."""
    body = api_get(client, url, raw).json()
    count, rows = body["count"], list(body["results"])
    while body["next"]:
        body = api_get(client, body["next"], raw).json()
        rows += body["results"]
    return count, rows


def assert_problem(response, status: int, slug: str) -> dict:
    body = response.json()
    assert response.status_code == status
    assert body["type"] == f"https://gpuquote.example/problems/{slug}"
    assert body["status"] == status
    assert body["message"] == body["detail"]
    return body
