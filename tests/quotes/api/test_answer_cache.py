"""The calculators' answer cache: a cached answer is byte for byte the one the
computation gives, a hit computes nothing, and any change of the data an answer comes from (a
feed's price, an admin edit, a cloud price, a staff assumption) makes the next request compute
again."""

from __future__ import annotations

import random
from decimal import Decimal
from unittest import mock

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from catalog.models import CloudPrice, Gpu, Price
from catalog.selectors import versions, versions_forget
from engine.workload.registry import all_models
from quotes.advice import calculators
from quotes.advice.services import region_assumptions_seed
from quotes.api import answer_cache
from quotes.models import RegionAssumption
from tests.factories import ecb_rates_load
from tests.quotes.advice.test_expert_scenarios import SCENARIOS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

SIZING = reverse("api:sizing")
CONFIGURATIONS = reverse("api:configurations")
TCO = reverse("api:tco")
SERVE_8B = {"task": "inference", "model": "llama-3.1-8b", "inference": {"concurrent_requests": 8}}
ASK_8B = {"workload": SERVE_8B, "environment": "production"}


def _post(client, url, payload, **headers):
    return client.post(url, payload, content_type="application/json", **headers)


def _requests(scenario) -> list[tuple[str, dict]]:
    configuration = {"workload": scenario.workload, "environment": scenario.environment}
    if scenario.budget_eur is not None:
        configuration["budget"] = str(scenario.budget_eur)
    tco = {"workload": scenario.workload, "environment": scenario.environment, "region": "FR"}
    return [(SIZING, scenario.workload), (CONFIGURATIONS, configuration), (TCO, tco)]


@pytest.mark.parametrize("scenario", SCENARIOS[::4], ids=lambda s: s.name)
def test_a_cached_answer_is_byte_for_byte_the_computed_one(client, scenario):
    region_assumptions_seed()
    for url, payload in _requests(scenario):
        with override_settings(ANSWER_CACHE_SECONDS=0):
            computed = _post(client, url, payload)
        first = _post(client, url, payload)  # computed, then cached
        again = _post(client, url, payload)  # from the cache
        assert computed.status_code == first.status_code == again.status_code, url
        assert computed.content == first.content == again.content, url


def _random_requests(seed: int) -> list[tuple[str, dict]]:
    """Three requests (sizing, configurations, TCO) for a workload drawn at random from the
    registry's models and the fields' ranges: some have no configuration, some are refused."""
    draw = random.Random(seed)
    model = draw.choice([entry.id for entry in all_models()])
    task = draw.choice(["inference", "fine_tuning", "training"])
    workload: dict = {"task": task, "model": model}
    if task == "inference":
        workload["inference"] = {
            "concurrent_requests": draw.choice([1, 3, 16, 64, 250, 1000]),
            "sequence_length": draw.choice([512, 2048, 8192, 32768]),
        }
    elif task == "fine_tuning":
        workload["training"] = {"method": draw.choice(["lora", "qlora", "full"])}
    environment = draw.choice(["production", "experiment"])
    region = draw.choice(["FR", "DE", "US", "GB"])
    currency = draw.choice(["EUR", "USD"])
    ask = {"workload": workload, "environment": environment, "currency": currency}
    return [
        (SIZING, workload),
        (CONFIGURATIONS, ask | {"uptime": draw.choice(["business_hours", "always_on"])}),
        (TCO, ask | {"region": region, "horizon_years": draw.randint(1, 7)}),
    ]


@pytest.mark.parametrize("seed", range(12))
def test_on_random_workloads_the_cached_answers_are_the_computed_ones(client, seed):
    """Computed from the database with nothing cached (versions forgotten, cache off), then with
    the per-version snapshot, price ages and assumptions warm, then from the cache: the same
    bytes, in English and in French."""
    region_assumptions_seed()
    for language in ("en", "fr"):
        for url, payload in _random_requests(seed):
            versions_forget()
            with override_settings(ANSWER_CACHE_SECONDS=0):
                cold = _post(client, url, payload, HTTP_ACCEPT_LANGUAGE=language)
            warm = _post(client, url, payload, HTTP_ACCEPT_LANGUAGE=language)
            cached = _post(client, url, payload, HTTP_ACCEPT_LANGUAGE=language)
            assert cold.status_code == warm.status_code == cached.status_code, (url, payload)
            assert cold.content == warm.content == cached.content, (url, payload)


