"""Sales quotes: numbering, the quote and its revisions, lines and history.

A quote's figures are never stored: the lines are (frozen prices, copied from the catalog when
the line is added), and ``engine.commerce.pricing.price_quote`` derives every total from them. The
only copy of totals is ``QuoteRevision.sent_totals``, written once when a revision is sent, so the
document the customer received can be told apart from what the lines give today (they give the
same figures: the lines of a sent revision never change).
"""

from __future__ import annotations

import secrets
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_countries import countries
from django_countries.fields import Country, CountryField

from engine.commerce.exchange import built_in_rates, inverse_published
from engine.commerce.pricing import LineKind, Recurrence
from engine.commerce.workflow import QuoteStatus
from gpuquote.core.choices import choices_of, values_of
from gpuquote.core.countries import COUNTRY_MESSAGE, vat_number_clean
from quotes.advice.inputs import (
    CURRENCIES,
    CURRENCY_CHOICES,
    DEFAULT_CURRENCY,
    DEFAULT_LANGUAGE,
    language_choices,
)
from quotes.models.advice import QuoteRequest, country_iso2_condition


def quote_token_new() -> str:
    """The customer's private link: 256 bits, URL-safe."""
    return secrets.token_urlsafe(32)


class QuoteCounter(models.Model):
    """The last sequence number handed out in a year; locked (``select_for_update``) to number
    a new quote, so two quotes never share a number and no number is ever reused."""

    year = models.PositiveSmallIntegerField(_("year"), unique=True)
    last = models.PositiveIntegerField(_("last sequence number"), default=0)

    class Meta:
        verbose_name = _("quote counter")
        verbose_name_plural = _("quote counters")

    def __str__(self) -> str:
        return f"{self.year}: {self.last}"


class QuoteOrigin(models.TextChoices):
    WIZARD = "wizard", _("wizard")
    STAFF = "staff", _("staff")
    PARTNER_API = "partner_api", _("partner API")


QUOTE_STATUS_CHOICES = choices_of(
    QuoteStatus,
    {
        QuoteStatus.DRAFT: _("draft"),
        QuoteStatus.SENT: _("sent"),
        QuoteStatus.ACCEPTED: _("accepted"),
        QuoteStatus.DECLINED: _("declined"),
        QuoteStatus.EXPIRED: _("expired"),
    },
)


# A quote's number until it is numbered, inside the transaction that creates it.
UNNUMBERED_PREFIX = "~"


