"""The customer wizard's writes: compute a result once and store it; record quote requests.

A result is computed at the end of the wizard from the validated answers, with the same calls
as the REST API (``advice_get``, then ``tco_get`` on the balanced option, or the only one) and
the same presenters, and stored as JSON in ``WizardResult``. The result page and the checklist
PDF render that JSON and nothing else, so a later catalog price or assumption change never
alters a stored result (STYLE.md rule 5: snapshots).

The engine's texts are rendered in every language the site offers (``settings.LANGUAGES``) when
the result is computed: the numbers are the same in each, and the page follows the visitor's
language switch while the PDF uses the result's own language.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import translation

from catalog.selectors import catalog_snapshot_get, price_ages_get
from engine import checklist
from engine.advice import gpu_profile
from engine.builder import Environment, Tier
from engine.model_registry import get_model
from engine.money import Money
from engine.parts import GpuClass, GpuSpec
from engine.sizing import Sizing, size
from engine.workload import Sharding, Workload, workload_from_dict
from gpuquote.core.countries import country_code_normalize
from quotes.advice.inputs import language_codes
from quotes.api.tco_inputs import configuration_parse
from quotes.models import QuoteRequest, WizardResult
from quotes.presenters import build_to_dict, option_to_dict, sizing_to_dict, tco_to_dict
from quotes.selectors import advice_get, assumptions_get, tco_get

RESULT_SCHEMA = 1
# The single consumer GPU workstation the recommended configuration is compared with.
WORKSTATION_GPU_SKU = "NVIDIA-RTX4090-24GB"
# Regional defaults shown next to the customer's own values (with their sources).
SHOWN_DEFAULTS = ("electricity_price_per_kwh", "pue", "grid_carbon_kg_per_kwh")


@dataclasses.dataclass(frozen=True, slots=True)
class WizardInputs:
    """Everything the computation needs, from the validated answers of the four steps."""

    workload: Mapping[str, Any]  # the engine's JSON shape (``workload_from_dict``)
    environment: str
    uptime: str
    growth_gpus: int
    deployment: str
    region: str
    currency: str
    horizon_years: int
    utilization: Decimal
    budget: Decimal | None
    overrides: Mapping[str, str]  # assumption name -> decimal string

    def to_json(self) -> dict[str, Any]:
        return {
            "workload": dict(self.workload),
            "environment": self.environment,
            "uptime": self.uptime,
            "growth_gpus": self.growth_gpus,
            "deployment": self.deployment,
            "region": self.region,
            "currency": self.currency,
            "horizon_years": self.horizon_years,
            "utilization": str(self.utilization),
            "budget": None if self.budget is None else str(self.budget),
            "overrides": dict(self.overrides),
        }


def _fully_sharded(workload: Workload) -> Workload:
    training = workload.training_or_default
    return dataclasses.replace(
        workload, training=dataclasses.replace(training, sharding=Sharding.ZERO3)
    )


def _sized_on(workload: Workload, gpu: GpuSpec, gpus: int) -> Sizing:
    """The job on ``gpus`` x ``gpu``; training that does not fit unsharded is sharded (ZeRO-3),
    as the builder assumed when it counted the GPUs."""
    sized = size(workload, gpu=gpu_profile(gpu), gpus=gpus)
    if sized.fits is False and workload.is_training and gpus > 1:
        sized = size(_fully_sharded(workload), gpu=gpu_profile(gpu), gpus=gpus)
    return sized


def _workstation_gpu(gpus: tuple[GpuSpec, ...]) -> GpuSpec | None:
    named = next((gpu for gpu in gpus if gpu.sku == WORKSTATION_GPU_SKU), None)
    if named is not None:
        return named
    consumer = [gpu for gpu in gpus if gpu.gpu_class is GpuClass.CONSUMER]
    return max(consumer, key=lambda gpu: (gpu.bf16_tflops, gpu.memory_gb), default=None)


def _model_summary(workload: Workload) -> dict[str, Any]:
    if workload.model is not None:
        entry = get_model(workload.model)
        if entry is not None:
            return {
                "id": entry.id,
                "name": entry.name,
                "parameters_billions": round(entry.parameters / 1e9, 3),
            }
    return {"id": None, "name": None, "parameters_billions": workload.parameters_billions}


def wizard_result_compute(*, inputs: WizardInputs) -> dict[str, Any]:
    """The result JSON: sizing, configurations and TCO as the presenters give them."""
    workload = workload_from_dict(inputs.workload)
    currency = inputs.currency
    advice = advice_get(
        workload=workload,
        environment=Environment(inputs.environment),
        currency=currency,
        budget=None if inputs.budget is None else Money(inputs.budget, currency),
        growth_gpus=inputs.growth_gpus,
    )
    options = {option.tier: option for option in advice.build.options}
    chosen = options.get(Tier.BALANCED) or next(iter(advice.build.options), None)
    tco = None
    if chosen is not None:
        tco = tco_get(
            configuration=configuration_parse(option_to_dict(chosen)),
            horizon_years=inputs.horizon_years,
            utilization=inputs.utilization,
            region=inputs.region,
            currency=currency,
            overrides={name: Decimal(value) for name, value in inputs.overrides.items()},
        )

    gpus = catalog_snapshot_get(currency=currency).gpus
    recommended_gpu = None
    on_recommended = None
    if chosen is not None:
        sku = next(line.sku for line in chosen.parts if line.kind == "gpu")
        recommended_gpu = next((gpu for gpu in gpus if gpu.sku == sku), None)
        if recommended_gpu is not None:
            on_recommended = _sized_on(workload, recommended_gpu, chosen.totals.gpus)
    workstation_gpu = _workstation_gpu(gpus)
    on_workstation = None if workstation_gpu is None else _sized_on(workload, workstation_gpu, 1)

    defaults = assumptions_get(region=inputs.region, currency=currency)
    price_ages = price_ages_get(currency=currency)
    by_language = {}
    for code in language_codes():
        with translation.override(code):
            by_language[code] = {
                "sizing": sizing_to_dict(advice.sizing),
                "build": build_to_dict(advice.build, price_ages),
                "tco": None if tco is None else tco_to_dict(tco),
                "on_recommended": None
                if on_recommended is None
                else sizing_to_dict(on_recommended),
                "on_workstation": None
                if on_workstation is None
                else sizing_to_dict(on_workstation),
                "defaults": {
                    name: {
                        "value": format(defaults.value(name).normalize(), "f"),
                        "unit": defaults[name].unit,
                        "source": defaults[name].source,
                    }
                    for name in SHOWN_DEFAULTS
                    if name in defaults
                },
            }
    return {
        "schema": RESULT_SCHEMA,
        "inputs": inputs.to_json(),
        "model": _model_summary(workload),
        "chosen_tier": None if chosen is None else str(chosen.tier),
        "recommended_gpu": None
        if recommended_gpu is None or chosen is None
        else {
            "sku": recommended_gpu.sku,
            "name": recommended_gpu.name,
            "count": chosen.totals.gpus,
        },
        "workstation_gpu": None
        if workstation_gpu is None
        else {
            "sku": workstation_gpu.sku,
            "name": workstation_gpu.name,
            "memory_gb": workstation_gpu.memory_gb,
        },
        "by_language": by_language,
    }


def wizard_result_create(
    *, answers: Mapping[str, Any], inputs: WizardInputs, language: str
) -> WizardResult:
    """Compute the result once and store it with the answers, under a new private token."""
    result = wizard_result_compute(inputs=inputs)
    return WizardResult.objects.create(language=language, answers=dict(answers), result=result)


@transaction.atomic
def quote_request_create(
    *,
    result: WizardResult,
    name: str,
    company: str,
    email: str,
    country: str,
    consent: bool,
    message: str = "",
) -> tuple[QuoteRequest, bool]:
    """A quote request on a stored result, for the sales team (listed in the admin), and whether
    it is new: a repeat from the same e-mail address (in any case) returns the recorded one
    unchanged (the constraint ``quotes_quoterequest_one_per_result_email`` guards races)."""
    if not consent:
        raise ValidationError({"consent": ["Consent is required to send a quote request."]})
    email = email.strip().lower()
    locked = WizardResult.objects.select_for_update().get(pk=result.pk)
    existing = QuoteRequest.objects.filter(result=locked, email=email).first()
    if existing is not None:
        return existing, False
    request = QuoteRequest(
        result=locked,
        name=name.strip(),
        company=company.strip(),
        email=email,
        country=country_code_normalize(country),
        consent=consent,
        message=message.strip(),
    )
    request.full_clean(exclude=["result"])  # the (result, e-mail) rule: the database's, below
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves the outer transaction usable
            request.save()
    except IntegrityError:
        existing = QuoteRequest.objects.filter(result=locked, email=email).first()
        if existing is None:
            raise
        return existing, False
    return request, True


# --- Reading a stored result ----------------------------------------------------------------------


def result_texts(result: WizardResult, language: str | None = None) -> dict[str, Any]:
    """The stored dicts in ``language`` when stored, else in the result's own language."""
    by_language = result.result["by_language"]
    return by_language.get(language or "", by_language[result.language])