def test_a_hit_computes_nothing(client):
    spy = mock.patch.object(calculators, "advice_get", wraps=calculators.advice_get)
    with spy as advice_get:
        first = _post(client, CONFIGURATIONS, ASK_8B)
        second = _post(client, CONFIGURATIONS, ASK_8B)
        # Key order and spacing are not part of the question.
        third = client.post(
            CONFIGURATIONS,
            '{ "environment": "production", "workload" : {"model": "llama-3.1-8b",'
            ' "inference": {"concurrent_requests": 8}, "task": "inference"} }',
            content_type="application/json",
        )
    assert first.status_code == 200, first.content[:300]
    assert second.status_code == third.status_code == 200, third.content[:300]
    assert advice_get.call_count == 1
    assert first.content == second.content == third.content


def test_an_input_error_is_never_cached(client):
    bad = {"workload": SERVE_8B | {"precision": "fp3"}, "environment": "production"}
    with mock.patch.object(answer_cache.cache, "set", wraps=answer_cache.cache.set) as cache_set:
        assert _post(client, CONFIGURATIONS, bad).status_code == 400
        assert _post(client, CONFIGURATIONS, bad).status_code == 400
        assert _post(client, CONFIGURATIONS, ASK_8B).status_code == 200
    answers = [call for call in cache_set.call_args_list if call.args[0].startswith("answer:")]
    assert len(answers) == 1  # the good answer only (the throttle keeps its own counters)


def _price_of_the_first_option(client) -> Decimal:
    body = _post(client, CONFIGURATIONS, ASK_8B).json()
    return Decimal(body["options"][0]["totals"]["price"])


def _first_gpu(client) -> Gpu:
    body = _post(client, CONFIGURATIONS, ASK_8B).json()
    sku = next(line["sku"] for line in body["options"][0]["parts"] if line["kind"] == "gpu")
    return Gpu.objects.get(sku=sku)


def test_a_new_price_from_a_feed_changes_the_next_answer(client):
    before = _price_of_the_first_option(client)
    gpu = _first_gpu(client)
    current = Price.objects.filter(part=gpu, price_kind="purchase", currency="USD").latest("id")
    Price.objects.create(
        part=gpu,
        price_kind=current.price_kind,
        currency="USD",
        amount=current.amount + 1000,
        observed_on=timezone.localdate(),
        source="test feed",
    )

    assert _price_of_the_first_option(client) != before


def test_a_new_ecb_rate_changes_the_next_answer_in_euros(client):
    """The seed prices are observed in USD: a euro answer converts them at the day's rate, so
    a rate the ECB feed records reprices the next answer (and is named in it)."""
    before = _post(client, CONFIGURATIONS, ASK_8B).json()
    ecb_rates_load()  # USD 1.0853 on 2026-12-04, the latest

    after = _post(client, CONFIGURATIONS, ASK_8B).json()

    assert [r["per_eur"] for r in before["exchange_rates"]] == ["1.0824"]  # built in
    observed = {part["price_observed_in"] for part in before["options"][0]["parts"]}
    assert observed == {"USD"}  # the seed is priced in dollars
    assert [r["per_eur"] for r in after["exchange_rates"]] == ["1.0853"]
    assert after["exchange_rates"][0]["source"] == "ECB euro reference rate of 2026-12-04"
    # More dollars per euro: fewer euros for the same dollar prices
    assert Decimal(after["options"][0]["totals"]["price"]) < Decimal(
        before["options"][0]["totals"]["price"]
    )


def test_an_admin_edit_of_a_part_changes_the_next_answer(client):
    _price_of_the_first_option(client)
    gpu = _first_gpu(client)
    with mock.patch.object(calculators, "advice_get", wraps=calculators.advice_get) as spy:
        _post(client, CONFIGURATIONS, ASK_8B)
        assert spy.call_count == 0  # cached
        gpu.model = gpu.model + " (rev. B)"
        gpu.save()
        body = _post(client, CONFIGURATIONS, ASK_8B).json()
        assert spy.call_count == 1
    assert any(line["name"].endswith("(rev. B)") for line in body["options"][0]["parts"])