class Quote(models.Model):
    """A sales quote: the customer, the currency, the workflow status of its latest revision and
    the snapshot of what it was made from. Lines, discount and validity live on revisions."""

    number = models.CharField(_("number"), max_length=20, unique=True, editable=False)
    year = models.PositiveSmallIntegerField(_("year"), editable=False)
    # Null only inside the transaction that creates the quote: it is numbered last, so the
    # year's counter row is locked for the numbering alone (quotes.sales.services.numbering).
    sequence = models.PositiveIntegerField(_("sequence"), null=True, editable=False)
    origin = models.CharField(_("origin"), max_length=16, choices=QuoteOrigin.choices)
    status = models.CharField(
        _("status"),
        max_length=16,
        choices=QUOTE_STATUS_CHOICES,
        default=QuoteStatus.DRAFT.value,
    )
    company = models.CharField(_("company"), max_length=160)
    contact_name = models.CharField(_("contact"), max_length=120)
    email = models.EmailField(_("e-mail"), max_length=254)
    country: models.Field[Country | str, Country] = CountryField(
        _("country"),
        help_text=_("ISO 3166-1 alpha-2 code."),
        error_messages={"invalid_choice": COUNTRY_MESSAGE},
    )
    vat_number = models.CharField(_("VAT number"), max_length=20, blank=True)
    is_business = models.BooleanField(_("business customer"), default=True)
    language = models.CharField(
        _("language"), max_length=8, choices=language_choices(), default=DEFAULT_LANGUAGE
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=CURRENCY_CHOICES, default=DEFAULT_CURRENCY
    )
    exchange_rate = models.DecimalField(
        _("exchange rate"),
        max_digits=12,
        decimal_places=6,
        null=True,
        blank=True,
        help_text=_("Quote currency per unit of the other currency, for catalog prices in it."),
    )
    # Set with the ECB's reference rate the quote defaulted to; empty when staff typed the rate.
    exchange_rate_date = models.DateField(
        _("exchange rate date"),
        null=True,
        blank=True,
        help_text=_("The date of the reference rate used; empty for a rate typed by staff."),
    )
    exchange_rate_source = models.CharField(_("exchange rate source"), max_length=200, blank=True)
    snapshot = models.JSONField(
        _("snapshot"),
        default=dict,
        blank=True,
        help_text=_("The workload, configuration, TCO and assumptions the quote was made from."),
    )
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=quote_token_new, editable=False
    )
    request = models.ForeignKey(
        QuoteRequest,
        verbose_name=_("quote request"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quotes",
    )
    partner = models.ForeignKey(
        "quotes.Partner",
        verbose_name=_("partner"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quotes",
        help_text=_("The API partner that created the quote; it alone sees it over the API."),
    )
    current_revision = models.ForeignKey(
        "QuoteRevision",
        verbose_name=_("current revision"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        permissions = [("approve_discount", _("Can approve a discount above the threshold"))]
        constraints = [
            models.UniqueConstraint(
                fields=["year", "sequence"], name="%(app_label)s_%(class)s_unique_year_sequence"
            ),
            models.CheckConstraint(
                condition=Q(sequence__gte=1), name="%(app_label)s_%(class)s_sequence_gte_1"
            ),
            models.CheckConstraint(
                condition=Q(sequence__isnull=False) | Q(number__startswith=UNNUMBERED_PREFIX),
                name="%(app_label)s_%(class)s_unnumbered_placeholder",
            ),
            models.CheckConstraint(
                condition=Q(status__in=values_of(QuoteStatus)),
                name="%(app_label)s_%(class)s_status_known",
            ),
            models.CheckConstraint(
                condition=Q(origin__in=QuoteOrigin.values),
                name="%(app_label)s_%(class)s_origin_known",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=list(CURRENCIES)),
                name="%(app_label)s_%(class)s_currency_known",
            ),
            models.CheckConstraint(
                condition=country_iso2_condition(),
                name="%(app_label)s_%(class)s_country_iso2",
            ),
            models.CheckConstraint(
                condition=Q(exchange_rate__isnull=True) | Q(exchange_rate__gt=0),
                name="%(app_label)s_%(class)s_exchange_rate_gt_0",
            ),
            models.CheckConstraint(
                condition=Q(token__regex=r"^[A-Za-z0-9_-]{32,64}$"),  # noqa: S106 - a pattern
                name="%(app_label)s_%(class)s_token_urlsafe",
            ),
        ]
        indexes = [models.Index(fields=["status", "-created_at"], name="quotes_quote_status_idx")]

    def __str__(self) -> str:
        return f"{self.number} {self.company}"

    @property
    def exchange_rate_currency(self) -> str:
        """The currency other than the euro of the quote's conversions (the ECB quotes it)."""
        if self.currency != "EUR":
            return self.currency
        return next(code for code in CURRENCIES if code != "EUR")

    @property
    def exchange_rate_per_eur(self) -> Decimal | None:
        """The ECB reference rate the quote took, as published (1 EUR = this much
        ``exchange_rate_currency``); None when staff typed the rate."""
        if self.exchange_rate is None or self.exchange_rate_date is None:
            return None
        if self.currency == "EUR":
            return inverse_published(self.exchange_rate)
        return self.exchange_rate.normalize()

    @property
    def exchange_rate_built_in(self) -> bool:
        """Whether the quote took the engine's built-in annual average (no ECB rate of the day
        was recorded): its source, not a day, then says what the rate is."""
        return self.exchange_rate_date is not None and self.exchange_rate_source in {
            rate.source for rate in built_in_rates().values()
        }

    def clean(self) -> None:
        """A member state's VAT number must be one of that state, check digits included (the
        VAT computation grants the reverse charge on it); stored normalised."""
        if self.country.code in countries:
            self.vat_number = vat_number_clean(self.vat_number, self.country.code)

    @property
    def revision(self) -> QuoteRevision:
        """The current revision, which every quote has: ``quote_create`` writes the quote and
        its first revision in one transaction (only inside it is ``current_revision`` empty)."""
        if self.current_revision is None:
            raise QuoteRevision.DoesNotExist(f"Quote {self.number} has no revision yet.")
        return self.current_revision


class QuoteRevision(models.Model):
    """One version of a quote, A, B, ...: its lines, discount and validity. A revision that was
    sent is never changed again; editing the quote then makes the next revision."""

    quote = models.ForeignKey(
        Quote, verbose_name=_("quote"), on_delete=models.CASCADE, related_name="revisions"
    )
    index = models.PositiveSmallIntegerField(_("revision"), help_text=_("0 is A, 1 is B, ..."))
    discount_pct = models.DecimalField(
        _("quote discount (%)"), max_digits=5, decimal_places=2, default=0
    )
    contract_months = models.PositiveSmallIntegerField(
        _("contract length (months)"),
        default=12,
        help_text=_("How many months the monthly lines run for."),
    )
    valid_until = models.DateField(_("valid until"))
    notes = models.TextField(_("notes"), blank=True, max_length=4000)
    approved_discount_pct = models.DecimalField(
        _("approved discount (%)"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("approved by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True)
    # The digest of the content the manager approved (lines, terms, totals): any change voids it.
    approved_digest = models.CharField(_("approved content digest"), max_length=64, blank=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    sent_totals = models.JSONField(
        _("totals as sent"), null=True, blank=True, help_text=_("Copied once, when sent.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["quote", "index"]
        verbose_name = _("quote revision")
        verbose_name_plural = _("quote revisions")
        constraints = [
            models.UniqueConstraint(
                fields=["quote", "index"], name="%(app_label)s_%(class)s_unique_quote_index"
            ),
            models.CheckConstraint(
                condition=Q(discount_pct__gte=0) & Q(discount_pct__lte=100),
                name="%(app_label)s_%(class)s_discount_pct_range",
            ),
            models.CheckConstraint(
                condition=Q(contract_months__lte=120),
                name="%(app_label)s_%(class)s_contract_months_lte_120",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quote_id} {self.label}"

    @property
    def label(self) -> str:
        from engine.commerce.numbering import revision_label

        return revision_label(self.index)


LINE_KIND_CHOICES = choices_of(
    LineKind,
    {
        LineKind.PART: _("part"),
        LineKind.SERVICE: _("service"),
    },
)


RECURRENCE_CHOICES = choices_of(
    Recurrence,
    {
        Recurrence.ONE_OFF: _("one-off"),
        Recurrence.MONTHLY: _("monthly"),
    },
)


class QuoteLine(models.Model):
    """One line of a revision, its price frozen when it was added (converted into the quote's
    currency when the catalog price was in the other one, with the rate recorded)."""

    revision = models.ForeignKey(
        QuoteRevision, verbose_name=_("revision"), on_delete=models.CASCADE, related_name="lines"
    )
    position = models.PositiveSmallIntegerField(_("position"))
    kind = models.CharField(_("kind"), max_length=8, choices=LINE_KIND_CHOICES)
    sku = models.CharField(_("SKU"), max_length=64, blank=True)
    description = models.CharField(_("description"), max_length=300)
    quantity = models.DecimalField(_("quantity"), max_digits=12, decimal_places=2)
    unit_price = models.DecimalField(_("unit price"), max_digits=14, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    discount_pct = models.DecimalField(
        _("line discount (%)"), max_digits=5, decimal_places=2, default=0
    )
    recurrence = models.CharField(
        _("recurrence"),
        max_length=8,
        choices=RECURRENCE_CHOICES,
        default=Recurrence.ONE_OFF.value,
    )
    exchange_rate = models.DecimalField(
        _("exchange rate"), max_digits=12, decimal_places=6, null=True, blank=True
    )
    source_currency = models.CharField(_("catalog currency"), max_length=3, blank=True)
    # What the builder meant the part for ("boot" / "data" drives, and a cluster line's role such
    # as "storage_adapter": engine.build.cluster.fabric.LineRole), so the server checks read the
    # quote as it was built even when one SSD or NIC model serves two purposes.
    role = models.CharField(_("role"), max_length=32, blank=True)
    # A managed server's fee: its floor (the hardware's payback over the term, TermFee.floor),
    # under which only a manager may bill it, and what it costs the host (ProviderCost), for the
    # margin the approval queue shows. Empty for lines with neither.
    floor_unit_price = models.DecimalField(
        _("floor unit price"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    cost_unit_price = models.DecimalField(
        _("unit cost"), max_digits=14, decimal_places=2, null=True, blank=True
    )

    class Meta:
        ordering = ["revision", "position", "id"]
        verbose_name = _("quote line")
        verbose_name_plural = _("quote lines")
        constraints = [
            models.CheckConstraint(
                condition=Q(quantity__gt=0), name="%(app_label)s_%(class)s_quantity_gt_0"
            ),
            models.CheckConstraint(
                condition=Q(unit_price__gte=0), name="%(app_label)s_%(class)s_unit_price_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(discount_pct__gte=0) & Q(discount_pct__lte=100),
                name="%(app_label)s_%(class)s_discount_pct_range",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=values_of(LineKind)),
                name="%(app_label)s_%(class)s_kind_known",
            ),
            models.CheckConstraint(
                condition=Q(recurrence__in=values_of(Recurrence)),
                name="%(app_label)s_%(class)s_recurrence_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.description}"


class QuoteEventKind(models.TextChoices):
    CREATED = "created", _("created")
    STATUS = "status", _("status changed")
    REVISED = "revised", _("new revision")
    EDITED = "edited", _("edited")
    APPROVED = "approved", _("discount approved")
    EMAIL_SENT = "email_sent", _("e-mail sent")
    CUSTOMER_ANSWER = "customer_answer", _("customer's answer")
    STAFF_NOTIFIED = "staff_notified", _("sales team notified")
    APPROVAL_REQUESTED = "approval_asked", _("approval requested")


class QuoteEvent(models.Model):
    """The quote's history, append-only: who did what, when and why."""

    quote = models.ForeignKey(
        Quote, verbose_name=_("quote"), on_delete=models.CASCADE, related_name="events"
    )
    revision = models.ForeignKey(
        QuoteRevision,
        verbose_name=_("revision"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="events",
    )
    kind = models.CharField(_("kind"), max_length=16, choices=QuoteEventKind.choices)
    from_status = models.CharField(_("from"), max_length=16, blank=True)
    to_status = models.CharField(_("to"), max_length=16, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_name = models.CharField(
        _("name given"), max_length=120, blank=True, help_text=_("The customer's name.")
    )
    reason = models.TextField(_("why"), blank=True)
    data = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("quote event")
        verbose_name_plural = _("quote events")
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=QuoteEventKind.values),
                name="%(app_label)s_%(class)s_kind_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quote_id} {self.kind} {self.created_at:%Y-%m-%d %H:%M}"
