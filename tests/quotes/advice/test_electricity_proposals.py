"""Eurostat electricity prices proposed by a feed: staff approve one into its region's
electricity price assumption (cited, TCO answers recomputed) or reject it, in the quotes admin.

The feed is the committed sample (illustrative values), a file source: no network."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from catalog.models import ElectricityPriceProposal, PriceSource, ReviewStatus
from catalog.services import price_source_refresh
from quotes.advice.electricity import (
    ElectricityReviewError,
    electricity_proposal_approve,
    electricity_proposal_reject,
)
from quotes.advice.selectors import assumptions_get, region_assumptions_version_get
from quotes.models import RegionAssumption

pytestmark = pytest.mark.django_db

CITATION_DE = "Eurostat nrg_pc_205, 2025-S1, band MWH2000-19999, excluding VAT"
CHANGELIST = "admin:catalog_electricitypriceproposal_changelist"


@pytest.fixture
def proposals() -> dict[str, ElectricityPriceProposal]:
    """The sample's proposals by country: DE, IE, GR, FR (all pending)."""
    source = PriceSource.objects.create(
        name="Eurostat electricity",
        kind="electricity",
        location="eurostat-nrg_pc_205.json",
        format="json",
        currency="EUR",
    )
    price_source_refresh(source_id=source.pk)
    return {p.country: p for p in ElectricityPriceProposal.objects.all()}


@pytest.fixture
def reviewer(django_user_model):
    user = django_user_model.objects.create_user(
        username="reviewer", password="not-a-real-password", is_staff=True
    )
    user.user_permissions.add(
        Permission.objects.get(codename="change_regionassumption"),
        Permission.objects.get(codename="view_electricitypriceproposal"),
    )
    return django_user_model.objects.get(pk=user.pk)  # permissions are cached per object


@pytest.fixture
def viewer(django_user_model):
    user = django_user_model.objects.create_user(
        username="viewer", password="not-a-real-password", is_staff=True
    )
    user.user_permissions.add(Permission.objects.get(codename="view_electricitypriceproposal"))
    return django_user_model.objects.get(pk=user.pk)


def electricity(region: str) -> tuple[Decimal, str]:
    assumption = assumptions_get(region=region, currency="EUR")["electricity_price_per_kwh"]
    return assumption.value, assumption.source


# --- The service --------------------------------------------------------------------------------


def test_approving_sets_the_regions_price_cited_and_the_answers_change(proposals, reviewer):
    version_before = region_assumptions_version_get()
    assert electricity("DE")[0] == Decimal("0.2001")  # the engine's built-in figure

    assumption = electricity_proposal_approve(proposal_id=proposals["DE"].pk, user=reviewer)

    assert (assumption.region, assumption.value, assumption.currency, assumption.source) == (
        "DE",
        Decimal("0.1876"),
        "EUR",
        CITATION_DE,
    )
    assert assumption.updated_by == reviewer
    assert region_assumptions_version_get() != version_before
    assert electricity("DE") == (Decimal("0.1876"), CITATION_DE)
    proposal = ElectricityPriceProposal.objects.get(pk=proposals["DE"].pk)
    assert (proposal.status, proposal.reviewed_by) == (ReviewStatus.APPROVED, reviewer)
    assert proposal.reviewed_at is not None
    others = ElectricityPriceProposal.objects.exclude(pk=proposal.pk)
    assert set(others.values_list("status", flat=True)) == {ReviewStatus.PENDING}


def test_approving_replaces_a_staff_edited_price_and_keeps_other_assumptions(proposals, reviewer):
    RegionAssumption.objects.create(
        region="FR", name="electricity_price_per_kwh", value="0.2", currency="EUR", source="Ours"
    )
    RegionAssumption.objects.create(region="FR", name="pue", value="1.3", source="Our site")

    electricity_proposal_approve(proposal_id=proposals["FR"].pk, user=reviewer)

    assert list(
        RegionAssumption.objects.order_by("name").values_list("name", "value", "source")
    ) == [
        (
            "electricity_price_per_kwh",
            Decimal("0.131500"),
            "Eurostat nrg_pc_205, 2024-S2, band MWH2000-19999, excluding VAT",
        ),
        ("pue", Decimal("1.300000"), "Our site"),
    ]


