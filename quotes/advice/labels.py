"""Every label the pages, PDFs and exports show for an engine enum, in one place, keyed by the
enum itself.

A ``StrEnum`` member hashes and compares as its value, so ``TIER_LABELS["budget"]`` and
``TIER_LABELS[Tier.BUDGET]`` are the same label. ``ENUM_LABELS`` lists each enum with its labels:
a test checks that every member has one in English and in French, so a new member (a TCO cost
category, a way to pay...) cannot vanish from a page for want of a word. The engine's own
words for a member (``COVERAGE_LABELS``, ``LINE_ROLE_LABELS``, the part tables of
``engine.build.parts``, the ways to pay as a sentence names them) are engine messages, rendered
with ``presenters.localized_text``: the engine cannot import this module, so they stay there and
are listed here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from engine.advice.checklist import Deployment
from engine.advice.recommendation import WAY_NAMES as WAY_PHRASES
from engine.build.cluster.lines import LINE_ROLE_LABELS, LineRole
from engine.build.configuration import Environment, Tier
from engine.build.parts import (
    AVAILABILITY_LABELS,
    CABLE_KIND_LABELS,
    COOLING_LABELS,
    DRIVE_FORM_FACTOR_LABELS,
    DRIVE_KIND_LABELS,
    FORM_FACTOR_LABELS,
    GPU_CLASS_LABELS,
    Availability,
    CableKind,
    Cooling,
    DriveFormFactor,
    DriveKind,
    FormFactor,
    GpuClass,
)
from engine.commerce.service_tiers import COVERAGE_LABELS, Coverage
from engine.tco import Category, Way
from engine.tco.inputs import SensitivityParameter
from engine.tco.market import MarketPosition
from engine.workload import Precision, Sharding, Task, TrainingMethod

V = TypeVar("V")


def _labels(table: dict[str, V]) -> Mapping[str, V]:
    """Labels keyed by a ``StrEnum``'s members: read by member or by value alike."""
    return MappingProxyType(table)


# --- The configurations ----------------------------------------------------------------------

TIER_LABELS: Mapping[str, Promise] = _labels(
    {
        Tier.BUDGET: _("Budget"),
        Tier.BALANCED: _("Balanced"),
        Tier.PERFORMANCE: _("Performance"),
    }
)
TIER_HELP: Mapping[str, Promise] = _labels(
    {
        Tier.BUDGET: _("The cheapest configuration that passes every rule."),
        Tier.BALANCED: _("The most computing power per unit of price, with comfort margins."),
        Tier.PERFORMANCE: _("The fastest GPUs for the work, with comfort margins."),
    }
)
# A part's kind (the builder's lines and the cluster's) and a drive's role in its server.
PART_KIND_LABELS: Mapping[str, Promise] = MappingProxyType(
    {
        "chassis": _("Chassis"),
        "gpu": _("GPU"),
        "cpu": _("CPU"),
        "memory": _("Memory"),
        "drive": _("Drive"),
        "nic": _("Network card"),
        "switch": _("Network switch"),
        "cable": _("Cable or optic"),
        "storage_server": _("Shared storage server"),
    }
)
DRIVE_ROLE_LABELS: Mapping[str, Promise] = MappingProxyType(
    {"boot": _("system"), "data": _("data")}
)

# --- The ways to pay and what they cost --------------------------------------------------------

WAY_LABELS: Mapping[str, Promise] = _labels(
    {
        Way.ON_PREMISES: _("Buy (on premises)"),
        Way.MANAGED: _("Managed hosting"),
        Way.CLOUD: _("Cloud GPUs, on demand"),
        Way.CLOUD_RESERVED: _("Cloud GPUs, reserved 1 year"),
    }
)
# Short forms for table columns and the chart's line labels.
WAY_SHORT_LABELS: Mapping[str, Promise] = _labels(
    {
        Way.ON_PREMISES: _("Buy"),
        Way.MANAGED: _("Managed"),
        Way.CLOUD: _("Cloud"),
        Way.CLOUD_RESERVED: _("Cloud, reserved"),
    }
)
CATEGORY_LABELS: Mapping[str, Promise] = _labels(
    {
        Category.CAPITAL: _("Purchase of the servers"),
        Category.INSTALLATION: _("Installation"),
        Category.POWER: _("Electricity"),
        Category.COOLING: _("Cooling (PUE overhead)"),
        Category.SPACE: _("Rack space"),
        Category.STAFF: _("Staff"),
        Category.SUPPORT: _("Support"),
        Category.SPARES: _("Spare parts"),
        Category.INSURANCE: _("Insurance"),
        Category.NETWORK: _("Network"),
        Category.SOFTWARE: _("Software"),
        Category.SETUP: _("Set-up fee"),
        Category.HOSTING_FEES: _("Hosting fees"),
        Category.CLOUD: _("GPU-hours"),
    }
)
SENSITIVITY_TITLES: Mapping[str, Promise] = _labels(
    {
        SensitivityParameter.ELECTRICITY_PRICE: _("If the electricity price changes"),
        SensitivityParameter.UTILIZATION: _("If the GPUs are busy more or less often"),
        SensitivityParameter.HORIZON_YEARS: _("Over a shorter or longer period"),
    }
)
# Where a managed-hosting fee sits in the band of dated public offers for its GPU class.
MARKET_LABELS: Mapping[str, Promise] = _labels(
    {
        MarketPosition.BELOW: _("below the market"),
        MarketPosition.WITHIN: _("within the market"),
        MarketPosition.ABOVE: _("above the market"),
        MarketPosition.UNKNOWN: _("no public offer to compare"),
    }
)