def test_a_staff_assumption_edit_changes_the_next_tco(client):
    region_assumptions_seed()
    payload = {"workload": SERVE_8B, "environment": "production", "region": "FR"}
    before = _post(client, TCO, payload).json()
    row = RegionAssumption.objects.get(region="FR", name="electricity_price_per_kwh")
    row.value = row.value * 2
    row.save()

    after = _post(client, TCO, payload).json()

    assert after["options"]["on_premises"]["total"] != before["options"]["on_premises"]["total"]


def test_a_new_cloud_price_changes_the_next_tco(client):
    payload = {"workload": SERVE_8B, "environment": "production", "region": "FR"}
    with mock.patch.object(calculators, "tco_get", wraps=calculators.tco_get) as spy:
        _post(client, TCO, payload)
        _post(client, TCO, payload)
        assert spy.call_count == 1
        CloudPrice.objects.create(
            gpu_model="L4",
            commitment="on_demand",
            provider="Test cloud",
            price_per_gpu_hour=Decimal("0.10"),
            currency="EUR",
            observed_on=timezone.localdate(),
            source="https://example.com/prices",
        )
        _post(client, TCO, payload)
        assert spy.call_count == 2


def test_the_answer_cache_can_be_turned_off(client):
    with (
        override_settings(ANSWER_CACHE_SECONDS=0),
        mock.patch.object(calculators, "advice_get", wraps=calculators.advice_get) as spy,
    ):
        _post(client, CONFIGURATIONS, ASK_8B)
        _post(client, CONFIGURATIONS, ASK_8B)
    assert spy.call_count == 2


def _rev_b_names(client) -> list[str]:
    parts = _post(client, CONFIGURATIONS, ASK_8B).json()["options"][0]["parts"]
    return [line["name"] for line in parts if line["name"].endswith("(rev. B)")]


@pytest.fixture
def clock():
    """The versions' clock, in seconds, moved by hand; the production DATA_VERSION_MS (1 s)."""
    now = [1000.0]
    with (
        override_settings(DATA_VERSION_MS=1000),
        mock.patch.object(versions.time, "monotonic", side_effect=lambda: now[0]),
    ):
        versions_forget()
        yield now


def test_a_process_trusts_the_data_version_for_a_second_at_most(client, clock):
    """Another process's change (here an update that sends no signal to this process, as a
    change made elsewhere does) is seen once the version read is a second old."""
    gpu = _first_gpu(client)
    Gpu.objects.filter(pk=gpu.pk).update(model=gpu.model + " (rev. B)", updated_at=timezone.now())
    clock[0] += 0.5
    assert _rev_b_names(client) == []  # within the second: as before
    clock[0] += 0.6  # 1.1 s after the version was read
    assert _rev_b_names(client) != []


def test_a_change_saved_by_this_process_is_seen_at_once(client, clock):
    gpu = _first_gpu(client)
    gpu.model = gpu.model + " (rev. B)"
    gpu.save()  # the clock has not moved: the save itself made the process forget
    assert _rev_b_names(client) != []
    row = RegionAssumption.objects.create(
        region="FR",
        name="electricity_price_per_kwh",
        value=Decimal("9"),
        currency="EUR",
        source="test",
    )
    payload = {"workload": SERVE_8B, "environment": "production", "region": "FR"}
    before = _post(client, TCO, payload).json()["options"]["on_premises"]["total"]
    row.value = Decimal("1")
    row.save()
    after = _post(client, TCO, payload).json()["options"]["on_premises"]["total"]
    assert after != before


def test_a_process_answers_from_its_recent_answers_then_from_the_shared_cache(client):
    first = _post(client, CONFIGURATIONS, ASK_8B)
    with (
        mock.patch.object(answer_cache.cache, "get", wraps=answer_cache.cache.get) as shared_get,
        mock.patch.object(calculators, "advice_get", wraps=calculators.advice_get) as computed,
    ):

        def answers_read() -> int:  # the throttle reads the cache too
            return sum(str(call.args[0]).startswith("answer:") for call in shared_get.mock_calls)

        again = _post(client, CONFIGURATIONS, ASK_8B)
        assert (answers_read(), computed.call_count) == (0, 0)  # this process's own
        answer_cache._recent.clear()  # as another process, which never answered it, would
        elsewhere = _post(client, CONFIGURATIONS, ASK_8B)
        assert (answers_read(), computed.call_count) == (1, 0)  # the shared cache's
    assert first.content == again.content == elsewhere.content
