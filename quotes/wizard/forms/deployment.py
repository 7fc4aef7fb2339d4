"""Steps 3 and 4 of the wizard, how and where the servers run: experiment or production, the
uptime and growth (usage), then the deployment, region, currency and the costs' assumptions.

The values, defaults and bounds of these answers (and uptime -> utilisation) are shared with the
API and the quotes: ``quotes.advice.inputs``; the assumptions' bounds are the engine's ``SPECS``.
This module adds the words.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django import forms
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from catalog.selectors.service_tiers import service_tier_get, service_tiers_get
from engine.assumptions import SPECS, AssumptionError, assumption_validate
from engine.build.builder import Environment
from gpuquote.core.formatting import money_format
from quotes.advice.inputs import (
    BUDGET_MAX,
    CURRENCY_CHOICES,
    DEFAULT_CURRENCY,
    DEFAULT_HORIZON_YEARS,
    DEFAULT_REGION,
    DEFAULT_UTILIZATION_PCT,
    GROWTH_GPUS_MAX,
    MAX_HORIZON_YEARS,
    MAX_UTILIZATION_PCT,
    MIN_HORIZON_YEARS,
    MIN_UTILIZATION_PCT,
    REGIONS,
    WIZARD_DEFAULT_DEPLOYMENT,
    Deployment,
    Uptime,
)
from quotes.advice.presenters import text
from quotes.wizard.forms.base import WizardStepForm, jsonable
from quotes.wizard.forms.fields import DecimalNumberField, WholeNumberField

REGION_NAMES = {
    "FR": _("France"),
    "DE": _("Germany"),
    "GB": _("United Kingdom"),
    "US": _("United States"),
}


class UsageForm(WizardStepForm):
    step = "usage"

    environment = forms.ChoiceField(
        label=_("Experiment or production?"),
        choices=[
            (Environment.EXPERIMENT.value, _("A one-off experiment")),
            (Environment.PRODUCTION.value, _("Continuous production")),
        ],
        widget=forms.RadioSelect,
    )
    uptime = forms.ChoiceField(
        label=_("How available must it be?"),
        choices=[
            (Uptime.FLEXIBLE, _("Interruptions are acceptable")),
            (Uptime.BUSINESS_HOURS, _("During working hours")),
            (Uptime.ALWAYS_ON, _("Around the clock, every day")),
        ],
        widget=forms.RadioSelect,
    )
    growth_gpus = WholeNumberField(
        minimum=0,
        maximum=GROWTH_GPUS_MAX,
        label=_("GPUs you may add per server within 12 to 24 months"),
        initial=0,
    )

    choice_help = {
        "environment": {
            Environment.EXPERIMENT.value: _(
                "Workstation or consumer GPUs are allowed; no redundancy."
            ),
            Environment.PRODUCTION.value: _(
                "Datacenter GPUs with ECC memory, redundant power supplies, mirrored system disks."
            ),
        },
        "uptime": {
            Uptime.FLEXIBLE: _("Jobs can be restarted; downtime costs little."),
            Uptime.BUSINESS_HOURS: _("Used by people during the working day."),
            Uptime.ALWAYS_ON: _("A service others depend on: downtime is costly."),
        },
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.number_field("growth_gpus")
        field.help_text = "{} {}".format(
            gettext(
                "Every server keeps that many GPU slots free, with power and PCIe lanes "
                "already sized for them. 0 if you expect no growth."
            ),
            gettext("Allowed: %(range)s.") % {"range": field.range_text()},
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if (
            data.get("environment") == Environment.EXPERIMENT.value
            and data.get("uptime") == Uptime.ALWAYS_ON
        ):
            self.add_error(
                "environment",
                gettext(
                    "A service that must run around the clock is production: choose "
                    "continuous production, or accept interruptions."
                ),
            )
        return data


def _spec_bounds(name: str) -> tuple[Decimal, Decimal | None]:
    spec = SPECS[name]
    return spec.minimum, spec.maximum


class DeploymentForm(WizardStepForm):
    step = "deployment"

    deployment = forms.ChoiceField(
        label=_("Where should the servers run?"),
        choices=[
            (Deployment.ON_PREMISES.value, _("On premises")),
            (Deployment.MANAGED.value, _("Managed hosting")),
            (Deployment.NOT_SURE.value, _("Not sure yet")),
        ],
        widget=forms.RadioSelect,
        initial=WIZARD_DEFAULT_DEPLOYMENT,
    )
    service_tier = forms.ChoiceField(
        label=_("Support, if we host your servers"),
        widget=forms.RadioSelect,
        help_text=_("Prices per server and month, on top of the hosting fee."),
        required=False,  # no answer: the catalog's default tier
    )
    region = forms.ChoiceField(
        label=_("Region"),
        choices=[(code, REGION_NAMES[code]) for code in REGIONS],
        initial=DEFAULT_REGION,
        help_text=_("Sets the electricity price, cooling overhead (PUE) and grid carbon."),
    )
    currency = forms.ChoiceField(
        label=_("Currency"),
        choices=CURRENCY_CHOICES,
        widget=forms.RadioSelect,
        initial=DEFAULT_CURRENCY,
    )
    electricity_price = DecimalNumberField(
        minimum=_spec_bounds("electricity_price_per_kwh")[0],
        maximum=_spec_bounds("electricity_price_per_kwh")[1],
        label=_("Electricity price per kWh, in your currency"),
        required=False,
    )
    pue = DecimalNumberField(
        minimum=_spec_bounds("pue")[0],
        maximum=_spec_bounds("pue")[1],
        label=_("PUE (facility power / IT power)"),
        required=False,
    )
    horizon_years = WholeNumberField(
        minimum=MIN_HORIZON_YEARS,
        maximum=MAX_HORIZON_YEARS,
        label=_("Compare costs over how many years?"),
        initial=DEFAULT_HORIZON_YEARS,
    )
    utilization_pct = WholeNumberField(
        minimum=MIN_UTILIZATION_PCT,
        maximum=MAX_UTILIZATION_PCT,
        label=_("Expected utilisation of the GPUs (%)"),
        initial=DEFAULT_UTILIZATION_PCT,
    )
    budget = DecimalNumberField(
        minimum=0,
        maximum=BUDGET_MAX,
        label=_("Hardware budget"),
        required=False,
    )

    choice_help = {
        "deployment": {
            Deployment.ON_PREMISES.value: _(
                "You buy the servers and run them in your own room or a rented rack."
            ),
            Deployment.MANAGED.value: _(
                "We own and run the servers for a predictable monthly fee."
            ),
            Deployment.NOT_SURE.value: _("Compare both, and cloud GPUs, before deciding."),
        },
        "currency": {"EUR": _("Euro"), "USD": _("US dollar")},
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        allowed = gettext("Allowed: %(range)s.")
        fields = self.fields
        self._service_tiers()
        fields["electricity_price"].help_text = " ".join(
            (
                gettext("Leave empty to use the region's default shown above."),
                allowed % {"range": self.number_field("electricity_price").range_text()},
            )
        )
        fields["pue"].help_text = " ".join(
            (
                gettext(
                    "1.0 would be a data centre with no cooling overhead; leave empty for the "
                    "default."
                ),
                allowed % {"range": self.number_field("pue").range_text()},
            )
        )
        fields["horizon_years"].help_text = allowed % {
            "range": self.number_field("horizon_years").range_text()
        }
        fields["utilization_pct"].help_text = " ".join(
            (
                gettext("The share of the time the GPUs are busy."),
                allowed % {"range": self.number_field("utilization_pct").range_text()},
            )
        )
        fields["budget"].help_text = gettext(
            "For the purchase of the servers, in your currency. Leave empty for no limit."
        )

    def _service_tiers(self) -> None:
        """The managed offer's tiers from the catalog, each with its price in both currencies
        and what the host does; the catalog's default tier pre-selected. No tier in the
        catalog: no question."""
        tiers = service_tiers_get(currency="EUR")
        if not tiers:
            del self.fields["service_tier"]
            return
        in_usd = {tier.code: tier.monthly for tier in service_tiers_get(currency="USD")}
        field = cast(forms.ChoiceField, self.fields["service_tier"])
        field.choices = [(tier.code, tier.name(get_language())) for tier in tiers]
        default = service_tier_get(code=None, currency="EUR")
        field.initial = tiers[0].code if default is None else default.code
        helps = {}
        for tier in tiers:
            usd = in_usd.get(tier.code)
            if not tier.monthly.amount and (usd is None or not usd.amount):
                price = gettext("Included in the hosting fee.")
            elif usd is None:
                price = gettext("%(price)s per server and month.") % {
                    "price": money_format(tier.monthly.amount, "EUR", places=0)
                }
            else:
                price = gettext("%(eur)s or %(usd)s per server and month.") % {
                    "eur": money_format(tier.monthly.amount, "EUR", places=0),
                    "usd": money_format(usd.amount, "USD", places=0),
                }
            done = "".join(f" {text(message)}." for message in tier.included_operations())
            helps[tier.code] = price + done
        self.choice_help = {**type(self).choice_help, "service_tier": helps}

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        currency = data.get("currency") or DEFAULT_CURRENCY
        for field, name in (("electricity_price", "electricity_price_per_kwh"), ("pue", "pue")):
            value = data.get(field)
            if value is None or field in self.errors:
                continue
            try:
                assumption_validate(name, value, currency)
            except AssumptionError as exc:
                self.add_error(field, text(exc.message))
        return data

    def overrides(self) -> dict[str, str]:
        data = self.cleaned_data
        found = {
            "electricity_price_per_kwh": data.get("electricity_price"),
            "pue": data.get("pue"),
        }
        return {name: jsonable(value) for name, value in found.items() if value is not None}
