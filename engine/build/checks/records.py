"""What a rule check is made of: the subject it looks at, and its outcomes as records.

A rule check (``RuleCheck``) is data: the rule's code, the figures its sentences quote, and its
outcomes in order. The first outcome whose condition holds decides: passed or failed, the English
sentence (a template marked for translation, rendered in the reader's language at the edge) and
whether a passed check carries a warning. ``evaluate`` is the one function that runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...i18n import Message, Plural
from .. import rules
from ..configuration import (
    POWER_MARGIN_DEN,
    POWER_MARGIN_NUM,
    BuildNeeds,
    Check,
    GpuFit,
    ServerConfiguration,
    ServerNeeds,
    mw,
    nic_pcie_lanes,
    power_capacity_w,
    usable_data_gb,
)
from ..parts import ChassisSpec, DriveKind, GpuSpec


@dataclass(frozen=True, slots=True)
class Subject:
    """One server configuration checked against one job's needs."""

    config: ServerConfiguration
    needs: BuildNeeds
    fit: GpuFit | None
    server: ServerNeeds
    production: bool


Params = Callable[[Subject], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One outcome of a rule check; the first whose ``when`` holds decides."""

    when: Callable[[Subject], bool]
    passed: bool
    # English, marked with gettext_noop (or both forms with ngettext_noop, then ``count`` names
    # the parameter that chooses the form); %(name)s placeholders from the params
    template: str | Plural
    warning: bool = False  # passed, with a caveat the customer should read
    params: Params | None = None  # these figures instead of the rule's (when those cannot exist)
    count: str = ""

    def message(self, params: Mapping[str, Any]) -> Message:
        if isinstance(self.template, Plural):
            return Message.counted(self.template, self.count, **params)
        return Message(self.template, params)


@dataclass(frozen=True, slots=True)
class RuleCheck:
    """A rule of ``rules.py`` as a check: the figures its sentences quote and its outcomes."""

    rule: str  # a code of rules.RULES
    params: Params
    outcomes: tuple[Outcome, ...]  # the last one holds always


def always(s: Subject) -> bool:
    """The condition of a rule's last outcome."""
    return True


def evaluate(check: RuleCheck, subject: Subject) -> Check:
    """The ``Check`` of the first outcome whose condition holds on ``subject``."""
    for outcome in check.outcomes:
        if outcome.when(subject):
            params = (outcome.params or check.params)(subject)
            return Check(check.rule, outcome.passed, outcome.message(params), outcome.warning)
    raise AssertionError(f"rule check {check.rule} has no outcome for this configuration")


# --- Figures shared by conditions and sentences ---------------------------------------------------


def fit(s: Subject) -> GpuFit:
    """The job's fit on the configuration's GPU, for outcomes after the ``fit is None`` one."""
    if s.fit is None:
        raise ValueError("the job cannot run on this GPU: an earlier outcome says so")
    return s.fit


def model_sharded(needs: BuildNeeds, fit: GpuFit | None) -> bool:
    if fit is not None and fit.model_sharded is not None:
        return fit.model_sharded
    return needs.model_sharded


def nvlink_ok(
    gpu: GpuSpec,
    chassis: ChassisSpec,
    per_server: int,
    sharded: bool,
    serving: bool = False,
    replica: int = 1,
) -> bool:
    """Whether GPUs sharing a model in one server are linked as the job needs. Serving may split
    a copy over PCIe inside one server (tensor-parallel inference works there, slower), but not
    a copy that also spans servers; training may not."""
    if not sharded or per_server <= 1:
        return True
    if serving and replica <= per_server:
        return True
    return nvlink_linked(gpu, chassis, per_server)


def nvlink_linked(gpu: GpuSpec, chassis: ChassisSpec, per_server: int) -> bool:
    """Whether NVLink (or Infinity Fabric) links all ``per_server`` GPUs of the chassis."""
    if gpu.nvlink_gbs is None:
        return False
    return chassis.nvswitch or (
        chassis.nvlink_bridge and per_server <= rules.NVLINK_BRIDGE_MAX_GPUS
    )


def pcie_lanes(s: Subject) -> tuple[int, int, int, int]:
    """Lanes per server: (needed, of which NICs, of which NVMe drives; provided by the CPUs)."""
    c = s.config
    nic_lanes = nic_pcie_lanes(c.nic) * c.nic_count if c.nic is not None else 0
    nvme_lanes = (
        rules.PCIE_LANES_PER_NVME * c.data_drive_count if c.data_drive.kind is DriveKind.NVME else 0
    )
    need = s.server.gpu_lanes + nic_lanes + nvme_lanes
    return need, nic_lanes, nvme_lanes, c.cpu.pcie_lanes * c.cpu_count


def memory_channels(s: Subject) -> int:
    """Memory channels per server: CPUs x channels per CPU."""
    return s.config.cpu_count * s.config.cpu.memory_channels


def load_mw(config: ServerConfiguration) -> int:
    """Full-load draw of one server as built, in mW."""
    c = config
    nic_mw = mw(c.nic.power_w) * c.nic_count if c.nic is not None else 0
    return (
        c.gpu.tdp_w * 1000 * c.gpu_count
        + c.cpu.tdp_w * 1000 * c.cpu_count
        + mw(c.dimm.power_w) * c.dimm_count
        + mw(c.data_drive.power_w) * c.data_drive_count
        + nic_mw
        + c.chassis.base_power_w * 1000
    )


def growth_reserve_mw(s: Subject) -> int:
    """The draw of the GPUs kept for growth, in mW."""
    return s.config.gpu.tdp_w * 1000 * s.needs.growth_gpus


def power_fits(s: Subject) -> bool:
    """Full load plus growth GPUs, with the margin, within what the supplies may give."""
    capacity = power_capacity_w(s.config.chassis, s.production)
    load = load_mw(s.config) + growth_reserve_mw(s)
    return load * POWER_MARGIN_NUM <= capacity * 1000 * POWER_MARGIN_DEN


def data_storage_gb(s: Subject) -> float:
    """Usable data storage per server, in GB (mirrored in production)."""
    return usable_data_gb(s.config.data_drive, s.config.data_drive_count, s.production)
