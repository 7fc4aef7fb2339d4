"""The customer-facing advice side: the regional TCO defaults staff maintain, the wizard's
stored results and the quote requests customers send from them."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Cast
from django.db.models.lookups import Regex
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django_countries import countries
from django_countries.fields import Country, CountryField

from engine.assumptions import SPECS, AssumptionError, assumption_validate, is_money
from gpuquote.core.countries import COUNTRY_MESSAGE, vat_number_clean
from quotes.advice.inputs import (
    REGION_CHOICES,
    language_choices,
    language_codes,
)
from quotes.models.fields import PackedJSONField


def country_iso2_condition() -> Regex:
    """The database's own check of a country code: two capitals (the model field checks the code
    is a country django-countries knows). Compared as text: django-countries' field would turn
    the pattern itself into a country code. Quotes check their country the same way."""
    return Regex(Cast("country", models.CharField(max_length=2)), r"^[A-Z]{2}$")


class RegionAssumption(models.Model):
    """A staff-maintained default for one region; replaces the engine's built-in figure.

    Seeded from the engine's sourced defaults by ``load_assumptions`` (which never overwrites a
    row), edited in the admin. A TCO result keeps a copy of the values it used.
    """

    region = models.CharField(_("region"), max_length=2, choices=REGION_CHOICES)
    name = models.CharField(
        _("assumption"), max_length=48, choices=[(name, name) for name in SPECS]
    )
    value = models.DecimalField(_("value"), max_digits=16, decimal_places=6)
    currency = models.CharField(
        _("currency"), max_length=3, blank=True, help_text=_("For money values: EUR, USD or GBP.")
    )
    source = models.TextField(_("source"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("updated by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    class Meta:
        ordering = ["region", "name"]
        verbose_name = _("regional assumption")
        verbose_name_plural = _("regional assumptions")
        constraints = [
            models.UniqueConstraint(
                fields=["region", "name"], name="%(app_label)s_%(class)s_unique_region_name"
            ),
            models.CheckConstraint(
                condition=Q(value__gte=0), name="%(app_label)s_%(class)s_value_gte_0"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=["", "EUR", "USD", "GBP"]),
                name="%(app_label)s_%(class)s_currency_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.region} {self.name} = {self.value} {self.currency}".strip()

    def clean(self) -> None:
        if self.name not in SPECS:
            return  # the choices validation names the field
        if is_money(self.name) and not self.currency:
            raise ValidationError({"currency": _("A money value needs its currency.")})
        if not is_money(self.name) and self.currency:
            raise ValidationError({"currency": _("Leave empty: this value is not money.")})
        try:
            assumption_validate(self.name, self.value, "EUR")
        except AssumptionError as exc:
            raise ValidationError({"value": exc.message.render(gettext, ngettext)}) from exc


def result_token_new() -> str:
    """An unguessable token for a result's private URL (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


class WizardResult(models.Model):
    """What the wizard computed, stored once: the page and the PDF render this JSON only.

    ``answers`` are the customer's cleaned answers, step by step; ``result`` holds the engine's
    output as the presenters gave it (sizing, configurations, TCO with its assumptions), so a
    later catalog or assumption change never rewrites a result (see ``quotes.advice.store``).
    ``result`` is stored compressed (``PackedJSONField``); Python reads the same JSON value.

    A result is stored once per question: ``inputs_digest`` names the answers, the engine's
    inputs and the language, ``data_version`` the data it was computed from
    (``quotes.advice.selectors.data_version_key``). The same question on the same data gives the
    stored row back, under its token (``quotes.wizard.services.wizard_result_create``); the
    constraint settles a race. Both are empty (and the constraint does not apply) on rows stored
    before, and on a partner's quote's result (each quote keeps its own).
    """

    token = models.CharField(
        _("token"), max_length=64, unique=True, default=result_token_new, editable=False
    )
    language = models.CharField(_("language"), max_length=8, choices=language_choices())
    answers = models.JSONField(_("answers"))
    result = PackedJSONField(_("result"))
    inputs_digest = models.CharField(
        _("inputs digest"), max_length=64, blank=True, default="", editable=False
    )
    data_version = models.CharField(
        _("data version"), max_length=64, blank=True, default="", editable=False
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("wizard result")
        verbose_name_plural = _("wizard results")
        constraints = [
            models.UniqueConstraint(
                fields=["inputs_digest", "data_version"],
                condition=~Q(inputs_digest=""),
                name="%(app_label)s_%(class)s_one_per_inputs_data_version",
            ),
            models.CheckConstraint(
                condition=Q(token__regex=r"^[A-Za-z0-9_-]{32,64}$"),  # noqa: S106 - a pattern
                name="%(app_label)s_%(class)s_token_urlsafe",
            ),
            models.CheckConstraint(
                condition=Q(language__in=language_codes()),
                name="%(app_label)s_%(class)s_language_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.token[:8]}… ({self.language}, {self.created_at:%Y-%m-%d %H:%M})"


class QuoteRequestStatus(models.TextChoices):
    NEW = "new", _("new")
    HANDLED = "handled", _("handled")


class QuoteRequest(models.Model):
    """A customer asks sales for a quote on a stored result; staff handle it in the admin."""

    result = models.ForeignKey(
        WizardResult,
        verbose_name=_("result"),
        on_delete=models.PROTECT,
        related_name="quote_requests",
    )
    name = models.CharField(_("name"), max_length=120)
    company = models.CharField(_("company"), max_length=160)
    email = models.EmailField(_("e-mail"), max_length=254)
    country: models.Field[Country | str, Country] = CountryField(
        _("country"),
        help_text=_("ISO 3166-1 alpha-2 code."),
        error_messages={"invalid_choice": COUNTRY_MESSAGE},
    )
    vat_number = models.CharField(
        _("VAT number"),
        max_length=20,
        blank=True,
        help_text=_("Optional; carried into the quote, where it decides the reverse charge."),
    )
    consent = models.BooleanField(_("consent to be contacted"))
    message = models.TextField(_("message"), blank=True, max_length=4000)
    status = models.CharField(
        _("status"),
        max_length=16,
        choices=QuoteRequestStatus.choices,
        default=QuoteRequestStatus.NEW,
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # Set once the sales team was e-mailed about the request: a retried task sees it, sends
    # nothing (``quotes.sales.services.notify.quote_request_notify``).
    staff_notified_at = models.DateTimeField(_("sales team notified at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("quote request")
        verbose_name_plural = _("quote requests")
        constraints = [
            models.CheckConstraint(
                condition=Q(consent=True), name="%(app_label)s_%(class)s_consent_given"
            ),
            models.CheckConstraint(
                condition=country_iso2_condition(),
                name="%(app_label)s_%(class)s_country_iso2",
            ),
            models.CheckConstraint(
                condition=Q(status__in=QuoteRequestStatus.values),
                name="%(app_label)s_%(class)s_status_known",
            ),
            models.CheckConstraint(
                condition=~Q(email=""), name="%(app_label)s_%(class)s_email_not_empty"
            ),
            # A repeated (or double-clicked, or parallel) request is the same request; e-mails
            # are stored lower-cased by quote_request_create.
            models.UniqueConstraint(
                fields=["result", "email"], name="%(app_label)s_%(class)s_one_per_result_email"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.company} ({self.name}, {self.country})"

    def clean(self) -> None:
        """The quote's own rule (``Quote.clean``): a member state's number must be one of that
        state, stored normalised, so the quote made from the request gets the reverse charge."""
        if self.country.code in countries:
            self.vat_number = vat_number_clean(self.vat_number, self.country.code)
