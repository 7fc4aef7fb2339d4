"""The staff page shows where a managed fee's margin comes from: the host's own cost of one
server next to what the same server costs the customer on premises."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from engine.advice.pipeline import tco_configuration
from engine.assumptions import region_defaults
from engine.tco import managed_offer
from quotes.advice.presenters import managed_offer_to_dict
from quotes.sales import services
from tests.factories import advice_result_build
from tests.quotes.sales.test_quote_services import _user, wizard_request_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def test_the_managed_panel_shows_the_hosts_cost_next_to_the_customers(client, django_user_model):
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    quote = services.quote_create_from_request(
        user=rep, quote_request=wizard_request_make(deployment="managed")
    )
    chosen = advice_result_build().chosen
    assert chosen is not None
    configuration = tco_configuration(chosen)
    priced = managed_offer(
        configuration, region_defaults("FR", "EUR", gpu_model=configuration.gpu_model)
    )
    # The result's TCO as the wizard stores it (the factory's result has none)
    offer = managed_offer_to_dict(priced, 36)
    assert offer is not None
    quote.snapshot = {**quote.snapshot, "tco": {"managed_offer": offer}}
    quote.save(update_fields=["snapshot"])
    contract = next(t for t in offer["terms"] if t["months"] == offer["contract_months"])
    client.force_login(rep)

    page = client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()

    assert 'id="managed-cost-lines"' in page
    table = page.split('id="managed-cost-lines"')[1].split("</table>")[0]
    assert table.count('<th scope="row">') == 7  # six lines and the total
    # The host runs the server for less than the customer would: the room for its margin
    host, customer = Decimal(contract["cost"]["total"]), Decimal(contract["customer"]["total"])
    assert host < customer
