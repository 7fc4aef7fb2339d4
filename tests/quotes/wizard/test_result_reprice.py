"""Change and re-price on the result page: the GPU model and count, horizon, region
and deployment changed without walking the wizard again; a CSV of the options and costs; the
rental offered when the budget buys nothing sound; the options' differences marked."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse

from engine.build.configuration import GpuFit, GpuPreference
from engine.tco.inputs import Way
from quotes.advice.labels import TIER_LABELS
from quotes.models import WizardResult
from quotes.wizard.export import _cell
from quotes.wizard.result_choices import RENTAL_TERM_MONTHS, differences
from tests.quotes.wizard.test_result_budget import TOO_SMALL
from tests.quotes.wizard.wizard_cases import FINE_TUNING, stored_advice, wizard_result_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seed_catalog")]


def _reprice(client, result, **changes):
    advice = stored_advice(result)
    data = {
        "gpu": advice.inputs.gpu_sku,
        "gpu_count": "",
        "horizon_years": str(advice.inputs.horizon_years),
        "region": advice.inputs.region,
        "deployment": advice.inputs.deployment,
    } | changes
    return client.post(reverse("wizard:result_reprice", kwargs={"token": result.token}), data)


def _gpu_skus(advice) -> set[str]:
    return {
        line.sku for option in advice.build.options for line in option.parts if line.kind == "gpu"
    }


def test_another_gpu_model_reprices_every_option_on_it_under_a_new_link(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    before = stored_advice(result)
    assert before.chosen is not None
    chosen_gpu = next(line.sku for line in before.chosen.parts if line.kind == "gpu")
    wanted = sorted(_gpu_skus(before) - {chosen_gpu})[0]  # another option's GPU model

    response = _reprice(client, result, gpu=wanted, horizon_years="5", region="DE")

    fresh = WizardResult.objects.exclude(pk=result.pk).get()
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("wizard:result", kwargs={"token": fresh.token}))
    after = stored_advice(fresh)
    assert _gpu_skus(after) == {wanted}
    assert after.inputs.horizon_years == 5
    assert after.inputs.region == "DE"
    assert after.tco is not None
    assert after.tco.horizon_months == 60
    assert fresh.answers["deployment"]["region"] == "DE"
    assert stored_advice(result) == before  # the old link keeps its figures
    page = client.get(reverse("wizard:result", kwargs={"token": fresh.token})).content.decode()
    assert 'id="preference"' in page


def test_a_gpu_count_is_raised_to_whole_copies_and_never_below_the_need(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    first = stored_advice(result).chosen
    assert first is not None
    needed = first.totals.gpus

    _reprice(client, result, gpu_count=str(needed + 3))
    more = stored_advice(WizardResult.objects.exclude(pk=result.pk).get())

    assert more.chosen is not None
    assert more.chosen.totals.gpus >= needed + 3
    assert more.inputs.gpu_count == needed + 3


def test_the_preference_rounds_a_count_up_to_whole_model_copies():
    fit = GpuFit(gpus=4, memory_per_gpu_gb=60.0, replica_gpus=2)

    assert GpuPreference(count=5).applied_to(fit).gpus == 6
    assert GpuPreference(count=3).applied_to(fit) == fit  # fewer than the need: the need
    assert GpuPreference(count=8).applied_to(fit).memory_per_gpu_gb == 60.0
    with pytest.raises(ValueError, match="negative"):
        GpuPreference(count=-1)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"gpu_count": "0"}, "gpu_count"),
        ({"gpu_count": "100000"}, "gpu_count"),
        ({"gpu_count": "1e9"}, "gpu_count"),
        ({"horizon_years": "99"}, "horizon_years"),
        ({"region": "XX"}, "region"),
        ({"gpu": "NO-SUCH-GPU"}, "gpu"),
        ({"deployment": "moon"}, "deployment"),
    ],
)
def test_a_wrong_change_is_named_by_its_field_and_computes_nothing(client, changes, field):
    result = wizard_result_make(client, FINE_TUNING, language="en")

    response = _reprice(client, result, **changes)

    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="#id_{field}"' in html  # the error summary links to the field
    assert '<details class="reprice" id="reprice" open>' in html
    assert WizardResult.objects.count() == 1


def test_the_csv_lists_every_option_with_the_stored_figures(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")
    advice = stored_advice(result)

    response = client.get(reverse("wizard:result_csv", kwargs={"token": result.token}))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    assert response["Cache-Control"] == "private, no-store"
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header, body = rows[0], rows[1:]
    assert len(body) == len(advice.build.options)
    by_tier = {row[0]: dict(zip(header, row, strict=True)) for row in body}
    chosen = advice.chosen
    assert chosen is not None
    row = by_tier[str(TIER_LABELS[chosen.tier])]
    assert Decimal(row["Purchase price"]) == chosen.totals.price.amount
    assert row["Recommended"] == "yes"
    assert advice.tco is not None
    buy_total = next(value for key, value in row.items() if key.startswith("Buy (on"))
    assert Decimal(buy_total) == advice.tco.options[Way.ON_PREMISES].total.amount
    fee = advice.managed_offers[chosen.tier].term(advice.tco.horizon_months).monthly.amount
    assert Decimal(row["Managed hosting per month"]) == fee * chosen.servers


def test_the_french_csv_reads_as_numbers_in_a_french_spreadsheet(client):
    result = wizard_result_make(client, FINE_TUNING, language="fr")

    body = client.get(reverse("wizard:result_csv", kwargs={"token": result.token})).content
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig")), delimiter=";"))

    assert rows[0][0] == "Configuration"
    price = rows[1][12]  # the purchase price (the columns' order is the same in every language)
    assert "," in price
    assert "." not in price
    assert Decimal(price.replace(",", ".")) > 0


def test_a_text_cell_a_spreadsheet_would_run_is_quoted():
    assert _cell('=HYPERLINK("x")', ".") == '\'=HYPERLINK("x")'
    assert _cell("@SUM(A1)", ",") == "'@SUM(A1)"
    assert _cell("NVIDIA H100", ".") == "NVIDIA H100"
    assert _cell(Decimal("1234.50"), ",") == "1234,50"


def test_a_budget_too_small_offers_the_rental_of_the_cheapest_sound_server(client):
    result = wizard_result_make(client, TOO_SMALL, language="en")
    advice = stored_advice(result)

    rental = advice.rental
    assert rental is not None
    assert advice.build.budget_needed is not None
    html = client.get(reverse("wizard:result", kwargs={"token": result.token})).content.decode()
    assert 'id="rental"' in html
    monthly = rental.monthly(0).amount
    assert monthly == rental.offer.term(0).monthly.amount * rental.servers
    assert rental.monthly(RENTAL_TERM_MONTHS).amount <= monthly  # a contract never costs more
    assert rental.gpu_name in html


def test_a_fitting_result_offers_no_rental(client):
    result = wizard_result_make(client, FINE_TUNING, language="en")

    assert stored_advice(result).rental is None


def test_the_facts_that_differ_between_options_are_marked():
    def option(gpus: int, sku: str, ram: int) -> dict:
        totals = {
            "gpus": gpus,
            "vram_gb": 80.0,
            "ram_gb": ram,
            "storage_gb": 3840.0,
            "power_w": 900,
        }
        return {"servers": 1, "totals": totals, "gpu": {"sku": sku}}

    marked = differences([option(1, "A", 768), option(1, "B", 768)])
    assert marked["gpus"]
    assert not marked["ram"]
    assert not marked["vram"]
    assert not any(differences([option(1, "A", 768)]).values())  # one option: nothing to compare
