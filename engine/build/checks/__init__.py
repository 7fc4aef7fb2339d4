"""The rule checks: one record per rule of ``rules.py``, each a pass/fail and a sentence.

Each check is a ``RuleCheck`` record (``gpu_rules.py``, ``server_rules.py``, ``platform_rules.py``,
``site_rules.py``): the figures its sentences quote and its outcomes in order; ``records.evaluate``
runs any of them.
``check_configuration`` runs them all on any server configuration, hand-built ones included.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import rules
from ..configuration import (
    BuildNeeds,
    Check,
    Environment,
    GpuFit,
    ServerConfiguration,
    server_needs,
)
from . import availability_rules, gpu_rules, platform_rules, server_rules, site_rules
from .records import RuleCheck, Subject, evaluate, load_mw, model_sharded, nvlink_ok

_CHECKS: dict[str, RuleCheck] = {
    check.rule: check
    for check in (
        gpu_rules.GPU_COUNT,
        gpu_rules.GPU_MEMORY,
        gpu_rules.GPU_MEMORY_FLOOR,
        gpu_rules.GPU_PRECISION,
        gpu_rules.PRODUCTION_GPU,
        gpu_rules.CONSUMER_LIMIT,
        gpu_rules.GPU_FIT_CHASSIS,
        gpu_rules.NVLINK,
        gpu_rules.COOLING,
        server_rules.CPU_SERVER_GRADE,
        server_rules.CPU_CORES,
        server_rules.PCIE_LANES,
        server_rules.SYSTEM_RAM,
        server_rules.MEMORY_POPULATION,
        platform_rules.STORAGE_NVME,
        platform_rules.STORAGE_CAPACITY,
        platform_rules.STORAGE_THROUGHPUT,
        platform_rules.BOOT_MIRROR,
        platform_rules.POWER,
        site_rules.SITE_POWER,
        platform_rules.REDUNDANT_PSU,
        platform_rules.RACK_CHASSIS,
        availability_rules.AVAILABILITY,
        platform_rules.INTERCONNECT,
    )
}
_CHECK_ORDER = tuple(_CHECKS[code] for code in rules.RULE_ORDER)


def iter_checks(
    config: ServerConfiguration, needs: BuildNeeds, fit: GpuFit | None = None
) -> Iterator[Check]:
    subject = Subject(
        config=config,
        needs=needs,
        fit=needs.gpus_for(config.gpu) if fit is None else fit,
        server=server_needs(needs, config.gpu, config.gpu_count, config.servers),
        production=needs.environment is Environment.PRODUCTION,
    )
    for check in _CHECK_ORDER:
        yield evaluate(check, subject)


def check_configuration(config: ServerConfiguration, needs: BuildNeeds) -> tuple[Check, ...]:
    """One ``Check`` per rule, in ``rules.RULE_ORDER``; the configuration is valid when all pass."""
    return tuple(iter_checks(config, needs))


def configuration_feasible(config: ServerConfiguration, needs: BuildNeeds) -> bool:
    """Whether every check passes; stops at the first failure (the search's test oracle)."""
    return all(check.passed for check in iter_checks(config, needs))


__all__ = [
    "check_configuration",
    "configuration_feasible",
    "iter_checks",
    "load_mw",
    "model_sharded",
    "nvlink_ok",
]
