"""The wizard end to end on the server: steps, session, stored results, quote requests."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.urls import reverse
from django.utils import translation

from catalog.models import Part, Price
from catalog.selectors import catalog_snapshot_get, price_ages_get
from gpuquote.core.formatting import money_format
from quotes.advice.presenters import (
    build_to_dict,
    job_to_dict,
    localized_text,
    result_to_dict,
    sizing_to_dict,
    tco_to_dict,
)
from quotes.advice.store import result_from_json
from quotes.models import QuoteRequest, WizardResult
from quotes.wizard.views.steps import SESSION_KEY
from tests.factories import stored_result_make
from tests.quotes.wizard.wizard_cases import (
    CASES,
    EXPECTED,
    FINE_TUNING,
    INFERENCE,
    TRAINING,
    engine_answer,
    stored_advice,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


def _url(step: str) -> str:
    return reverse("wizard:step", kwargs={"step": step})


def _walk(client, case: dict, *, language: str = "en"):
    """POST every step with Next; returns the last response (the redirect to the result)."""
    response = None
    for step, data in case.items():
        response = client.post(_url(step), data | {"nav": "next"}, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 302, _error_texts(response)
    return response


def _error_texts(response) -> list[str]:
    return re.findall(r'class="error-message"[^>]*>(.*?)</p>', response.content.decode(), re.S)


def _result(response) -> WizardResult:
    token = response["Location"].rstrip("/").split("/")[-1]
    return WizardResult.objects.get(token=token)


# --- Steps and session ---------------------------------------------------------------------------


def test_home_opens_the_first_step(client):
    response = client.get("/")

    assert response.status_code == 200
    assert response.templates[0].name == "wizard/step_project.html"
    body = response.content.decode()
    assert 'action="/wizard/project/"' in body
    assert 'aria-current="step"' in body
    assert '<details class="advanced">' in body  # advanced defaults, without JS
    assert 'name="batch_size" value="8"' in body


def test_later_steps_wait_for_the_earlier_ones(client):
    response = client.get(_url("deployment"))

    assert response.status_code == 302
    assert response["Location"] == _url("project")


def test_unknown_step_is_404(client):
    assert client.get(_url("nowhere")).status_code == 404


def test_next_stores_the_answers_and_back_keeps_them(client):
    client.post(_url("project"), FINE_TUNING["project"] | {"nav": "next"})
    client.post(_url("data"), FINE_TUNING["data"] | {"nav": "next"})

    # Back from step 3 with half-typed answers keeps them, without validating.
    response = client.post(_url("usage"), {"environment": "experiment", "nav": "back"})
    assert response.status_code == 302
    assert response["Location"] == _url("data")
    stored = client.session[SESSION_KEY]
    assert stored["usage"]["environment"] == "experiment"

    page = client.get(_url("data")).content.decode()
    assert 'name="total_gb" value="2"' in page
    assert 'name="epochs" value="3"' in page

    page = client.get(_url("project")).content.decode()
    assert re.search(r'value="fine_tuning" id="id_goal_1" checked', page)
    assert re.search(r'id="id_gradient_checkpointing" checked', page)

    # Forward again: step 3 shows what was typed before going back.
    page = client.get(_url("usage")).content.decode()
    assert re.search(r'value="experiment" id="id_environment_0" checked', page)


def test_an_unticked_box_stays_unticked_after_back_and_next(client):
    answers = FINE_TUNING["project"].copy()
    del answers["gradient_checkpointing"]
    client.post(_url("project"), answers | {"nav": "next"})

    page = client.get(_url("project")).content.decode()

    assert re.search(r'<input type="checkbox" name="gradient_checkpointing" [^>]*>', page)
    assert not re.search(r'id="id_gradient_checkpointing" checked', page)


def test_invalid_answer_is_named_with_what_is_allowed(client):
    response = client.post(
        _url("project"), FINE_TUNING["project"] | {"batch_size": "0", "nav": "next"}
    )

    assert response.status_code == 200
    body = response.content.decode()
    assert 'role="alert"' in body
    label = "Batch size (sequences per training step, all GPUs together)"
    assert f"{label}: Enter a number from 1 to 65,536." in body
    assert 'aria-invalid="true"' in body
    assert 'aria-describedby="id_batch_size_help id_batch_size_error"' in body
    assert '<details class="advanced" open>' in body
    assert SESSION_KEY not in client.session


def test_switching_the_goal_after_step_two_asks_for_the_new_fields(client):
    _walk(client, {"project": FINE_TUNING["project"], "data": FINE_TUNING["data"]})
    client.post(_url("project"), INFERENCE["project"] | {"nav": "next"})

    page = client.get(_url("data")).content.decode()

    assert 'name="concurrent_users" value="8"' in page
    assert "id_epochs" not in page


def test_the_last_step_revalidates_every_step(client):
    _walk(client, {step: FINE_TUNING[step] for step in ("project", "data", "usage")})
    session = client.session
    wizard = session[SESSION_KEY]
    wizard["data"] = wizard["data"] | {"epochs": "99999"}
    session[SESSION_KEY] = wizard
    session.save()

    response = client.post(_url("deployment"), FINE_TUNING["deployment"] | {"nav": "next"})

    assert response.status_code == 302
    assert response["Location"] == _url("data")
    assert WizardResult.objects.count() == 0


def test_done_renders_the_failing_step_when_it_went_bad_since(client, monkeypatch):
    _walk(client, {step: FINE_TUNING[step] for step in ("project", "data", "usage")})
    client.post(_url("deployment"), FINE_TUNING["deployment"] | {"nav": "back"})
    session = client.session
    wizard = session[SESSION_KEY]
    wizard["usage"] = wizard["usage"] | {"growth_gpus": "99"}
    session[SESSION_KEY] = wizard
    session.save()

    response = client.get(_url("deployment"))

    assert response.status_code == 302
    assert response["Location"] == _url("usage")


def test_reset_forgets_the_answers(client):
    client.post(_url("project"), FINE_TUNING["project"] | {"nav": "next"})

    response = client.post(reverse("wizard:reset"))

    assert response.status_code == 302
    assert SESSION_KEY not in client.session


def test_deployment_step_shows_every_regions_defaults_with_sources(client):
    _walk(client, {step: FINE_TUNING[step] for step in ("project", "data", "usage")})

    body = client.get(_url("deployment")).content.decode()

    assert 'id="region-defaults"' in body
    for code in ("FR", "DE", "GB", "US"):
        assert f'data-region="{code}"' in body
    assert "Eurostat" in body  # a source, shown next to the values
    # The uptime answer ("working hours") pre-fills the utilisation.
    assert 'name="utilization_pct" value="30"' in body


# --- Full flows and the stored result -------------------------------------------------------


@pytest.mark.parametrize("name", ["inference", "fine_tuning", "training"])
def test_full_flow_stores_the_engines_result_and_shows_its_numbers(client, name):
    response = _walk(client, CASES[name])
    result = _result(response)
    expected = EXPECTED[name]
    advice, chosen, tco = engine_answer(expected)

    assert response["Location"] == reverse("wizard:result", kwargs={"token": result.token})
    assert len(result.token) >= 43
    assert result.language == "en"
    assert result.answers["workload"] == expected["workload"]
    stored = result_from_json(result.result)
    assert stored is not None
    assert stored.inputs.overrides == {k: str(v) for k, v in expected["overrides"].items()}
    assert stored.chosen_tier == chosen.tier
    # The engine's own objects, read back equal: nothing rounded, nothing re-parsed.
    assert stored.sizing == advice.sizing
    assert stored.build == advice.build
    assert stored.tco == tco
    # Stored language-neutral: message templates, never a rendered sentence.
    raw = json.dumps(result.result)
    assert "by_language" not in raw
    with translation.override("fr"):
        french = result_to_dict(stored)
        # The page's words: numbers written the French way ("24,6"), as a page shows them.
        assert french["tco"] == tco_to_dict(tco, render=localized_text) | {
            "job": job_to_dict(stored.job)
        }
        assert french["sizing"] == sizing_to_dict(advice.sizing, render=localized_text)
        currency = expected["currency"]
        assert french["build"] == build_to_dict(
            advice.build,
            price_ages_get(currency=currency),
            exchange_rates=catalog_snapshot_get(currency=currency).exchange_rates,
            render=localized_text,
        )
        # The seed is priced in dollars: a euro answer names the rate it converted at
        rates = [rate["per_eur"] for rate in french["build"]["exchange_rates"]]
        assert rates == ([] if currency == "USD" else ["1.0824"])
    assert french["sizing"]["explanations"][0]["text"] not in raw

    page = client.get(response["Location"])
    assert page.status_code == 200
    assert page["X-Robots-Tag"] == "noindex, nofollow"
    assert page["Referrer-Policy"] == "same-origin"
    body = page.content.decode()
    currency = expected["currency"]
    with translation.override("en"):
        for option in tco.options.values():
            assert money_format(option.total.amount, currency, places=0) in body
        assert money_format(chosen.totals.price.amount, currency, places=0) in body
        memory = sizing_to_dict(advice.sizing)["memory_gb"]
        assert f'<td class="num">{memory["total"]:,.2f}</td>' in body
    assert re.search(r'<svg [^>]*role="img" aria-labelledby="tco-chart-title tco-chart-desc"', body)
    assert '<title id="tco-chart-title">' in body
    assert '<desc id="tco-chart-desc">' in body
    assert body.count('class="check ') == sum(len(o.checks) for o in advice.build.options)


def test_inference_result_compares_serving_speed_with_a_workstation(client):
    result = _result(_walk(client, INFERENCE))
    advice = stored_advice(result)

    assert advice.workstation_gpu is not None
    assert advice.workstation_gpu.sku == "NVIDIA-RTX4090-24GB"
    assert advice.on_recommended is not None
    assert (advice.on_recommended.tokens_per_second or 0) > 0
    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    assert "Serving speed" in body
    assert "GeForce RTX 4090" in body


def test_training_result_compares_training_time(client):
    result = _result(_walk(client, TRAINING))
    advice = stored_advice(result)
    recommended, workstation = advice.on_recommended, advice.on_workstation

    assert recommended is not None
    assert workstation is not None
    assert recommended.training_hours is not None
    assert workstation.training_hours is not None
    assert recommended.training_hours < workstation.training_hours
    body = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    assert "On one consumer GPU workstation" in body
    assert "about " in body


def test_the_stored_result_ignores_later_price_changes(client):
    result = _result(_walk(client, FINE_TUNING))
    url = reverse("wizard:result", kwargs={"token": result.token})
    before = client.get(url).content.decode()
    option = stored_advice(result).chosen
    assert option is not None
    gpu_line = next(line for line in option.parts if line.kind == "gpu")
    old_price = option.totals.price

    # Given: the GPU's price doubles in the catalog after the result was stored.
    part = Part.objects.get(sku=gpu_line.sku)
    Price.objects.create(
        part=part,
        price_kind="purchase",
        amount=gpu_line.unit_price.amount * 2,
        currency="EUR",
        observed_on=dt.date(2030, 1, 1),
        source="test: later price list",
    )
    fresh, _, _ = engine_answer(EXPECTED["fine_tuning"])
    fresh_prices = {o.tier: o.totals.price for o in fresh.build.options}
    assert fresh_prices.get(option.tier) != old_price  # the catalog did change

    # Then: the stored page shows the same figures as before.
    after = client.get(url).content.decode()
    with translation.override("en"):
        assert money_format(old_price.amount, "EUR", places=0) in after
    strip = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert strip.sub("", after) == strip.sub("", before)


def test_unknown_token_is_404(client):
    assert client.get(reverse("wizard:result", kwargs={"token": "x" * 43})).status_code == 404
    assert (
        client.get(reverse("wizard:checklist_pdf", kwargs={"token": "x" * 43})).status_code == 404
    )
    response = client.post(reverse("wizard:quote_request", kwargs={"token": "x" * 43}), {})
    assert response.status_code == 404


def test_french_result_page_formats_numbers_and_money_for_france(client):
    client.cookies["django_language"] = "fr"
    result = _result(_walk(client, FINE_TUNING, language="fr"))

    page = client.get(reverse("wizard:result", kwargs={"token": result.token}))
    body = page.content.decode()

    assert result.language == "fr"
    assert '<html lang="fr">' in body
    tco = stored_advice(result).tco
    assert tco is not None
    with translation.override("fr"):
        formatted = money_format(tco.on_premises.total.amount, "EUR", places=0)
    assert re.fullmatch(r"\d{1,3}(\u00a0\d{3})+\u00a0€", formatted)
    assert formatted in body


def test_result_page_follows_the_visitors_language(client):
    result = _result(_walk(client, FINE_TUNING))

    body = client.get(
        reverse("wizard:result", kwargs={"token": result.token}), HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()

    assert '<html lang="fr">' in body
    assert "\u00a0€" in body


def test_result_page_queries(client, django_assert_max_num_queries):
    result = _result(_walk(client, FINE_TUNING))

    with django_assert_max_num_queries(4):  # session, result, plus at most the auth user
        client.get(reverse("wizard:result", kwargs={"token": result.token}))


# --- Quote requests ----------------------------------------------------------------------------

QUOTE = {
    "name": "Ada Lovelace",
    "company": "Analytical Engines SA",
    "email": "ada@example.com",
    "country": "FR",
    "message": "Rack space in Paris, please.",
    "consent": "on",
}


def test_quote_request_is_created_and_confirmed(client):
    result = _result(_walk(client, FINE_TUNING))

    response = client.post(reverse("wizard:quote_request", kwargs={"token": result.token}), QUOTE)

    assert response.status_code == 302
    assert response["Location"] == reverse("wizard:quote_sent", kwargs={"token": result.token})
    request = QuoteRequest.objects.get()
    assert (request.result, request.name, request.company, request.email, request.country.code) == (
        result,
        "Ada Lovelace",
        "Analytical Engines SA",
        "ada@example.com",
        "FR",
    )
    assert request.consent is True
    assert request.status == "new"
    confirmation = client.get(response["Location"]).content.decode()
    assert result.token in confirmation


def test_quote_request_without_consent_creates_nothing(client):
    result = _result(_walk(client, FINE_TUNING))
    data = {key: value for key, value in QUOTE.items() if key != "consent"}

    response = client.post(reverse("wizard:quote_request", kwargs={"token": result.token}), data)

    assert response.status_code == 200
    body = response.content.decode()
    assert "Tick this box so that we may contact you." in body
    assert 'role="alert"' in body
    assert QuoteRequest.objects.count() == 0


def test_quote_request_is_atomic(client, monkeypatch):
    result = _result(_walk(client, FINE_TUNING))

    def fail_after_insert(self, *args, **kwargs):
        QuoteRequest.save_base(self, *args, **kwargs)
        raise RuntimeError("crash after the insert")

    monkeypatch.setattr(QuoteRequest, "save", fail_after_insert)
    with pytest.raises(RuntimeError):
        client.post(reverse("wizard:quote_request", kwargs={"token": result.token}), QUOTE)

    assert QuoteRequest.objects.count() == 0


def test_quote_request_service_refuses_missing_consent():
    from django.core.exceptions import ValidationError

    from quotes.wizard.services import quote_request_create

    result = stored_result_make()
    with pytest.raises(ValidationError):
        quote_request_create(
            result=result,
            name="Ada",
            company="ACME",
            email="ada@example.com",
            country="fr",
            consent=False,
        )
    assert QuoteRequest.objects.count() == 0


def test_stored_results_keep_their_quote_requests():
    from django.db.models import ProtectedError

    result = stored_result_make()
    QuoteRequest.objects.create(
        result=result, name="Ada", company="ACME", email="a@example.com", country="FR", consent=True
    )

    with pytest.raises(ProtectedError):
        result.delete()


def test_admin_lists_quote_requests(admin_client):
    result = stored_result_make()
    QuoteRequest.objects.create(
        result=result, name="Ada", company="ACME", email="a@example.com", country="FR", consent=True
    )

    response = admin_client.get(reverse("admin:quotes_quoterequest_changelist"))

    assert response.status_code == 200
    assert "ACME" in response.content.decode()
    assert admin_client.get(reverse("admin:quotes_wizardresult_changelist")).status_code == 200


# --- Results stored before schema 2 -------------------------------------------------------------


def _schema_1_copy(result: WizardResult) -> WizardResult:
    """The same answers stored as schema 1 did: inputs plus rendered texts per language."""
    inputs = result.result["advice"]["inputs"]
    old = {"schema": 1, "inputs": inputs, "chosen_tier": "balanced", "by_language": {"en": {}}}
    return WizardResult.objects.create(language="en", answers=result.answers, result=old)


def test_a_schema_1_result_says_so_and_is_computed_again_from_its_inputs(client):
    fresh = _result(_walk(client, FINE_TUNING))
    old = _schema_1_copy(fresh)
    url = reverse("wizard:result", kwargs={"token": old.token})

    page = client.get(url)
    assert page.status_code == 200
    assert "made by an earlier version of GPUQuote" in page.content.decode()
    # Its PDF and its quote form lead back to that page rather than to figures it cannot show.
    pdf = client.get(reverse("wizard:checklist_pdf", kwargs={"token": old.token}))
    assert pdf.status_code == 302
    assert pdf["Location"] == url
    posted = client.post(reverse("wizard:quote_request", kwargs={"token": old.token}), QUOTE)
    assert posted["Location"] == url
    assert not QuoteRequest.objects.filter(result=old).exists()

    recompute = reverse("wizard:result_recompute", kwargs={"token": old.token})
    # The same answers on the same data: the result stored for them, nothing stored again.
    same = client.post(recompute)
    assert same["Location"] == reverse("wizard:result", kwargs={"token": fresh.token})
    assert WizardResult.objects.count() == 2
    fresh_advice = stored_advice(fresh)
    fresh.delete()

    again = client.post(recompute)
    assert again.status_code == 302
    new = WizardResult.objects.exclude(pk=old.pk).get()
    assert again["Location"] == reverse("wizard:result", kwargs={"token": new.token})
    assert stored_advice(new) == fresh_advice  # same inputs, same catalog: same result
    old.refresh_from_db()
    assert old.result["schema"] == 1  # the old link keeps what it had


def test_a_schema_1_result_with_unreadable_inputs_asks_to_start_again(client):
    old = WizardResult.objects.create(language="en", answers={}, result={"by_language": {}})
    response = client.post(reverse("wizard:result_recompute", kwargs={"token": old.token}))
    assert response.status_code == 200
    assert "could not be read" in response.content.decode()
    assert WizardResult.objects.count() == 1


def test_a_current_result_is_not_recomputed(client):
    result = _result(_walk(client, FINE_TUNING))
    response = client.post(reverse("wizard:result_recompute", kwargs={"token": result.token}))
    assert response["Location"] == reverse("wizard:result", kwargs={"token": result.token})
    assert WizardResult.objects.count() == 1
