"""The result page shows what each option delivers, as the engine computed it
(engine.performance)."""

import re

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from catalog.selectors import catalog_snapshot_get
from engine.performance.options import options_performance
from engine.workload import workload_from_dict
from quotes.advice.presenters import localized_text
from tests.factories import advice_result_build, stored_result_make
from tests.quotes.wizard.wizard_cases import INFERENCE, TRAINING, stored_advice, wizard_result_make

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


def _block(body: str, tier: str) -> str:
    """The option's "What it delivers" block on the page."""
    found = re.search(
        rf'<div class="option-performance" data-performance="{tier}">(.*?)</details>', body, re.S
    )
    assert found, f"no performance block for {tier}"
    return found.group(1)


def _shared(body: str) -> str:
    """The lines every option shares, said once under the options ("" when none)."""
    found = re.search(r'<div class="shared-performance">(.*?)</div>', body, re.S)
    return found.group(1) if found else ""


@pytest.mark.parametrize("answers", [INFERENCE, TRAINING], ids=["inference", "training"])
def test_each_option_shows_the_engines_figures(client, answers):
    result = wizard_result_make(client, answers)
    advice = stored_advice(result)
    workload = workload_from_dict(advice.inputs.workload)
    gpus = catalog_snapshot_get(currency=advice.inputs.currency).gpus

    expected = options_performance(workload, advice.build.options, gpus)

    # Stored with the result and read back as the engine's own objects.
    assert advice.performance == expected
    assert set(expected) == {option.tier for option in advice.build.options}
    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    with translation.override("en"):
        shared = _shared(body)
        for tier, performance in expected.items():
            block = _block(body, str(tier))
            for line in performance.lines:
                item = f"<li>{escape(localized_text(line))}</li>"
                # A line every option shares (the software stack) is said once under the cards.
                every = all(line in other.lines for other in expected.values())
                assert item in (shared if every and len(expected) > 1 else block)
                assert (item in block) is not (every and len(expected) > 1)
            if workload.is_training:
                assert performance.training is not None
                assert "Training takes ~" in block
            else:
                assert performance.serving is not None
                assert "tokens/s for each of 16 users" in block


def test_a_result_stored_before_the_figures_shows_no_block(client):
    result = stored_result_make(advice=advice_result_build())

    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    assert 'class="option-performance"' not in body


def test_the_serving_speed_panel_states_the_recommended_cards_figure(client):
    # One throughput figure per configuration: the panel beside the needs is the recommended
    # option's own total tokens/s, not the sizing's bandwidth ceiling ("up to ...").
    result = wizard_result_make(client, INFERENCE)
    advice = stored_advice(result)
    assert advice.chosen_tier is not None
    serving = advice.performance[advice.chosen_tier].serving
    assert serving is not None
    ceiling = advice.on_recommended.tokens_per_second if advice.on_recommended else None
    assert ceiling is not None
    assert round(ceiling) != round(serving.tokens_per_second)  # two models: the test can tell

    with translation.override("en"):
        body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content
    text = body.decode()

    assert f"{round(serving.tokens_per_second):,} tokens/s in all" in text
    assert f"up to {round(ceiling):,} tokens/s" not in text


def _availability(body: str, tier: str) -> str:
    found = re.search(
        rf'<details class="explain option-availability" data-availability="{tier}">(.*?)</details>',
        body,
        re.S,
    )
    assert found, f"no availability block for {tier}"
    return found.group(1)


@pytest.mark.parametrize(("tier", "hours"), [("", 72), ("24x7", 4)], ids=["default", "24x7"])
def test_each_option_states_its_availability_with_the_tiers_repair_time(client, tier, hours):
    answers = INFERENCE | {"deployment": INFERENCE["deployment"] | {"service_tier": tier}}
    result = wizard_result_make(client, answers)
    advice = stored_advice(result)

    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    for option in advice.build.options:
        # 24/7 in production: N+1, each option on at least two servers, each repaired within
        # the tier's replacement time, and the speed with one down beside the normal one
        block = _availability(body, str(option.tier))
        assert f"a failed server back within {hours} h" in block
        assert "single-points" not in block
        assert "With one server down: ~" in _block(body, str(option.tier))


def test_a_one_server_option_names_its_server_as_the_single_point_of_failure(client):
    usage = {"environment": "production", "uptime": "business_hours", "growth_gpus": "0"}
    result = wizard_result_make(client, INFERENCE | {"usage": usage})
    advice = stored_advice(result)

    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()

    one_server = [option for option in advice.build.options if option.servers == 1]
    assert one_server
    for option in one_server:
        block = _availability(body, str(option.tier))
        assert '<li data-role="server">the one GPU server: no spare takes over when it fails' in (
            block
        )
        assert "a failed one back within 72 h" in block


def test_the_availability_block_reads_in_french(client):
    result = wizard_result_make(client, INFERENCE)

    body = client.get(
        reverse("wizard:result", kwargs={"token": result.token}), HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()

    assert "Continuité de service : disponibilité et points de défaillance uniques" in body
    assert "un serveur en panne remis en service en 72 h au plus" in body
    assert "Avec un serveur en panne : ~" in body
