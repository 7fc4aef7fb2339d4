"""Steps 1 and 2 of the wizard, the workload: the project (goal, model, precision, training
settings) and its data (how much, how many passes, or how many users are served).

Both steps run the engine's own cross-field validation (``workload_from_dict``) and put its
messages on the matching field.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.workload import (
    DataKind,
    Precision,
    Task,
    TrainingMethod,
    Workload,
    WorkloadError,
    context_limit,
    workload_from_dict,
)
from engine.workload.registry import ModelKind, all_models
from gpuquote.core.formatting import number_localized
from quotes.advice.inputs import INFERENCE_DEFAULTS, TRAINING_DEFAULTS, WIZARD_CONCURRENT_USERS
from quotes.wizard.forms.base import WizardStepForm
from quotes.wizard.forms.fields import DecimalNumberField, RangedNumberField, WholeNumberField

CUSTOM_MODEL = "custom"


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
    "model_kind": "model_kind",
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
    model_kind = forms.ChoiceField(
        label=_("Kind of that model"),
        help_text=_("Used with the size of another model: it decides how its memory is counted."),
        choices=[
            (ModelKind.DECODER.value, _("Text generation (chatbot, assistant, code)")),
            (ModelKind.ENCODER.value, _("Text embeddings, reranking, classification (BERT-like)")),
            (ModelKind.DIFFUSION.value, _("Image generation (diffusion)")),
            (ModelKind.VISION.value, _("Image recognition (classification, detection)")),
        ],
        initial=ModelKind.DECODER.value,
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
        initial=TRAINING_DEFAULTS.batch_size,
        help_text=_(
            "How many examples the model learns from at each step. The GPUs do not hold them all "
            "at once: each takes a small micro-batch at a time and adds up what it learned "
            "(gradient accumulation), so a larger batch barely changes the hardware."
        ),
    )
    sequence_length = WholeNumberField(
        path="training.sequence_length",
        label=_("Training sequence length (tokens)"),
        initial=TRAINING_DEFAULTS.sequence_length,
    )
    lora_rank = WholeNumberField(
        path="training.lora_rank",
        label=_("LoRA rank"),
        initial=TRAINING_DEFAULTS.lora_rank,
        required=False,
    )
    gradient_checkpointing = forms.BooleanField(
        label=_("Gradient checkpointing (recompute activations: less memory, about 1/3 more time)"),
        required=False,
        initial=TRAINING_DEFAULTS.gradient_checkpointing,
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
        cast(forms.ChoiceField, self.fields["model"]).choices = _model_choices()
        for name in ("parameters_billions", "batch_size", "sequence_length", "lora_rank"):
            field = self.number_field(name)
            field.help_text = gettext("Allowed: %(range)s.") % {"range": field.range_text()}

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("model") == CUSTOM_MODEL and data.get("parameters_billions") is None:
            if "parameters_billions" not in self.errors:
                self.add_error(
                    "parameters_billions",
                    gettext("Give the size of your model: %(range)s billion parameters.")
                    % {"range": self.number_field("parameters_billions").range_text()},
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
            kind = data.get("model_kind") or ModelKind.DECODER.value
            if kind != ModelKind.DECODER.value:  # the engine's default for a custom size
                part["model_kind"] = kind
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
        initial=WIZARD_CONCURRENT_USERS,
    )
    context_length = WholeNumberField(
        path="inference.sequence_length",
        label=_("Context length per request (prompt + answer, in tokens)"),
        initial=INFERENCE_DEFAULTS.sequence_length,
    )

    def __init__(self, *args: Any, project: Mapping[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        self.training = project["task"] != Task.INFERENCE.value
        for name in self.INFERENCE_ONLY if self.training else self.TRAINING_ONLY:
            del self.fields[name]
        for name, field in self.fields.items():
            if isinstance(field, RangedNumberField):
                allowed = gettext("Allowed: %(range)s.") % {"range": field.range_text()}
                field.help_text = f"{HELP[name]} {allowed}" if name in HELP else allowed
        if not self.training:
            self._context_within_the_model()

    def _context_within_the_model(self) -> None:
        """A registry model's maximum context, stated under the field and, when shorter than the
        usual default, pre-filled (a BERT takes 512 tokens); the engine refuses a longer one."""
        limit = context_limit(Workload(task=Task.INFERENCE, model=self.project.get("model")))
        if limit is None:
            return
        field = self.fields["context_length"]
        if field.initial is None or limit < field.initial:
            field.initial = limit
        most = gettext("This model takes at most %(max)s tokens.") % {
            "max": number_localized(Decimal(limit), 0)
        }
        field.help_text = f"{field.help_text} {most}"

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
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
