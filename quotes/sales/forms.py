"""Forms of the sales team's screens and of the customer's answer. Validation of one field
lives here; rules spanning objects (the workflow, prices) live in ``quotes.sales.services``."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from catalog.selectors.service_tiers import service_tiers_get
from engine.build.builder import Environment, Tier
from engine.commerce.pricing import MAX_CONTRACT_MONTHS
from engine.workload import Task
from engine.workload.registry import all_models
from gpuquote.core.countries import CountryFormField, VatNumberMatchesCountry
from gpuquote.core.formatting import money_format
from gpuquote.core.forms import (
    BoundedDecimalField,
    BoundedIntegerField,
    BoundedJSONField,
    DatePickerField,
    MultiLineField,
    SingleLineField,
)
from quotes.advice.inputs import CURRENCY_CHOICES, GROWTH_GPUS_MAX, language_choices
from quotes.models import LINE_KIND_CHOICES, QUOTE_STATUS_CHOICES, RECURRENCE_CHOICES, QuoteOrigin

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

PCT: dict[str, Any] = {
    "min_value": Decimal(0),
    "max_value": Decimal(100),
    "decimal_places": 2,
    "max_digits": 5,
}


class DashboardFilterForm(forms.Form):
    q = SingleLineField(label=_("Search"), required=False, max_length=100)
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("all")), *QUOTE_STATUS_CHOICES]
    )
    origin = forms.ChoiceField(
        label=_("Origin"), required=False, choices=[("", _("all")), *QuoteOrigin.choices]
    )
    created_from = DatePickerField(label=_("Created from"), required=False)
    created_to = DatePickerField(label=_("Created until"), required=False)


class QuoteCreateForm(VatNumberMatchesCountry, forms.Form):
    company = SingleLineField(label=_("Company"), max_length=160)
    contact_name = SingleLineField(label=_("Contact"), max_length=120)
    email = forms.EmailField(label=_("E-mail"))
    country = CountryFormField(label=_("Country"))
    vat_number = SingleLineField(label=_("VAT number"), max_length=20, required=False)
    is_business = forms.BooleanField(label=_("Business customer"), required=False, initial=True)
    language = forms.ChoiceField(label=_("Language"), choices=language_choices())
    currency = forms.ChoiceField(label=_("Currency"), choices=CURRENCY_CHOICES)
    exchange_rate = BoundedDecimalField(
        label=_("Exchange rate"),
        required=False,
        min_value=Decimal("0.000001"),
        max_digits=12,
        decimal_places=6,
        help_text=_("Quote currency per unit of the other currency, for catalog prices in it."),
    )


class CustomerForm(VatNumberMatchesCountry, forms.Form):
    """What decides the VAT on a quote: where the customer is, its VAT number, and whether it is
    a business. The number is checked against the country (the error names the field)."""

    country = CountryFormField(label=_("Country"))
    vat_number = SingleLineField(label=_("VAT number"), max_length=20, required=False)
    is_business = forms.BooleanField(label=_("Business customer"), required=False)


class PartLineForm(forms.Form):
    sku = SingleLineField(label=_("Catalog SKU"), max_length=64)
    quantity = BoundedDecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    discount_pct = BoundedDecimalField(label=_("Line discount (%)"), initial=0, **PCT)


class ServiceLineForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=LINE_KIND_CHOICES, initial="service")
    description = SingleLineField(label=_("Description"), max_length=300)
    quantity = BoundedDecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    unit_price = BoundedDecimalField(
        label=_("Unit price"), min_value=Decimal(0), max_digits=14, decimal_places=2
    )
    recurrence = forms.ChoiceField(label=_("Recurrence"), choices=RECURRENCE_CHOICES)
    discount_pct = BoundedDecimalField(label=_("Line discount (%)"), initial=0, **PCT)


class ServiceTierSetForm(forms.Form):
    """The managed offer's support level a quote bills: one of the catalog's offered tiers."""

    code = forms.ChoiceField(label=_("Support level"))

    def __init__(self, *args: Any, currency: str = "EUR", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ChoiceField, self.fields["code"])
        language = get_language()
        field.choices = [
            (tier.code, f"{tier.name(language)} ({money_format(tier.monthly.amount, currency)})")
            for tier in service_tiers_get(currency=currency)
        ]


class LineUpdateForm(forms.Form):
    position = BoundedIntegerField(min_value=1, widget=forms.HiddenInput)
    quantity = BoundedDecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    discount_pct = BoundedDecimalField(label=_("Line discount (%)"), **PCT)


class LineRemoveForm(forms.Form):
    position = BoundedIntegerField(min_value=1, widget=forms.HiddenInput)


class TermsForm(forms.Form):
    discount_pct = BoundedDecimalField(label=_("Quote discount (%)"), **PCT)
    valid_until = DatePickerField(label=_("Valid until"))
    contract_months = BoundedIntegerField(
        label=_("Contract length (months)"), min_value=1, max_value=MAX_CONTRACT_MONTHS
    )
    notes = MultiLineField(
        label=_("Notes for the customer"), required=False, max_length=4000, widget=forms.Textarea
    )


ACTIONS = ("approve_discount", "send", "accept", "decline", "reprice")


class ActionForm(forms.Form):
    action = forms.ChoiceField(choices=[(name, name) for name in ACTIONS])
    reason = MultiLineField(required=False, max_length=2000)
    # Sending servers that fail the builder's checks needs this ticked (see quote_send).
    acknowledge_checks = forms.BooleanField(required=False)
    # Approving: the digest of the content the manager was shown (selectors.revision_digest).
    digest = forms.CharField(required=False, max_length=64)


class CustomerAnswerForm(forms.Form):
    name = SingleLineField(label=_("Your name"), max_length=120)
    decision = forms.ChoiceField(
        label=_("Your answer"),
        choices=[("accept", _("I accept this quote")), ("decline", _("I decline this quote"))],
        widget=forms.RadioSelect,
    )
    reason = MultiLineField(
        label=_("Comment (optional)"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


def _model_choices() -> list[tuple[str, StrOrPromise]]:
    return [("", _("Another model (give its size)")), *((m.id, m.name) for m in all_models())]


class WorkloadForm(forms.Form):
    """The job a staff quote answers, in the API's workload shape (the builder then proposes)."""

    task = forms.ChoiceField(
        label=_("Task"),
        choices=[
            (Task.INFERENCE.value, _("Inference")),
            (Task.FINE_TUNING.value, _("Fine-tuning")),
            (Task.PRETRAINING.value, _("Training from scratch")),
        ],
    )
    model = forms.ChoiceField(label=_("Model"), choices=_model_choices, required=False)
    parameters_billions = BoundedDecimalField(
        label=_("Parameters (billions), for another model"),
        required=False,
        min_value=Decimal("0.001"),
        max_value=Decimal(100_000),
        max_digits=9,
        decimal_places=3,
    )
    environment = forms.ChoiceField(
        label=_("Environment"),
        choices=[
            (Environment.PRODUCTION.value, _("Production")),
            (Environment.EXPERIMENT.value, _("Experiment")),
        ],
    )
    growth_gpus = BoundedIntegerField(
        label=_("GPU slots kept free per server"), min_value=0, max_value=GROWTH_GPUS_MAX, initial=0
    )
    workload_json = BoundedJSONField(
        label=_("Detailed workload (JSON, as in the REST API; replaces the fields above)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        workload = data.get("workload_json")
        if workload in (None, "", {}):
            workload = {"task": data["task"]}
            if data.get("model"):
                workload["model"] = data["model"]
            elif data.get("parameters_billions"):
                workload["parameters_billions"] = float(data["parameters_billions"])
            else:
                self.add_error("model", _("Choose a model or give the parameter count."))
                return data
        if not isinstance(workload, dict):
            self.add_error("workload_json", _("Expected a JSON object."))
            return data
        data["workload"] = workload  # quote_workload_set validates it, field by field
        return data


class OptionApplyForm(forms.Form):
    tier = forms.ChoiceField(choices=[(tier.value, tier.value) for tier in Tier])
