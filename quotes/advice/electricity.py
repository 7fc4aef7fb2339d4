"""Staff review of the electricity prices a Eurostat feed proposes (``catalog.services.
electricity``): approving one sets its region's ``electricity_price_per_kwh`` assumption.

The proposed price is in EUR/kWh, excluding VAT, and is stored as such: a regional assumption
carries its own currency and the engine converts it for a TCO in another currency, with the
conversion stated, as it does for the built-in figures. Saving the assumption changes the data
version (``quotes.advice.selectors.region_assumptions_version_get`` hashes the rows; the save
signal makes this process read it again at once), so TCO answers are computed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from catalog.models import ElectricityPriceProposal, ReviewStatus
from engine.assumptions import REGIONS, AssumptionError, assumption_validate
from quotes.models import RegionAssumption

ELECTRICITY_ASSUMPTION = "electricity_price_per_kwh"
PROPOSAL_CURRENCY = "EUR"  # nrg_pc_205 is read in EUR (catalog.feeds.electricity)
REVIEW_PERMISSION = "quotes.change_regionassumption"


class ElectricityReviewError(ValueError):
    """The proposal cannot be reviewed: reviewed already, no such region, not allowed."""


@dataclass(frozen=True)
class RegionElectricityPrice:
    """A region's electricity price assumption as staff set it (or as it was seeded)."""

    value: Decimal
    currency: str
    source: str


def electricity_proposal_approve(*, proposal_id: int, user: Any) -> RegionAssumption:
    """Set the proposal's region's electricity price to the proposed one, cited, in one
    transaction; mark the proposal approved by ``user``, now."""
    with transaction.atomic():
        proposal = _proposal_for_review(proposal_id=proposal_id, user=user)
        if proposal.country not in REGIONS:
            raise ElectricityReviewError(
                gettext("%(country)s is not a TCO region (regions: %(regions)s).")
                % {"country": proposal.country, "regions": ", ".join(REGIONS)}
            )
        try:
            value = assumption_validate(
                ELECTRICITY_ASSUMPTION, proposal.eur_per_kwh, PROPOSAL_CURRENCY
            )
        except AssumptionError as exc:
            raise ElectricityReviewError(exc.message.render(gettext, ngettext)) from exc
        assumption = _region_price_set(proposal=proposal, value=value, user=user)
        _reviewed(proposal, ReviewStatus.APPROVED, user)
    return assumption


def electricity_proposal_reject(*, proposal_id: int, user: Any) -> ElectricityPriceProposal:
    """Mark the proposal rejected by ``user``, now; the same price is not proposed again."""
    with transaction.atomic():
        proposal = _proposal_for_review(proposal_id=proposal_id, user=user)
        _reviewed(proposal, ReviewStatus.REJECTED, user)
    return proposal


def region_electricity_prices_get(*, countries: set[str]) -> dict[str, RegionElectricityPrice]:
    """The staff's current electricity price per region among ``countries`` (one query)."""
    return {
        region: RegionElectricityPrice(value, currency, source)
        for region, value, currency, source in RegionAssumption.objects.filter(
            region__in=countries, name=ELECTRICITY_ASSUMPTION
        ).values_list("region", "value", "currency", "source")
    }


def _proposal_for_review(*, proposal_id: int, user: Any) -> ElectricityPriceProposal:
    if not user.has_perm(REVIEW_PERMISSION):
        raise ElectricityReviewError(
            gettext("Only staff who may change regional assumptions review electricity prices.")
        )
    proposal = ElectricityPriceProposal.objects.select_for_update().get(pk=proposal_id)
    if proposal.status != ReviewStatus.PENDING:
        raise ElectricityReviewError(
            gettext("%(proposal)s: reviewed already.") % {"proposal": proposal}
        )
    return proposal


def _region_price_set(
    *, proposal: ElectricityPriceProposal, value: Decimal, user: Any
) -> RegionAssumption:
    """Save (not a bulk update): the save signal drops this process's versions at once."""
    assumption = (
        RegionAssumption.objects.select_for_update()
        .filter(region=proposal.country, name=ELECTRICITY_ASSUMPTION)
        .first()
    ) or RegionAssumption(region=proposal.country, name=ELECTRICITY_ASSUMPTION)
    assumption.value = value
    assumption.currency = PROPOSAL_CURRENCY
    assumption.source = proposal.citation
    assumption.updated_by = user
    assumption.save()
    return assumption


def _reviewed(proposal: ElectricityPriceProposal, status: str, user: Any) -> None:
    proposal.status = status
    proposal.reviewed_by, proposal.reviewed_at = user, timezone.now()
    proposal.save(update_fields=["status", "reviewed_by", "reviewed_at"])
