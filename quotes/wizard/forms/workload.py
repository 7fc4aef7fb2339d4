"""The customer wizard's forms: one per step, plus the quote request.

Ranges come from the engine: the workload's ``LIMITS``, the TCO horizon and utilisation bounds
and the assumptions' ``SPECS``. A field's error names what is allowed, with the numbers in the
reader's locale. Numbers are typed as people write them: ``1 000 000`` or ``0,19`` in French,
``1,000,000`` or ``0.19`` in English.

Each step's ``answers()`` gives its part of the engine's JSON shape (``workload_from_dict``), so
the wizard and the REST API feed the engine the same structure. Steps 1 and 2 also run the
engine's own cross-field validation and put its messages on the matching field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.formats import get_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.assumptions import SPECS, AssumptionError, assumption_validate
from engine.builder import Environment
from engine.model_registry import all_models
from engine.workload import (
    LIMITS,
    DataKind,
    Precision,
    Task,
    TrainingMethod,
    WorkloadError,
    workload_from_dict,
)
from gpuquote.core.countries import CountryFormField
from gpuquote.core.forms import MultiLineField, SingleLineField
from gpuquote.core.numbers import (
    NumberRejected,
    decimal_from_text,
    decimal_in_range,
    int_bounded,
    number_text_check,
)
from gpuquote.core.validators import number_message
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
from quotes.presenters import text
from quotes.templatetags.money import number_localized

CUSTOM_MODEL = "custom"
# The values, defaults and bounds of the answers (and uptime -> utilisation) are shared with the
# API and the quotes: ``quotes.advice.inputs``. This module adds the words.

REGION_NAMES = {
    "FR": _("France"),
    "DE": _("Germany"),
    "GB": _("United Kingdom"),
    "US": _("United States"),
}

# --- Number fields that read numbers as people type them ----------------------------------------

_SPACES = re.compile(r"[\s\u00a0\u202f_']")
_EN_GROUPED = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")


def number_parse(raw: str) -> Decimal | None:
    """``"1 234,5"`` (fr) or ``"1,234.5"`` (en) -> Decimal; ``None`` when it is not a number
    (an exponent or overlong text included: the shared rules of ``gpuquote.core.numbers``)."""
    value = _SPACES.sub("", raw.strip())
    if not value:
        return None
    if get_format("DECIMAL_SEPARATOR") == ",":
        value = value.replace(",", ".")
    elif _EN_GROUPED.match(value):
        value = value.replace(",", "")
    if value.count(".") > 1 or "," in value:
        return None
    try:
        return decimal_from_text(value)
    except NumberRejected:
        return None


def _plain(bound: float | Decimal | None) -> Decimal | None:
    """A bound as an exact Decimal, whole numbers without a fractional part (5, not 5.00)."""
    if bound is None:
        return None
    number = Decimal(str(bound))
    return number.quantize(Decimal(1)) if number == number.to_integral_value() else number


class _RangedNumberField(forms.Field):
    """A number within ``[minimum, maximum]`` (``maximum`` None: no upper bound)."""

    default_error_messages = {
        "invalid": _("Enter a number."),
        "range": _("Enter a number from %(min)s to %(max)s."),
        "at_least": _("Enter a number of at least %(min)s."),
    }
    inputmode = "decimal"

    def __init__(
        self,
        *,
        path: str | None = None,
        minimum: float | Decimal | None = None,
        maximum: float | Decimal | None = None,
        unit: str = "",
        **kwargs: Any,
    ) -> None:
        if path is not None:
            minimum, maximum = LIMITS[path]
        self.minimum = _plain(minimum)
        self.maximum = _plain(maximum)
        self.unit = unit
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        attrs.update({"inputmode": self.inputmode, "autocomplete": "off", "spellcheck": "false"})
        return attrs

    def to_python(self, value: Any) -> Decimal | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int | float | Decimal):
            return Decimal(str(value))
        try:
            number_text_check(str(value))  # before any conversion, with a message that says why
        except NumberRejected as exc:
            raise ValidationError(number_message(exc.code), code=exc.code) from exc
        number = number_parse(str(value))
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number

    def range_text(self) -> str:
        """What is allowed, for the help text: "1 to 65 536"."""
        low = number_localized(self.minimum)
        if self.maximum is None:
            return gettext("at least %(min)s") % {"min": low}
        return gettext("%(min)s to %(max)s") % {"min": low, "max": number_localized(self.maximum)}

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value in self.empty_values:
            return
        low, high = self.minimum, self.maximum
        try:
            decimal_in_range(value, minimum=low, maximum=high)
        except NumberRejected as exc:
            if high is None:
                raise ValidationError(
                    self.error_messages["at_least"],
                    code="range",
                    params={"min": number_localized(low)},
                ) from exc
            raise ValidationError(
                self.error_messages["range"],
                code="range",
                params={"min": number_localized(low), "max": number_localized(high)},
            ) from exc


class DecimalNumberField(_RangedNumberField):
    pass


class WholeNumberField(_RangedNumberField):
    default_error_messages = {"whole": _("Enter a whole number.")}
    inputmode = "numeric"

    def validate(self, value: Any) -> None:
        super().validate(value)  # the range first: comparing a huge Decimal costs nothing
        if value not in self.empty_values and value != value.to_integral_value():
            raise ValidationError(self.error_messages["whole"], code="whole")

    def clean(self, value: Any) -> int | None:
        number = super().clean(value)
        if number is None:
            return None
        return int_bounded(number, minimum=self.minimum, maximum=self.maximum)


# --- The step forms ------------------------------------------------------------------------------


class WizardStepForm(forms.Form):
    """A step: its answers as the engine's JSON shape, and help for each radio choice."""

    step: str = ""
    # field name -> {choice value: one line of plain-language help}
    choice_help: Mapping[str, Mapping[str, Any]] = {}
    # Fields shown in the "advanced" <details> section.
    advanced: tuple[str, ...] = ()

    def engine_errors(self, error: WorkloadError, paths: Mapping[str, str]) -> None:
        """Put the engine's messages on the fields they name (others on the whole form)."""
        for path, messages in error.errors.items():
            field = paths.get(path)
            if field is not None and field not in self.fields:
                field = None
            for message in messages:
                if field is None:
                    self.add_error(None, f"{path}: {text(message)}")
                elif field not in self.errors:
                    self.add_error(field, _capitalised(text(message)))

    def json_cleaned(self) -> dict[str, Any]:
        """The cleaned answers as JSON (Decimals as strings), to store with a result."""
        return {name: _jsonable(value) for name, value in self.cleaned_data.items()}

    def choice_items(self, name: str) -> list[dict[str, Any]]:
        """A radio group's choices with their help, for the templates."""
        bound = self[name]
        helps = self.choice_help.get(name, {})
        return [
            {"widget": widget, "help": helps.get(str(widget.data["value"]), "")}
            for widget in bound.subwidgets
        ]


