"""The result page's "change and re-price" form: the GPU model and count, the horizon, the region
and the deployment, changed on a stored result without walking the wizard again. The other answers
stay; the bounds and choices are the wizard's own (``quotes.advice.inputs``)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from quotes.advice.inputs import GPU_COUNT_MAX, MAX_HORIZON_YEARS, MIN_HORIZON_YEARS, REGIONS
from quotes.advice.labels import DEPLOYMENT_LABELS
from quotes.advice.result import AdviceInputs
from quotes.wizard.forms.deployment import REGION_NAMES
from quotes.wizard.forms.fields import WholeNumberField

DEPLOYMENT_NAMES = {str(key): label for key, label in DEPLOYMENT_LABELS.items()}


class RepriceForm(forms.Form):
    gpu = forms.ChoiceField(label=_("GPU model"), required=False)
    gpu_count = WholeNumberField(
        minimum=1,
        maximum=GPU_COUNT_MAX,
        label=_("GPUs in all, at least"),
        help_text=_("Empty: what the work needs. Fewer than it needs is not possible."),
        required=False,
    )
    horizon_years = WholeNumberField(
        minimum=MIN_HORIZON_YEARS,
        maximum=MAX_HORIZON_YEARS,
        label=_("Years to compare"),
    )
    region = forms.ChoiceField(
        label=_("Region"), choices=[(code, REGION_NAMES[code]) for code in REGIONS]
    )
    deployment = forms.ChoiceField(
        label=_("Where the servers run"), choices=list(DEPLOYMENT_NAMES.items())
    )

    def __init__(self, *args: Any, gpus: list[tuple[str, str]], **kwargs: Any) -> None:
        """``gpus``: (SKU, name) of the models for sale."""
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["gpu"]).choices = [
            ("", _("The best fit for the work")),
            *gpus,
        ]

    @staticmethod
    def initial_from(inputs: AdviceInputs) -> dict[str, Any]:
        return {
            "gpu": inputs.gpu_sku,
            "gpu_count": inputs.gpu_count or None,
            "horizon_years": inputs.horizon_years,
            "region": inputs.region,
            "deployment": inputs.deployment,
        }