def _money(value: str | None, currency: str) -> Money | None:
    return None if value is None else Money(Decimal(value), currency)


def checklist_evaluate(result: WizardResult) -> tuple[checklist.ChecklistItem, ...]:
    """The five-point checklist from the stored figures (numbers only: any language will do)."""
    data = result.result
    inputs = data["inputs"]
    texts = result_texts(result)
    currency = inputs["currency"]
    option = next((o for o in texts["build"]["options"] if o["tier"] == data["chosen_tier"]), None)
    figures = None
    if option is not None:
        totals = option["totals"]
        cpu = next((line for line in option["parts"] if line["kind"] == "cpu"), None)
        gpu = next((line for line in option["parts"] if line["kind"] == "gpu"), None)
        figures = checklist.OptionFigures(
            servers=option["servers"],
            gpus=totals["gpus"],
            gpu_name=gpu["name"] if gpu else "",
            vram_gb=totals["vram_gb"],
            ram_gb=totals["ram_gb"],
            storage_gb=totals["storage_gb"],
            cpu_name=cpu["name"] if cpu else "",
            cpus=(cpu["quantity"] * option["servers"]) if cpu else 0,
            price=Money(Decimal(totals["price"]), currency),
            passed={check["rule"]: check["passed"] for check in option["checks"]},
        )
    costs = None
    tco = texts["tco"]
    if tco is not None:
        options = tco["options"]
        on_premises = options["on_premises"]["by_category"]

        def category(*names: str) -> Money:
            total = sum(
                (Decimal(on_premises[name]) for name in names if name in on_premises), Decimal(0)
            )
            return Money(total, currency)

        costs = checklist.CostFigures(
            horizon_years=tco["horizon_months"] // 12,
            on_premises=Money(Decimal(options["on_premises"]["total"]), currency),
            managed=_money(options.get("managed", {}).get("total"), currency),
            cloud=_money(options.get("cloud", {}).get("total"), currency),
            capital=category("capital"),
            energy=category("power", "cooling"),
            support=category("support", "spares", "insurance"),
            break_even_vs_managed=tco["break_even_month"]["vs_managed"],
        )
    return checklist.evaluate(
        checklist.ChecklistInput(
            job_memory_gb=texts["sizing"]["memory_gb"]["total"],
            storage_need_gb=texts["sizing"]["storage_gb"],
            growth_gpus=inputs["growth_gpus"],
            deployment=checklist.Deployment(inputs["deployment"]),
            option=figures,
            costs=costs,
            budget=_money(inputs["budget"], currency),
        )
    )
