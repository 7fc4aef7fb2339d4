"""The support level in the wizard: offered at the deployment step with its prices and
what the host does, carried into the result, its checklist and the quote."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from catalog.selectors.service_tiers import service_tier_get
from quotes.advice.result import AdviceResult
from quotes.models import QuoteRequest
from quotes.sales import services
from quotes.wizard.forms import DeploymentForm
from quotes.wizard.result_page import result_context
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.wizard_cases import FINE_TUNING, stored_advice, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]

ALWAYS = FINE_TUNING | {"deployment": FINE_TUNING["deployment"] | {"service_tier": "24x7"}}


def test_the_deployment_step_offers_the_tiers_with_both_prices_the_default_chosen():
    with translation.override("en"):
        form = DeploymentForm()
        items = {
            item["widget"].data["value"]: item["help"] for item in form.choice_items("service_tier")
        }

    assert form.fields["service_tier"].initial == "standard"
    assert items["standard"].startswith("Included in the hosting fee.")
    assert items["24x7"].startswith("€450 or $522 per server and month.")
    assert "The system disks backed up every day." in items["24x7"]


def test_an_unknown_tier_is_refused_by_the_form():
    form = DeploymentForm(data=FINE_TUNING["deployment"] | {"service_tier": "platinum"})

    assert not form.is_valid()
    assert "service_tier" in form.errors


def _advice(client, answers) -> AdviceResult:
    return stored_advice(wizard_result_make(client, answers))


def test_the_chosen_tier_is_stored_priced_and_shown(client):
    result = wizard_result_make(client, ALWAYS)
    advice = stored_advice(result)
    always = service_tier_get(code="24x7", currency="EUR")

    assert advice.inputs.service_tier == "24x7"
    assert advice.tco is not None
    assert advice.tco.service_tier == always
    page = client.get(reverse("wizard:result", kwargs={"token": result.token}))
    body = page.content.decode()
    assert 'id="support-level" data-tier="24x7"' in body
    assert 'id="monitoring-plan"' in body
    assert 'id="software-stack"' in body
    with translation.override("en"):
        rows = result_context(result, advice)["answer_rows"]
    assert {"label": "Support, if we host your servers", "value": "24×7"} in rows


def test_without_an_answer_the_default_tier_is_stored(client):
    advice = _advice(client, FINE_TUNING)

    assert advice.inputs.service_tier == ""
    assert advice.tco is not None
    assert advice.tco.service_tier is not None
    assert advice.tco.service_tier.code == "standard"


def test_the_quote_of_a_managed_result_bills_the_tier_per_server(client, django_user_model):
    result = wizard_result_make(client, ALWAYS)
    advice = stored_advice(result)
    request = QuoteRequest.objects.create(
        result=result,
        name="Ada",
        company="Acme",
        email="ada@example.com",
        country="FR",
        consent=True,
    )
    rep = _user(django_user_model, "rep", services.REP_GROUP)

    quote = services.quote_create_from_request(user=rep, quote_request=request)

    assert quote.current_revision is not None
    line = quote.current_revision.lines.get(role="service_tier")
    assert advice.chosen is not None
    assert (line.unit_price, line.quantity, line.recurrence) == (
        Decimal("450.00"),
        Decimal(advice.chosen.servers),
        "monthly",
    )
    assert line.description == "Support: 24×7, per server"