def _capitalised(message: str) -> str:
    return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value


def _model_choices() -> list[tuple[str, str]]:
    choices = [
        (
            entry.id,
            gettext("%(name)s (%(size)s billion parameters)")
            % {"name": entry.name, "size": number_localized(Decimal(entry.parameters) / 10**9, 1)},
        )
        for entry in all_models()
    ]
    return [*choices, (CUSTOM_MODEL, gettext("Another model: I give its size below"))]


# Engine field path -> form field, for the engine's own validation messages.
PROJECT_PATHS = {
    "task": "goal",
    "model": "model",
    "parameters_billions": "parameters_billions",
    "architecture": "parameters_billions",
    "precision": "precision",
    "training.method": "method",
    "training.batch_size": "batch_size",
    "training.sequence_length": "sequence_length",
    "training.lora_rank": "lora_rank",
}
DATA_PATHS = {
    "data.kind": "kind",
    "data.items": "items",
    "data.total_gb": "total_gb",
    "training.epochs": "epochs",
    "training.training_tokens": "training_tokens",
    "training.deadline_days": "deadline_days",
    "inference.concurrent_requests": "concurrent_users",
    "inference.sequence_length": "context_length",
}


class ProjectForm(WizardStepForm):
    step = "project"
    advanced = ("batch_size", "sequence_length", "lora_rank", "gradient_checkpointing")

    goal = forms.ChoiceField(
        label=_("What do you want to do?"),
        choices=[
            (Task.INFERENCE.value, _("Run a model")),
            (Task.FINE_TUNING.value, _("Fine-tune an existing model")),
            (Task.PRETRAINING.value, _("Train a model from scratch")),
        ],
        widget=forms.RadioSelect,
        initial=Task.INFERENCE.value,
    )
    model = forms.ChoiceField(
        label=_("Model"),
        help_text=_("Pick a known model, or choose the last entry and give the size below."),
        initial="llama-3.1-8b",
    )
    parameters_billions = DecimalNumberField(
        path="parameters_billions",
        label=_("Size of another model (billions of parameters)"),
        required=False,
    )
    method = forms.ChoiceField(
        label=_("Fine-tuning method"),
        choices=[
            (TrainingMethod.FULL.value, _("Full")),
            (TrainingMethod.LORA.value, _("LoRA")),
            (TrainingMethod.QLORA.value, _("QLoRA")),
        ],
        widget=forms.RadioSelect,
        initial=TrainingMethod.LORA.value,
        help_text=_("Used when fine-tuning; training from scratch always trains every weight."),
    )
    precision = forms.ChoiceField(
        label=_("Precision of the weights"),
        choices=[
            (Precision.BF16.value, "BF16"),
            (Precision.FP16.value, "FP16"),
            (Precision.FP8.value, "FP8"),
            (Precision.INT8.value, "INT8"),
            (Precision.INT4.value, "INT4"),
            (Precision.FP32.value, "FP32"),
        ],
        widget=forms.RadioSelect,
        initial=Precision.BF16.value,
    )
    batch_size = WholeNumberField(
        path="training.batch_size",
        label=_("Batch size (sequences per training step, all GPUs together)"),
        initial=8,
    )
    sequence_length = WholeNumberField(
        path="training.sequence_length",
        label=_("Training sequence length (tokens)"),
        initial=2048,
    )
    lora_rank = WholeNumberField(
        path="training.lora_rank", label=_("LoRA rank"), initial=16, required=False
    )
    gradient_checkpointing = forms.BooleanField(
        label=_("Gradient checkpointing (recompute activations: less memory, about 1/3 more time)"),
        required=False,
        initial=True,
    )

    choice_help = {
        "goal": {
            Task.INFERENCE.value: _("Serve a trained model to users or applications."),
            Task.FINE_TUNING.value: _("Adapt an existing model to your data."),
            Task.PRETRAINING.value: _("Build a new model: the most compute by far."),
        },
        "method": {
            TrainingMethod.FULL.value: _(
                "Every weight is trained: the most memory, about 16 bytes per parameter."
            ),
            TrainingMethod.LORA.value: _(
                "The model stays frozen; small adapters are trained: far less memory."
            ),
            TrainingMethod.QLORA.value: _(
                "LoRA on a model compressed to 4 bits: the least memory, a little slower."
            ),
        },
        "precision": {
            Precision.BF16.value: _("16-bit: the usual choice for training and serving."),
            Precision.FP16.value: _("16-bit, for older GPUs without BF16."),
            Precision.FP8.value: _("8-bit floating point: half the memory, on recent GPUs."),
            Precision.INT8.value: _("8-bit quantised weights: for serving, or a LoRA base."),
            Precision.INT4.value: _("4-bit quantised weights: the smallest, slight quality loss."),
            Precision.FP32.value: _("32-bit: twice the memory of BF16, rarely needed."),
        },
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = _model_choices()
        for name in ("parameters_billions", "batch_size", "sequence_length", "lora_rank"):
            field = self.fields[name]
            field.help_text = gettext("Allowed: %(range)s.") % {"range": field.range_text()}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("model") == CUSTOM_MODEL and data.get("parameters_billions") is None:
            if "parameters_billions" not in self.errors:
                self.add_error(
                    "parameters_billions",
                    gettext("Give the size of your model: %(range)s billion parameters.")
                    % {"range": self.fields["parameters_billions"].range_text()},
                )
            return data
        if data.get("goal") == Task.PRETRAINING.value:
            data["method"] = TrainingMethod.FULL.value
        if data.get("goal") != Task.INFERENCE.value and data.get("lora_rank") is None:
            data["lora_rank"] = self.fields["lora_rank"].initial
        if not self.errors:
            try:
                workload_from_dict(self.answers())
            except WorkloadError as exc:
                self.engine_errors(exc, PROJECT_PATHS)
        return data

    def answers(self) -> dict[str, Any]:
        """This step's part of the workload (engine JSON shape)."""
        data = self.cleaned_data
        part: dict[str, Any] = {"task": data["goal"], "precision": data["precision"]}
        if data["model"] == CUSTOM_MODEL:
            part["parameters_billions"] = float(data["parameters_billions"])
        else:
            part["model"] = data["model"]
        if data["goal"] != Task.INFERENCE.value:
            part["training"] = {
                "method": data["method"],
                "batch_size": data["batch_size"],
                "sequence_length": data["sequence_length"],
                "lora_rank": data["lora_rank"],
                "gradient_checkpointing": data["gradient_checkpointing"],
            }
        return part


class DataForm(WizardStepForm):
    """Step 2; its fields depend on the goal chosen in step 1 (training or serving)."""

    step = "data"
    TRAINING_ONLY = ("epochs", "training_tokens", "deadline_days")
    INFERENCE_ONLY = ("concurrent_users", "context_length")

    kind = forms.ChoiceField(
        label=_("What kind of data?"),
        choices=[
            (DataKind.TEXT.value, _("Text")),
            (DataKind.IMAGES.value, _("Images")),
            (DataKind.DOCUMENTS.value, _("Documents (PDF, office files)")),
            (DataKind.AUDIO.value, _("Audio")),
            (DataKind.VIDEO.value, _("Video")),
        ],
        widget=forms.RadioSelect,
        initial=DataKind.TEXT.value,
    )
    items = WholeNumberField(path="data.items", label=_("How many items?"), required=False)
    total_gb = DecimalNumberField(
        path="data.total_gb",
        label=_("Total size in GB (1 GB = 10^9 bytes)"),
        required=False,
    )
    epochs = DecimalNumberField(
        path="training.epochs", label=_("Passes over the data (epochs)"), initial=1
    )
    training_tokens = WholeNumberField(
        path="training.training_tokens",
        label=_("Or the total number of training tokens"),
        required=False,
    )
    deadline_days = DecimalNumberField(
        path="training.deadline_days",
        label=_("Finish within how many days?"),
        required=False,
    )
    concurrent_users = WholeNumberField(
        path="inference.concurrent_requests",
        label=_("Users served at the same time"),
        initial=8,
    )
    context_length = WholeNumberField(
        path="inference.sequence_length",
        label=_("Context length per request (prompt + answer, in tokens)"),
        initial=4096,
    )

    def __init__(self, *args: Any, project: Mapping[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.training = project["task"] != Task.INFERENCE.value
        for name in self.INFERENCE_ONLY if self.training else self.TRAINING_ONLY:
            del self.fields[name]
        for name, field in self.fields.items():
            if isinstance(field, _RangedNumberField):
                allowed = gettext("Allowed: %(range)s.") % {"range": field.range_text()}
                field.help_text = f"{HELP[name]} {allowed}" if name in HELP else allowed

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if self.training and not any(
            data.get(name) is not None for name in ("items", "total_gb", "training_tokens")
        ):
            self.add_error(
                "items",
                gettext(
                    "Give how many items, their total size in GB or the number of training "
                    "tokens, so that the training time can be estimated."
                ),
            )
            return data
        try:
            workload_from_dict(self.workload())
        except WorkloadError as exc:
            self.engine_errors(exc, DATA_PATHS)
        return data

    def workload(self) -> dict[str, Any]:
        """The whole workload: step 1's part with this step's answers."""
        data = self.cleaned_data
        workload = {key: value for key, value in self.project.items() if key != "training"}
        item: dict[str, Any] = {"kind": data["kind"]}
        if data.get("items") is not None:
            item["items"] = data["items"]
        if data.get("total_gb") is not None:
            item["total_gb"] = float(data["total_gb"])
        workload["data"] = item
        if self.training:
            training = dict(self.project["training"])
            training["epochs"] = float(data["epochs"])
            if data.get("training_tokens") is not None:
                training["training_tokens"] = data["training_tokens"]
            if data.get("deadline_days") is not None:
                training["deadline_days"] = float(data["deadline_days"])
            workload["training"] = training
        else:
            workload["inference"] = {
                "concurrent_requests": data["concurrent_users"],
                "sequence_length": data["context_length"],
            }
        return workload


HELP = {
    "items": _("Images, documents, recordings or clips; for text, pages or examples."),
    "total_gb": _("The whole data set on disk."),
    "epochs": _("How many times the training reads the whole data set."),
    "training_tokens": _("Replaces items and epochs when you know it."),
    "deadline_days": _("More GPUs are planned when the training must finish sooner."),
    "concurrent_users": _("Requests answered in parallel at the busiest time."),
    "context_length": _("A page of text is about 500 tokens."),
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
        field = self.fields["growth_gpus"]
        field.help_text = "{} {}".format(
            gettext(
                "Every server keeps that many GPU slots free, with power and PCIe lanes "
                "already sized for them. 0 if you expect no growth."
            ),
            gettext("Allowed: %(range)s.") % {"range": field.range_text()},
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
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
                allowed % {"range": fields["electricity_price"].range_text()},
            )
        )
        fields["pue"].help_text = " ".join(
            (
                gettext(
                    "1.0 would be a data centre with no cooling overhead; leave empty for the "
                    "default."
                ),
                allowed % {"range": fields["pue"].range_text()},
            )
        )
        fields["horizon_years"].help_text = allowed % {
            "range": fields["horizon_years"].range_text()
        }
        fields["utilization_pct"].help_text = " ".join(
            (
                gettext("The share of the time the GPUs are busy."),
                allowed % {"range": fields["utilization_pct"].range_text()},
            )
        )
        fields["budget"].help_text = gettext(
            "For the purchase of the servers, in your currency. Leave empty for no limit."
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
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
        return {name: _jsonable(value) for name, value in found.items() if value is not None}


STEP_FORMS: dict[str, type[WizardStepForm]] = {
    form.step: form for form in (ProjectForm, DataForm, UsageForm, DeploymentForm)
}
STEPS: tuple[str, ...] = tuple(STEP_FORMS)
STEP_TITLES = {
    "project": _("Project"),
    "data": _("Data"),
    "usage": _("Production or experiment"),
    "deployment": _("Deployment and costs"),
}


# --- The quote request ------------------------------------------------------------------------


class QuoteRequestForm(forms.Form):
    name = SingleLineField(label=_("Your name"), max_length=120)
    company = SingleLineField(label=_("Company"), max_length=160)
    email = forms.EmailField(label=_("E-mail"), max_length=254)
    country = CountryFormField(label=_("Country"))
    message = MultiLineField(
        label=_("Message"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    consent = forms.BooleanField(
        label=_(
            "I agree that the sales team contacts me about this quote and keeps my details "
            "for that purpose."
        ),
        error_messages={"required": _("Tick this box so that we may contact you.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs["autocomplete"] = "name"
        self.fields["company"].widget.attrs["autocomplete"] = "organization"
        self.fields["email"].widget.attrs["autocomplete"] = "email"
        self.fields["country"].widget.attrs["autocomplete"] = "country"
