"""Steps 3 and 4 of the wizard, how and where the servers run: experiment or production, the
uptime and growth (usage), then the deployment, region, currency and the costs' assumptions.

The values, defaults and bounds of these answers (and uptime -> utilisation) are shared with the
API and the quotes: ``quotes.advice.inputs``; the assumptions' bounds are the engine's ``SPECS``.
This module adds the words.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.assumptions import SPECS, AssumptionError, assumption_validate
from engine.builder import Environment
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