def test_a_euro_price_serves_a_dollar_tco_converted(proposals, reviewer):
    electricity_proposal_approve(proposal_id=proposals["DE"].pk, user=reviewer)

    in_dollars = assumptions_get(region="DE", currency="USD")["electricity_price_per_kwh"]

    assert in_dollars.value != Decimal("0.1876")  # converted from EUR, not relabelled
    assert CITATION_DE in in_dollars.source


def test_a_country_without_a_tco_region_cannot_be_approved(proposals, reviewer):
    with pytest.raises(ElectricityReviewError, match="IE is not a TCO region"):
        electricity_proposal_approve(proposal_id=proposals["IE"].pk, user=reviewer)

    assert ElectricityPriceProposal.objects.get(pk=proposals["IE"].pk).status == "pending"
    assert not RegionAssumption.objects.exists()


def test_a_reviewed_proposal_is_not_reviewed_again(proposals, reviewer):
    electricity_proposal_reject(proposal_id=proposals["DE"].pk, user=reviewer)

    with pytest.raises(ElectricityReviewError, match="reviewed already"):
        electricity_proposal_approve(proposal_id=proposals["DE"].pk, user=reviewer)

    proposal = ElectricityPriceProposal.objects.get(pk=proposals["DE"].pk)
    assert (proposal.status, proposal.reviewed_by) == (ReviewStatus.REJECTED, reviewer)
    assert not RegionAssumption.objects.exists()


def test_only_who_may_change_regional_assumptions_reviews(proposals, viewer):
    for review in (electricity_proposal_approve, electricity_proposal_reject):
        with pytest.raises(ElectricityReviewError, match="Only staff"):
            review(proposal_id=proposals["DE"].pk, user=viewer)

    assert ElectricityPriceProposal.objects.get(pk=proposals["DE"].pk).status == "pending"
    assert not RegionAssumption.objects.exists()


# --- The admin ----------------------------------------------------------------------------------


def test_the_list_shows_the_current_regional_price_beside_the_proposed_one(
    client, proposals, reviewer
):
    RegionAssumption.objects.create(
        region="FR", name="electricity_price_per_kwh", value="0.2", currency="EUR", source="Ours"
    )
    client.force_login(reviewer)

    page = client.get(reverse(CHANGELIST))

    assert page.status_code == 200
    text = page.content.decode()
    assert "0.2 EUR/kWh" in text  # FR: the staff's row
    assert "0.2001 EUR/kWh (built-in)" in text  # DE: no row, the engine's figure
    assert "— (not a TCO region)" in text  # IE
    assert ">Approve: set the regions&#x27; electricity price<" in text


def test_the_approve_action_sets_the_price_and_skips_what_it_cannot(client, proposals, reviewer):
    client.force_login(reviewer)
    chosen = [proposals["DE"].pk, proposals["IE"].pk]

    done = client.post(
        reverse(CHANGELIST),
        {"action": "approve", "_selected_action": chosen},
        follow=True,
    )

    assert done.status_code == 200
    text = done.content.decode()
    assert "1 electricity price approved: its region&#x27;s assumption is set." in text
    assert "IE is not a TCO region" in text
    assert RegionAssumption.objects.get().source == CITATION_DE
    statuses = dict(ElectricityPriceProposal.objects.values_list("country", "status"))
    assert statuses == {"DE": "approved", "IE": "pending", "GR": "pending", "FR": "pending"}


def test_the_reject_action_marks_the_proposals(client, proposals, reviewer):
    client.force_login(reviewer)

    client.post(
        reverse(CHANGELIST),
        {"action": "reject", "_selected_action": [proposals["GR"].pk]},
    )

    assert ElectricityPriceProposal.objects.get(pk=proposals["GR"].pk).status == "rejected"


def test_without_the_change_permission_there_is_no_review_action(client, proposals, viewer):
    client.force_login(viewer)

    page = client.get(reverse(CHANGELIST))
    refused = client.post(
        reverse(CHANGELIST),
        {"action": "approve", "_selected_action": [proposals["DE"].pk]},
    )

    assert page.status_code == 200
    assert "Approve: set the regions" not in page.content.decode()
    assert refused.status_code in (200, 302)
    assert ElectricityPriceProposal.objects.get(pk=proposals["DE"].pk).status == "pending"
    assert not RegionAssumption.objects.exists()
