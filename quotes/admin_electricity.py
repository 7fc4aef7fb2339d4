"""The review of the electricity prices a Eurostat feed proposes, beside the regional assumption
each would replace: approving sets the region's electricity price (``quotes.advice.
electricity``), rejecting keeps it. The proposals live in the catalog, which never imports
quotes; the review is here because it writes a regional assumption."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from catalog.models import ElectricityPriceProposal, ReviewStatus
from engine.assumptions import REGIONS, builtin_facts
from quotes.advice.electricity import (
    ELECTRICITY_ASSUMPTION,
    REVIEW_PERMISSION,
    ElectricityReviewError,
    electricity_proposal_approve,
    electricity_proposal_reject,
)
from quotes.models import RegionAssumption

Review = Callable[..., Any]


@admin.register(ElectricityPriceProposal)
class ElectricityPriceProposalAdmin(admin.ModelAdmin):
    """Written by the feed only: listed, shown, approved or rejected, never edited."""

    list_display = (
        "country",
        "period",
        "eur_per_kwh",
        "region_price",
        "band",
        "tax",
        "status",
        "price_source",
        "created_at",
        "reviewed_by",
        "reviewed_at",
    )
    list_filter = ("status", "country", "period")
    search_fields = ("country", "period")
    list_select_related = ("price_source", "reviewed_by")
    actions = ["approve", "reject"]
    fields = (
        "status",
        "country",
        "period",
        "band",
        "tax",
        "eur_per_kwh",
        "region_price",
        "price_source",
        "run",
        "created_at",
        "reviewed_by",
        "reviewed_at",
    )
    readonly_fields = fields

    def get_queryset(self, request) -> QuerySet[ElectricityPriceProposal]:
        """Each proposal with its region's current electricity price (two subqueries)."""
        current = RegionAssumption.objects.filter(
            region=OuterRef("country"), name=ELECTRICITY_ASSUMPTION
        )
        return (
            super()
            .get_queryset(request)
            .annotate(
                region_value=Subquery(current.values("value")[:1]),
                region_currency=Subquery(current.values("currency")[:1]),
            )
        )

    @admin.display(description=_("current regional price"))
    def region_price(self, obj: ElectricityPriceProposal) -> str:
        value = getattr(obj, "region_value", None)
        if value is not None:
            return f"{value.normalize()} {getattr(obj, 'region_currency', '')}/kWh"
        if obj.country not in REGIONS:
            return str(_("— (not a TCO region)"))
        fact = builtin_facts(obj.country).get(ELECTRICITY_ASSUMPTION)
        if fact is None:
            return "—"
        built_in = _("built-in")
        return f"{fact.value.normalize()} {fact.currency or ''}/kWh ({built_in})"

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_review_permission(self, request) -> bool:
        """Approving sets a regional assumption: it needs the right to change one."""
        return request.user.has_perm(REVIEW_PERMISSION)

    @admin.action(
        description=_("Approve: set the regions' electricity price"), permissions=["review"]
    )
    def approve(self, request, queryset) -> None:
        self._review(request, queryset, electricity_proposal_approve, approved=True)

    @admin.action(description=_("Reject the selected electricity prices"), permissions=["review"])
    def reject(self, request, queryset) -> None:
        self._review(request, queryset, electricity_proposal_reject, approved=False)

    def _review(self, request, queryset, review: Review, *, approved: bool) -> None:
        done = 0
        for proposal in queryset.filter(status=ReviewStatus.PENDING):
            try:
                review(proposal_id=proposal.pk, user=request.user)
            except ElectricityReviewError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                done += 1
        if approved:
            text = ngettext(
                "%(count)d electricity price approved: its region's assumption is set.",
                "%(count)d electricity prices approved: their regions' assumptions are set.",
                done,
            )
        else:
            text = ngettext(
                "%(count)d electricity price rejected.",
                "%(count)d electricity prices rejected.",
                done,
            )
        self.message_user(request, text % {"count": done}, messages.SUCCESS)
        skipped = queryset.exclude(status=ReviewStatus.PENDING).count()
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(count)d proposal was reviewed already and left as it is.",
                    "%(count)d proposals were reviewed already and left as they are.",
                    skipped,
                )
                % {"count": skipped},
                messages.WARNING,
            )