# --- The customer's answers --------------------------------------------------------------------

TASK_LABELS: Mapping[str, Promise] = _labels(
    {
        Task.INFERENCE: pgettext_lazy("what the model is used for", "Running"),
        Task.FINE_TUNING: _("Fine-tuning"),
        Task.PRETRAINING: _("Training from scratch"),
    }
)
TRAINING_METHOD_LABELS: Mapping[str, Promise] = _labels(
    {
        TrainingMethod.FULL: _("full training"),
        TrainingMethod.LORA: _("LoRA"),
        TrainingMethod.QLORA: _("QLoRA"),
    }
)
# How the data-parallel GPUs share the model states (ZeRO stages; FSDP is ZeRO-3).
SHARDING_LABELS: Mapping[str, Promise] = _labels(
    {
        Sharding.NONE: _("none: every GPU holds the whole model states"),
        Sharding.ZERO1: _("ZeRO-1: optimizer states split between the GPUs"),
        Sharding.ZERO2: _("ZeRO-2: optimizer states and gradients split between the GPUs"),
        Sharding.ZERO3: _("ZeRO-3 / FSDP: the whole model states split between the GPUs"),
    }
)
# Number formats are written the same in every language.
PRECISION_NAMES: Mapping[str, str] = _labels(
    {precision: precision.value.upper() for precision in Precision}
)
ENVIRONMENT_LABELS: Mapping[str, Promise] = _labels(
    {Environment.EXPERIMENT: _("experiment"), Environment.PRODUCTION: _("production")}
)
DEPLOYMENT_LABELS: Mapping[str, Promise] = _labels(
    {
        Deployment.ON_PREMISES: _("On premises"),
        Deployment.MANAGED: _("Managed hosting"),
        Deployment.NOT_SURE: _("Not sure yet"),
    }
)

# --- What the job needs and what runs on the servers -------------------------------------------

# The parts of the job's GPU memory (``engine.sizing.MemoryBreakdown`` but its ``total``), in
# the order the page's bar stacks them.
MEMORY_LABELS: Mapping[str, Promise] = MappingProxyType(
    {
        "weights": _("Model weights"),
        "gradients": _("Gradients"),
        "optimizer_states": _("Optimizer states"),
        "activations": _("Activations"),
        "kv_cache": _("KV cache (context of each request)"),
        "overhead": _("Runtime overhead"),
    }
)
# The software stack's lines (``engine.performance.software.StackLine.key``).
STACK_LINE_LABELS: Mapping[str, Promise] = MappingProxyType(
    {
        "os": _("Operating system"),
        "driver": _("GPU driver"),
        "platform": _("Compute platform"),
        "container": _("Containers"),
        "frameworks": _("Frameworks"),
        "kernels": _("Number format"),
    }
)

# Each engine enum a page names, with its labels (translated lazily, engine messages, or names
# written the same in every language). The engine's own tables (its sentences use them) are
# listed with ours: the test holds them to the same rule.
ENUM_LABELS: tuple[tuple[type[Enum], Mapping[Any, Any]], ...] = (
    (Tier, TIER_LABELS),
    (Tier, TIER_HELP),
    (Way, WAY_LABELS),
    (Way, WAY_SHORT_LABELS),
    (Category, CATEGORY_LABELS),
    (SensitivityParameter, SENSITIVITY_TITLES),
    (MarketPosition, MARKET_LABELS),
    (Task, TASK_LABELS),
    (TrainingMethod, TRAINING_METHOD_LABELS),
    (Precision, PRECISION_NAMES),
    (Environment, ENVIRONMENT_LABELS),
    (Deployment, DEPLOYMENT_LABELS),
    (Coverage, COVERAGE_LABELS),
    (LineRole, LINE_ROLE_LABELS),
    (Way, WAY_PHRASES),
    (GpuClass, GPU_CLASS_LABELS),
    (FormFactor, FORM_FACTOR_LABELS),
    (Availability, AVAILABILITY_LABELS),
    (DriveKind, DRIVE_KIND_LABELS),
    (DriveFormFactor, DRIVE_FORM_FACTOR_LABELS),
    (Cooling, COOLING_LABELS),
    (CableKind, CABLE_KIND_LABELS),
)
