"""Sales quotes, the services: numbering, frozen prices, revisions, the workflow, VAT, expiry."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from engine.advice.pipeline import tco_configuration
from engine.assumptions import region_defaults
from engine.build.builder import BuildResult
from engine.tco import managed_offer
from quotes.models import Quote, QuoteEvent, QuoteLine, QuoteRequest, QuoteRevision
from quotes.sales import services
from quotes.sales.selectors import revision_totals_get
from quotes.tasks import expire_quotes
from tests.factories import advice_result_build, gpu_make, price_make, stored_result_make

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 12, 2)


def _user(django_user_model, name: str, group: str | None):
    user = django_user_model.objects.create_user(username=name, password="not-a-real-password")
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


@pytest.fixture
def manager(django_user_model):
    return _user(django_user_model, "manager", services.MANAGER_GROUP)


@pytest.fixture
def gpu():
    part = gpu_make(sku="GPU-H100")
    price_make(part, amount=Decimal("25000.00"), observed_on=dt.date(2026, 11, 1))
    return part


def quote_make(user, *, country="FR", vat_number="", is_business=True, lines=None, **extra):
    if lines is None:
        lines = [
            services.LineInput(
                kind="part",
                sku="GPU-H100",
                description="H100",
                quantity=Decimal(2),
                unit_price=Decimal("25000.00"),
            )
        ]
    return services.quote_create(
        user=user,
        origin="staff",
        company="Acme",
        contact_name="Ada",
        email="ada@example.com",
        country=country,
        vat_number=vat_number,
        is_business=is_business,
        lines=lines,
        today=TODAY,
        **extra,
    )


def sent_quote_make(user, **kwargs):
    """A quote as the customer gets it: created, then sent (a quote never sent has no customer
    page)."""
    quote = quote_make(user, **kwargs)
    services.quote_send(user=user, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    quote.refresh_from_db()
    return quote


def totals(quote):
    quote.refresh_from_db()
    return revision_totals_get(quote=quote, revision=quote.current_revision)


# --- Numbering -------------------------------------------------------------------------------


def test_numbers_are_consecutive_per_year(rep):
    year = timezone.now().year
    first, second = quote_make(rep), quote_make(rep)
    assert first.number == f"Q-{year}-00001"
    assert second.number == f"Q-{year}-00002"


def test_a_number_is_never_reused_after_a_deletion(rep):
    first = quote_make(rep)
    Quote.objects.filter(pk=first.pk).update(current_revision=None)
    first.delete()
    assert quote_make(rep).sequence == 2


def test_the_year_s_counter_is_locked_last_after_every_other_write_of_the_quote(rep):
    """Concurrent creations queue on the counter row until the commit: it is taken after the
    quote, its revision, lines and event are written, so they queue for the numbering alone."""
    with CaptureQueriesContext(connection) as queries:
        quote = quote_make(rep)

    sql = [query["sql"] for query in queries.captured_queries]
    counter = next(i for i, q in enumerate(sql) if "quotes_quotecounter" in q)
    writes = [
        i
        for i, q in enumerate(sql)
        if q.startswith(("INSERT", "UPDATE")) and "quotes_quotecounter" not in q
    ]
    numbered = writes[-1]  # the quote's number, set after the counter moved
    assert 'UPDATE "quotes_quote" SET "number"' in sql[numbered]
    assert all(i < counter for i in writes[:-1])  # quote, revision, lines, event: before
    assert sum('INSERT INTO "quotes_quoteline"' in q for q in sql[:counter]) == 1
    quote.refresh_from_db()
    assert (quote.number, quote.sequence) == (f"Q-{quote.year}-00001", 1)


def test_an_unnumbered_quote_cannot_be_committed_with_a_number_shaped_placeholder(rep):
    quote = quote_make(rep)

    with pytest.raises(IntegrityError), transaction.atomic():
        Quote.objects.filter(pk=quote.pk).update(sequence=None)  # "Q-..." without its sequence


@pytest.mark.django_db(transaction=True)
def test_concurrent_creation_gives_distinct_consecutive_numbers(django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises every write; row locks need PostgreSQL (DATABASE_URL)")
    user = _user(django_user_model, "rep", services.REP_GROUP)
    numbers, errors = [], []

    def create():
        try:
            numbers.append(quote_make(user).sequence)
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(numbers) == list(range(1, 9))


# --- Roles -----------------------------------------------------------------------------------


def test_role_comes_from_groups(rep, manager, django_user_model, staff_user):
    outsider = _user(django_user_model, "outsider", None)
    assert services.user_role(rep) == "sales_rep"
    assert services.user_role(manager) == "sales_manager"
    assert services.user_role(staff_user) == "sales_manager"  # superuser
    with pytest.raises(PermissionDenied):
        services.user_role(outsider)
    with pytest.raises(PermissionDenied):
        quote_make(outsider)
    assert Quote.objects.count() == 0


# --- Frozen prices and revisions ---------------------------------------------------------------


def test_line_price_is_frozen_when_added(rep, gpu):
    quote = quote_make(rep, lines=[])
    services.quote_line_add_part(user=rep, quote=quote, sku="GPU-H100", quantity=Decimal(1))
    price_make(gpu, amount=Decimal("30000.00"), observed_on=dt.date(2026, 11, 20))
    line = QuoteLine.objects.get(revision__quote=quote)
    assert line.unit_price == Decimal("25000.00")
    assert totals(quote).one_off.net.amount == Decimal("25000.00")


def test_reprice_makes_a_new_revision_with_todays_prices(rep, gpu):
    quote = quote_make(rep, lines=[])
    services.quote_line_add_part(user=rep, quote=quote, sku="GPU-H100", quantity=Decimal(1))
    price_make(gpu, amount=Decimal("30000.00"), observed_on=dt.date(2026, 11, 20))
    revision = services.quote_reprice(user=rep, quote=quote)
    quote.refresh_from_db()
    assert revision.label == "B"
    assert quote.current_revision == revision
    old = QuoteRevision.objects.get(quote=quote, index=0)
    assert [line.unit_price for line in old.lines.all()] == [Decimal("25000.00")]
    assert [line.unit_price for line in revision.lines.all()] == [Decimal("30000.00")]


def test_price_in_the_other_currency_is_converted_at_the_recorded_rate(rep, gpu):
    quote = quote_make(rep, lines=[], currency="USD", exchange_rate=Decimal("1.1"))
    line = services.quote_line_add_part(user=rep, quote=quote, sku="GPU-H100", quantity=Decimal(1))
    assert (line.unit_price, line.source_currency, line.exchange_rate) == (
        Decimal("27500.00"),
        "EUR",
        Decimal("1.1"),
    )


def test_editing_a_sent_quote_creates_revision_b(rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(5),
        valid_until=TODAY + dt.timedelta(30),
        contract_months=12,
        today=TODAY,
    )
    quote.refresh_from_db()
    assert quote.status == "draft"
    assert quote.current_revision.label == "B"
    first = QuoteRevision.objects.get(quote=quote, index=0)
    assert first.discount_pct == 0  # the sent revision is untouched
    assert first.sent_totals["one_off"]["total"] == "60000.00"
    assert quote.current_revision.discount_pct == Decimal(5)


# --- The workflow through the services ----------------------------------------------------------


def test_send_then_accept(rep, django_capture_on_commit_callbacks):
    quote = quote_make(rep)
    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    services.quote_answer_record(user=rep, quote=quote, accept=True, today=TODAY)
    quote.refresh_from_db()
    assert quote.status == "accepted"
    assert list(quote.events.values_list("kind", "to_status")) == [
        ("created", "draft"),
        ("status", "sent"),
        ("email_sent", ""),
        ("status", "accepted"),
    ]


def test_send_then_decline_then_revise(rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    services.quote_answer_record(user=rep, quote=quote, accept=False, today=TODAY)
    services.quote_reprice(user=rep, quote=quote, today=TODAY)
    quote.refresh_from_db()
    assert (quote.status, quote.current_revision.label) == ("draft", "B")


def _send(q, u):
    services.quote_send(user=u, quote=q, today=TODAY, failed_checks_acknowledged=True)


def _accept(q, u):
    services.quote_answer_record(user=u, quote=q, accept=True, today=TODAY)


def _decline(q, u):
    services.quote_answer_record(user=u, quote=q, accept=False, today=TODAY)


def _sent_and_accepted(q, u):
    _send(q, u)
    _accept(q, u)


def _nothing(q, u):
    return None


def _reprice(q, u):
    services.quote_reprice(user=u, quote=q, today=TODAY)


def _remove_line(q, u):
    services.quote_line_remove(user=u, quote=q, position=1, today=TODAY)


REVISABLE = "Only a sent, declined or expired quote can be revised"


@pytest.mark.parametrize(
    ("setup", "call", "message"),
    [
        (_nothing, _accept, "Only a sent quote can be accepted"),
        (_nothing, _decline, "Only a sent quote can be declined"),
        (_send, _send, "Only a draft can be sent"),
        (_sent_and_accepted, _reprice, REVISABLE),
        (_sent_and_accepted, _remove_line, REVISABLE),
        (_sent_and_accepted, _decline, "Only a sent quote can be declined"),
    ],
)
def test_forbidden_transitions_change_nothing(rep, setup, call, message):
    quote = quote_make(rep)
    setup(quote, rep)
    quote.refresh_from_db()
    before = (quote.status, quote.current_revision_id, QuoteEvent.objects.count())
    with pytest.raises(ValidationError, match=message):
        call(quote, rep)
    quote.refresh_from_db()
    assert (quote.status, quote.current_revision_id, QuoteEvent.objects.count()) == before


def test_a_quote_without_lines_cannot_be_sent(rep):
    quote = quote_make(rep, lines=[])
    with pytest.raises(ValidationError, match="without lines"):
        services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)


def test_a_quote_past_its_validity_cannot_be_sent_or_accepted(rep):
    quote = quote_make(rep)
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    late = TODAY + dt.timedelta(days=31)
    with pytest.raises(ValidationError, match="was valid until"):
        services.quote_answer_record(user=rep, quote=quote, accept=True, today=late)


# --- Discount approval ------------------------------------------------------------------------


def test_discount_over_threshold_needs_a_manager(rep, manager):
    quote = quote_make(rep)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(15),
        valid_until=TODAY + dt.timedelta(30),
        contract_months=12,
        today=TODAY,
    )
    with pytest.raises(ValidationError, match="must approve it before the quote is sent"):
        services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    with pytest.raises(ValidationError, match="Only a sales manager can approve"):
        services.quote_discount_approve(user=rep, quote=quote, today=TODAY)
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    quote.refresh_from_db()
    revision = quote.current_revision
    assert (revision.approved_discount_pct, revision.approved_by) == (Decimal("15.00"), manager)
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    quote.refresh_from_db()
    assert quote.status == "sent"


def test_raising_an_approved_discount_needs_a_new_approval(rep, manager):
    quote = quote_make(rep)
    valid = TODAY + dt.timedelta(30)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(15),
        valid_until=valid,
        contract_months=12,
        today=TODAY,
    )
    services.quote_discount_approve(user=manager, quote=quote, today=TODAY)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(20),
        valid_until=valid,
        contract_months=12,
        today=TODAY,
    )
    with pytest.raises(ValidationError, match="must approve"):
        services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)


def test_discount_at_the_threshold_needs_no_approval(rep):
    quote = quote_make(rep)
    services.quote_terms_update(
        user=rep,
        quote=quote,
        discount_pct=Decimal(10),
        valid_until=TODAY + dt.timedelta(30),
        contract_months=12,
        today=TODAY,
    )
    services.quote_send(user=rep, quote=quote, today=TODAY, failed_checks_acknowledged=True)
    quote.refresh_from_db()
    assert quote.status == "sent"


# --- VAT, end to end --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("country", "vat_number", "is_business", "rate", "total", "note"),
    [
        ("FR", "", True, "20", "60000.00", None),
        ("FR", "", False, "20", "60000.00", None),
        ("DE", "DE136695976", True, "0", "50000.00", "intra-Community"),
        ("DE", "", True, "20", "60000.00", "reverse charge"),
        ("DE", "", False, "20", "60000.00", None),
        ("US", "", True, "0", "50000.00", "export"),
    ],
)
def test_vat_cases(rep, country, vat_number, is_business, rate, total, note):
    quote = quote_make(rep, country=country, vat_number=vat_number, is_business=is_business)
    figures = totals(quote)
    assert figures.vat_rate_pct == Decimal(rate)
    assert figures.one_off.total.amount == Decimal(total)
    if note is None:
        assert figures.vat_note is None or country != "FR"
    else:
        assert note.lower() in figures.vat_note.render().lower()


# --- From a wizard request ----------------------------------------------------------------------


def wizard_request_make(*, deployment="managed") -> QuoteRequest:
    """A request on a stored result whose balanced option is 2 servers of 8 H100."""
    result = stored_result_make(language="fr", advice=advice_result_build(deployment=deployment))
    return QuoteRequest.objects.create(
        result=result,
        name="Ada",
        company="Acme",
        email="ada@example.com",
        country="FR",
        consent=True,
    )


def test_quote_from_a_wizard_request(rep, gpu):
    quote_request = wizard_request_make()
    quote = services.quote_create_from_request(user=rep, quote_request=quote_request)
    lines = list(
        quote.current_revision.lines.values_list(
            "kind", "sku", "quantity", "unit_price", "recurrence", "role"
        )
    )
    # Managed hosting: the host's fee for the 36-month contract a 3-year horizon signs, per
    # server, and its setup; no hardware is sold. The result's catalog fee (4,500 EUR per
    # server) is below the payback of a 230,000 EUR server over 36 months: raised to it.
    chosen = advice_result_build().chosen
    assert chosen is not None
    offer = managed_offer(
        tco_configuration(chosen),
        region_defaults("FR", "EUR", gpu_model="NVIDIA H100"),
    )
    contract = offer.term(36)
    assert offer.override_below_floor
    assert contract.monthly == contract.floor
    assert lines == [
        ("service", "", Decimal("2.00"), contract.monthly.amount, "monthly", "managed_hosting"),
        ("service", "", Decimal("2.00"), contract.setup.amount, "one_off", "managed_setup"),
    ]
    description = quote.current_revision.lines.get(role="managed_hosting").description
    # The request's result is in French: the quote's words are the customer's
    assert "contrat de 36 mois, remise d'engagement de 10 % incluse" in description
    assert (quote.origin, quote.language, quote.current_revision.contract_months) == (
        "wizard",
        "fr",
        36,
    )
    assert quote.snapshot["option"]["tier"] == "balanced"
    quote_request.refresh_from_db()
    assert quote_request.status == "handled"
    # A second click returns the same quote.
    assert services.quote_create_from_request(user=rep, quote_request=quote_request) == quote
    assert Quote.objects.count() == 1


def test_an_on_premises_quote_sells_the_parts_and_no_hosting(rep):
    quote = services.quote_create_from_request(
        user=rep, quote_request=wizard_request_make(deployment="on_premises")
    )
    lines = list(
        quote.current_revision.lines.values_list("sku", "quantity", "unit_price", "recurrence")
    )
    assert lines == [
        ("CHS-1", Decimal("2.00"), Decimal("30000.00"), "one_off"),
        ("GPU-H100", Decimal("16.00"), Decimal("25000.00"), "one_off"),
    ]


# --- Expiry -------------------------------------------------------------------------------------


def test_expiry_task_is_idempotent(rep):
    quote = quote_make(rep)
    sent = quote_make(rep)
    services.quote_send(user=rep, quote=sent, today=TODAY, failed_checks_acknowledged=True)
    QuoteRevision.objects.update(valid_until=timezone.localdate() - dt.timedelta(days=1))
    assert expire_quotes.delay().get() == 2
    assert expire_quotes.delay().get() == 0
    assert set(Quote.objects.values_list("status", flat=True)) == {"expired"}
    assert QuoteEvent.objects.filter(quote=quote, to_status="expired", actor=None).count() == 1


def test_setup_roles_is_idempotent():
    call_command("setup_roles")
    call_command("setup_roles")
    manager = Group.objects.get(name="sales manager")
    assert manager.permissions.filter(codename="approve_discount").exists()
    assert (
        not Group.objects.get(name="sales rep")
        .permissions.filter(codename="approve_discount")
        .exists()
    )
    # The service tiers are the sales team's prices: managers edit them, reps read them.
    tiers = {"view_servicetier", "add_servicetier", "change_servicetier"}
    held = set(manager.permissions.values_list("codename", flat=True))
    assert tiers <= held
    assert "delete_servicetier" not in held
    rep_held = set(
        Group.objects.get(name="sales rep").permissions.values_list("codename", flat=True)
    )
    assert rep_held & tiers == {"view_servicetier"}


@pytest.mark.parametrize(
    "stored",
    [
        {"schema": 1, "inputs": {}, "by_language": {}},  # an earlier schema: figures unreadable
        "nothing fits",  # a current result whose workload fits no configuration
    ],
)
def test_a_result_without_a_readable_configuration_is_not_quoted(rep, stored):
    if stored == "nothing fits":
        advice = dataclasses.replace(
            advice_result_build(), chosen_tier=None, build=BuildResult(options=(), unmet=())
        )
        result = stored_result_make(advice=advice)
    else:
        result = stored_result_make(result=stored)
    customer = {"company": "Acme", "contact_name": "Ada", "email": "a@example.com", "country": "FR"}
    with pytest.raises(ValidationError, match="create one by hand"):
        services.quote_create_from_result(
            user=rep, result=result, customer=customer, origin="wizard"
        )
    assert Quote.objects.count() == 0
