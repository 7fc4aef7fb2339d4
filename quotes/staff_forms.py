"""Forms of the sales team's screens and of the customer's answer. Validation of one field
lives here; rules spanning objects (the workflow, prices) live in ``quote_services``."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from quotes.engine.builder import Environment, Tier
from quotes.engine.model_registry import all_models
from quotes.engine.pricing import MAX_CONTRACT_MONTHS
from quotes.engine.workload import Task
from quotes.models import LineKindChoices, QuoteOrigin, QuoteStatusChoices, RecurrenceChoices

PCT = {"min_value": Decimal(0), "max_value": Decimal(100), "decimal_places": 2, "max_digits": 5}


class DashboardFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=100)
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("all")), *QuoteStatusChoices.choices]
    )
    origin = forms.ChoiceField(
        label=_("Origin"), required=False, choices=[("", _("all")), *QuoteOrigin.choices]
    )
    created_from = forms.DateField(
        label=_("Created from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    created_to = forms.DateField(
        label=_("Created until"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )


class QuoteCreateForm(forms.Form):
    company = forms.CharField(label=_("Company"), max_length=160)
    contact_name = forms.CharField(label=_("Contact"), max_length=120)
    email = forms.EmailField(label=_("E-mail"))
    country = forms.RegexField(
        label=_("Country"),
        regex=r"^[A-Za-z]{2}$",
        max_length=2,
        help_text=_("ISO 3166-1 alpha-2 code, such as FR or DE."),
    )
    vat_number = forms.CharField(label=_("VAT number"), max_length=20, required=False)
    is_business = forms.BooleanField(label=_("Business customer"), required=False, initial=True)
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
    currency = forms.ChoiceField(label=_("Currency"), choices=[("EUR", "EUR"), ("USD", "USD")])
    exchange_rate = forms.DecimalField(
        label=_("Exchange rate"),
        required=False,
        min_value=Decimal("0.000001"),
        max_digits=12,
        decimal_places=6,
        help_text=_("Quote currency per unit of the other currency, for catalog prices in it."),
    )

    def clean_country(self) -> str:
        return self.cleaned_data["country"].upper()


class PartLineForm(forms.Form):
    sku = forms.CharField(label=_("Catalog SKU"), max_length=64)
    quantity = forms.DecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    discount_pct = forms.DecimalField(label=_("Line discount (%)"), initial=0, **PCT)


class ServiceLineForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=LineKindChoices.choices, initial="service")
    description = forms.CharField(label=_("Description"), max_length=300)
    quantity = forms.DecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    unit_price = forms.DecimalField(
        label=_("Unit price"), min_value=Decimal(0), max_digits=14, decimal_places=2
    )
    recurrence = forms.ChoiceField(label=_("Recurrence"), choices=RecurrenceChoices.choices)
    discount_pct = forms.DecimalField(label=_("Line discount (%)"), initial=0, **PCT)


class LineUpdateForm(forms.Form):
    position = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    quantity = forms.DecimalField(
        label=_("Quantity"), min_value=Decimal("0.01"), max_digits=12, decimal_places=2
    )
    discount_pct = forms.DecimalField(label=_("Line discount (%)"), **PCT)


class LineRemoveForm(forms.Form):
    position = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class TermsForm(forms.Form):
    discount_pct = forms.DecimalField(label=_("Quote discount (%)"), **PCT)
    valid_until = forms.DateField(
        label=_("Valid until"), widget=forms.DateInput(attrs={"type": "date"})
    )
    contract_months = forms.IntegerField(
        label=_("Contract length (months)"), min_value=1, max_value=MAX_CONTRACT_MONTHS
    )
    notes = forms.CharField(
        label=_("Notes for the customer"), required=False, max_length=4000, widget=forms.Textarea
    )


ACTIONS = ("approve_discount", "send", "accept", "decline", "reprice")


class ActionForm(forms.Form):
    action = forms.ChoiceField(choices=[(name, name) for name in ACTIONS])
    reason = forms.CharField(required=False, max_length=2000)
    # Sending servers that fail the builder's checks needs this ticked (see quote_send).
    acknowledge_checks = forms.BooleanField(required=False)


class CustomerAnswerForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=120)
    decision = forms.ChoiceField(
        label=_("Your answer"),
        choices=[("accept", _("I accept this quote")), ("decline", _("I decline this quote"))],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Comment (optional)"), required=False, max_length=2000, widget=forms.Textarea
    )


def _model_choices() -> list[tuple[str, str]]:
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
    parameters_billions = forms.DecimalField(
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
    growth_gpus = forms.IntegerField(
        label=_("GPU slots kept free per server"), min_value=0, max_value=16, initial=0
    )
    workload_json = forms.JSONField(
        label=_("Detailed workload (JSON, as in the REST API; replaces the fields above)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self) -> dict:
        data = super().clean()
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
