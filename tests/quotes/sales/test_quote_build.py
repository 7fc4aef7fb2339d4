"""Staff build servers on a quote: from a workload (the builder proposes) or part by part, with
the builder's rule checks on the page and in the way of sending an unbalanced server."""

from __future__ import annotations

import io
import json
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.core import mail
from django.urls import reverse
from pypdf import PdfReader

from quotes.models import Quote, QuoteEvent, QuoteRequest
from quotes.sales import services
from quotes.sales.selectors import quote_server_review_get
from quotes.sales.services import build as build_services
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.test_wizard_views import QUOTE, _result, _walk
from tests.quotes.wizard.wizard_cases import CASES

pytestmark = pytest.mark.django_db

NEW = {
    "company": "Initech",
    "contact_name": "Peter",
    "email": "p@initech.example",
    "country": "FR",
    "language": "en",
    "currency": "EUR",
    "is_business": "on",
}


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def signed_in(client, rep):
    client.force_login(rep)
    return client


def _new_quote(client) -> Quote:
    client.post(reverse("sales:quote_new"), NEW)
    return Quote.objects.get()


def _page(client, quote) -> str:
    return client.get(reverse("sales:quote_detail", args=[quote.pk])).content.decode()


def _flash(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def _post(client, name: str, quote, data: dict):
    return client.post(reverse(f"sales:{name}", args=[quote.pk]), data, follow=True)


def _section(page: str, section_id: str) -> str:
    return page.split(f'id="{section_id}"', 1)[1].split("</section>", 1)[0]


LLAMA_INFERENCE = {
    "task": "inference",
    "model": "llama-3.1-8b",
    "environment": "production",
    "growth_gpus": "0",
}


def test_the_empty_detailed_workload_as_a_browser_posts_it_is_no_workload(signed_in):
    # The page renders the empty JSON field as "null"; posting the form back unchanged must use
    # the fields above, not be refused as a body that is not an object.
    quote = _new_quote(signed_in)

    _post(signed_in, "workload_set", quote, LLAMA_INFERENCE | {"workload_json": "null"})

    quote.refresh_from_db()
    assert quote.snapshot["inputs"]["workload"] == {"task": "inference", "model": "llama-3.1-8b"}


def test_a_workload_gives_proposals_and_one_click_puts_a_balanced_server_on_the_quote(signed_in):
    quote = _new_quote(signed_in)

    _post(signed_in, "workload_set", quote, LLAMA_INFERENCE)

    quote.refresh_from_db()
    assert quote.snapshot["inputs"]["workload"] == {"task": "inference", "model": "llama-3.1-8b"}
    advice = build_services.quote_proposals_get(quote=quote)
    tiers = [str(option.tier) for option in advice.build.options]
    assert tiers
    assert tiers[0] == "budget"
    proposals = _section(_page(signed_in, quote), "workload")
    for tier in tiers:
        assert f'data-tier="{tier}"' in proposals

    response = _post(signed_in, "option_apply", quote, {"tier": tiers[0]})

    option = advice.build.options[0]
    lines = list(quote.current_revision.lines.order_by("position"))
    assert [(line.sku, line.quantity) for line in lines] == [
        (part.sku, part.quantity * option.servers) for part in option.parts
    ]
    assert [line.unit_price for line in lines] == [part.unit_price.amount for part in option.parts]
    checks = _section(response.content.decode(), "server-checks")
    assert "pass every check of the configuration builder" in checks
    assert "Checked against the needs of the quote's workload." in checks
    review = quote_server_review_get(quote=quote)
    assert review.passed
    assert review.with_workload


def test_applying_a_proposal_keeps_the_service_lines(signed_in, rep):
    quote = _new_quote(signed_in)
    _post(signed_in, "line_add_service", quote,
          {"kind": "service", "description": "Installation", "quantity": "1",
           "unit_price": "1500", "recurrence": "one_off", "discount_pct": "0"})  # fmt: skip
    build_services.quote_workload_set(
        user=rep, quote=quote, workload={"task": "inference", "model": "llama-3.1-8b"},
        environment="production",
    )  # fmt: skip

    build_services.quote_option_apply(user=rep, quote=quote, tier="budget")

    lines = list(quote.current_revision.lines.order_by("position"))
    assert lines[-1].description == "Installation"
    assert [line.position for line in lines] == list(range(1, len(lines) + 1))
    assert sum(line.kind == "part" for line in lines) == len(lines) - 1


def test_a_bad_workload_names_the_field_and_changes_nothing(signed_in):
    quote = _new_quote(signed_in)

    response = _post(
        signed_in,
        "workload_set",
        quote,
        LLAMA_INFERENCE | {"workload_json": '{"task": "inference", "model": "no-such-model"}'},
    )

    assert any("model" in text and "no-such-model" in text for text in _flash(response))
    quote.refresh_from_db()
    assert quote.snapshot == {}
    assert not QuoteEvent.objects.filter(quote=quote, kind="edited").exists()


def test_parts_by_hand_show_what_is_missing_and_sending_needs_an_acknowledgement(
    signed_in, django_capture_on_commit_callbacks
):
    quote = _new_quote(signed_in)
    _post(signed_in, "line_add_part", quote,
          {"sku": "NVIDIA-H100-SXM5-80GB", "quantity": "8", "discount_pct": "0"})  # fmt: skip
    checks = _section(_page(signed_in, quote), "server-checks")
    assert "No chassis in the lines." in checks
    assert "checked against the general rules for production" in checks
    assert 'name="acknowledge_checks"' in _page(signed_in, quote)

    refused = _post(signed_in, "quote_action", quote, {"action": "send"})

    assert any("fail 4 of the builder" in text for text in _flash(refused)), _flash(refused)
    assert any(text == "No chassis in the lines." for text in _flash(refused))
    quote.refresh_from_db()
    assert quote.status == "draft"
    assert mail.outbox == []

    with django_capture_on_commit_callbacks(execute=True):
        sent = _post(
            signed_in, "quote_action", quote, {"action": "send", "acknowledge_checks": "on"}
        )

    assert "Sent to the customer." in _flash(sent)
    quote.refresh_from_db()
    assert quote.status == "sent"
    event = QuoteEvent.objects.get(quote=quote, kind="status", to_status="sent")
    assert "No chassis in the lines." in event.data["sent_with_failed_checks"]
    assert len(mail.outbox) == 1


def test_an_unbalanced_hand_build_fails_the_named_rule(signed_in, rep):
    quote = _new_quote(signed_in)
    build_services.quote_workload_set(
        user=rep, quote=quote, workload={"task": "inference", "model": "llama-3.1-8b"},
        environment="production",
    )  # fmt: skip
    build_services.quote_option_apply(user=rep, quote=quote, tier="budget")
    memory = quote.current_revision.lines.get(sku__startswith="DDR5")  # the option's DIMMs

    _post(signed_in, "line_update", quote,
          {"position": memory.position, "quantity": "1", "discount_pct": "0"})  # fmt: skip

    review = quote_server_review_get(quote=quote)
    failed = {check.rule for check in review.checks if not check.passed}
    assert "system_ram" in failed
    page = _section(_page(signed_in, quote), "server-checks")
    assert re.search(r'class="check fail" data-rule="system_ram"', page)


def test_a_quote_from_the_wizard_keeps_the_customers_workload(client, signed_in, rep):
    anonymous = client.__class__()
    result = _result(_walk(anonymous, CASES["inference"]))
    anonymous.post(reverse("wizard:quote_request", kwargs={"token": result.token}), QUOTE)
    quote_request = QuoteRequest.objects.get()
    quote = services.quote_create_from_request(user=rep, quote_request=quote_request)

    review = quote_server_review_get(quote=quote)
    assert review.with_workload
    assert review.passed, [m.render() for m in review.failures]
    page = _page(signed_in, quote)
    assert "the server checks use the customer's workload" in page
    response = _post(signed_in, "workload_set", quote, LLAMA_INFERENCE | {"task": "pretraining"})
    assert any("workload stays theirs" in text for text in _flash(response))


def test_the_quote_pdf_carries_the_tco_chart_of_the_customers_result(client, signed_in, rep):
    anonymous = client.__class__()
    result = _result(_walk(anonymous, CASES["inference"]))
    anonymous.post(reverse("wizard:quote_request", kwargs={"token": result.token}), QUOTE)
    quote = services.quote_create_from_request(user=rep, quote_request=QuoteRequest.objects.get())
    tco = quote.snapshot["tco"]
    assert tco
    assert tco["options"]["on_premises"]["total"]

    response = signed_in.get(reverse("sales:quote_pdf", args=[quote.pk]))

    reader = PdfReader(io.BytesIO(response.content))
    text = re.sub(r"[\s\u00a0\u202f]+", " ", " ".join(p.extract_text() for p in reader.pages))
    years = tco["horizon_months"] // 12
    assert "Total cost of ownership (from your configuration)" in text
    assert f"{12 * years} Month" in text  # the month axis runs to the horizon
    labels = {"on_premises": "Buy", "managed": "Managed", "cloud": "Cloud"}
    for key, label in labels.items():  # the legend: each option's total over the horizon
        total = Decimal(tco["options"][key]["total"]).quantize(Decimal(1), ROUND_HALF_UP)
        assert f"{label} €{total:,}" in text, text[-600:]


def test_the_answer_notification_goes_out_once_even_when_the_task_runs_twice(
    rep, settings, django_capture_on_commit_callbacks
):
    settings.SALES_NOTIFICATION_EMAIL = "sales@example.com"
    quote = services.quote_create(
        user=rep, origin="staff", company="Acme", contact_name="Ada", email="ada@example.com",
        country="FR", lines=[services.LineInput(kind="service", description="Support",
                                                quantity=1, unit_price=100)],
    )  # fmt: skip
    services.quote_send(user=rep, quote=quote)
    with django_capture_on_commit_callbacks(execute=True):
        services.quote_customer_answer(token=quote.token, accept=True, name="Ada", reason="")
    answer = QuoteEvent.objects.get(quote=quote, kind="customer_answer")
    sent_before = len(mail.outbox)

    again = services.quote_answer_notify(event_id=answer.pk)

    assert again is False
    assert len(mail.outbox) == sent_before
    to_sales = [m for m in mail.outbox if m.to == ["sales@example.com"]]
    assert len(to_sales) == 1
    assert QuoteEvent.objects.filter(quote=quote, kind="staff_notified").count() == 1


def test_a_training_cluster_on_a_quote_is_reviewed_without_its_storage_network(signed_in):
    # The storage adapters are NICs sitting in the GPU servers, but they belong to the storage
    # network's design (a cluster line): the review checks the servers as the builder built them.
    quote = _new_quote(signed_in)
    cluster = {
        "task": "pretraining",
        "model": "resnet-50",
        "training": {"gpus": 16, "epochs": 1},
        "data": {"kind": "images", "total_gb": 50000},
    }
    _post(
        signed_in,
        "workload_set",
        quote,
        {
            "task": "pretraining",
            "environment": "production",
            "growth_gpus": "0",
            "workload_json": json.dumps(cluster),
        },
    )
    quote.refresh_from_db()
    advice = build_services.quote_proposals_get(quote=quote)
    assert advice is not None
    option = advice.build.options[0]
    assert [p.quantity for p in option.parts if p.role == "storage_adapter"] == [option.servers]

    _post(signed_in, "option_apply", quote, {"tier": str(option.tier)})

    roles = {line.role for line in quote.current_revision.lines.all()}
    assert {"storage_adapter", "storage_switch", "shared_storage"} <= roles
    review = quote_server_review_get(quote=quote)
    assert review is not None
    assert review.problems == ()
    assert review.passed
