"""The GPU rule checks as records: count, memory, number format, class, chassis fit (form
factor, baseboard generation, slots), NVLink and cooling."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import rules
from ..configuration import _memory_floor_gb, _num, _usable_gb
from ..i18n import gettext_noop
from ..parts import (
    COOLING_LABELS,
    FORM_FACTOR_LABELS,
    GPU_CLASS_LABELS,
    Cooling,
    GpuClass,
    baseboard_fits,
    fabric_names,
)
from .records import Outcome, RuleCheck, Subject, always, fit, model_sharded


def _gpu_count_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    return {
        "have": c.servers * c.gpu_count,
        "servers": c.servers,
        "per_server": c.gpu_count,
        "need": fit(s).gpus,
        "gpu": c.gpu.name,
    }


GPU_COUNT = RuleCheck(
    rules.GPU_COUNT,
    _gpu_count_params,
    (
        Outcome(
            lambda s: s.fit is None,
            False,
            gettext_noop("The job cannot run on the %(gpu)s at any GPU count."),
            params=lambda s: {"gpu": s.config.gpu.name},
        ),
        Outcome(
            lambda s: s.config.servers * s.config.gpu_count >= fit(s).gpus,
            True,
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s "
                "GPUs the job needs."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs are fewer than the %(need)s "
                "%(gpu)s GPUs the job needs."
            ),
        ),
    ),
)


def _gpu_memory_params(s: Subject) -> Mapping[str, Any]:
    gpu = s.config.gpu
    return {
        "need_gb": _num(fit(s).memory_per_gpu_gb),
        "usable_gb": _num(_usable_gb(gpu)),
        "memory_gb": _num(gpu.memory_gb),
        "gpu": gpu.name,
    }


GPU_MEMORY = RuleCheck(
    rules.GPU_MEMORY,
    _gpu_memory_params,
    (
        Outcome(
            lambda s: s.fit is None,
            False,
            gettext_noop("The job does not fit the %(gpu)s's %(memory_gb)s GB at any count."),
            params=lambda s: {"gpu": s.config.gpu.name, "memory_gb": _num(s.config.gpu.memory_gb)},
        ),
        Outcome(
            lambda s: _usable_gb(s.config.gpu) >= fit(s).memory_per_gpu_gb,
            True,
            gettext_noop(
                "The job needs %(need_gb)s GB per GPU; the %(gpu)s offers %(usable_gb)s GB usable "
                "of %(memory_gb)s GB."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The job needs %(need_gb)s GB per GPU but the %(gpu)s offers only %(usable_gb)s GB "
                "usable of %(memory_gb)s GB."
            ),
        ),
    ),
)

GPU_MEMORY_FLOOR = RuleCheck(
    rules.GPU_MEMORY_FLOOR,
    lambda s: {
        "gpu": s.config.gpu.name,
        "memory_gb": _num(s.config.gpu.memory_gb),
        "floor_gb": _memory_floor_gb(s.needs),
    },
    (
        Outcome(
            lambda s: s.config.gpu.memory_gb >= _memory_floor_gb(s.needs),
            True,
            gettext_noop(
                "The %(gpu)s has %(memory_gb)s GB per GPU, at least the %(floor_gb)s GB this "
                "project needs."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The %(gpu)s has %(memory_gb)s GB per GPU, below the %(floor_gb)s GB this project "
                "needs."
            ),
        ),
    ),
)


def _precision_params(s: Subject) -> Mapping[str, Any]:
    precision = s.needs.precision
    gpu = s.config.gpu
    return {
        "gpu": gpu.name,
        "architecture": gpu.architecture or "?",
        "precision": rules.PRECISION_LABELS.get(precision, precision.upper()),
        "supported": ", ".join(rules.PRECISION_ARCHITECTURES.get(precision, ())),
    }


GPU_PRECISION = RuleCheck(
    rules.GPU_PRECISION,
    _precision_params,
    (
        Outcome(
            lambda s: not s.needs.precision,
            True,
            gettext_noop("No number format asked: the %(gpu)s is not judged on one."),
        ),
        Outcome(
            lambda s: rules.runs_precision(s.config.gpu.architecture, s.needs.precision),
            True,
            gettext_noop("The %(gpu)s (%(architecture)s) runs %(precision)s."),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The %(gpu)s (%(architecture)s) cannot run %(precision)s, which needs one of "
                "these GPU architectures: %(supported)s."
            ),
        ),
    ),
)

PRODUCTION_GPU = RuleCheck(
    rules.PRODUCTION_GPU,
    lambda s: {"gpu": s.config.gpu.name, "gpu_class": GPU_CLASS_LABELS[s.config.gpu.gpu_class]},
    (
        Outcome(
            lambda s: s.production and s.config.gpu.gpu_class is not GpuClass.DATACENTER,
            False,
            gettext_noop(
                "The %(gpu)s is a %(gpu_class)s GPU; production needs a datacenter GPU with ECC."
            ),
        ),
        Outcome(
            lambda s: s.production and not s.config.gpu.ecc,
            False,
            gettext_noop(
                "The %(gpu)s has no ECC memory; production needs a datacenter GPU with ECC."
            ),
        ),
        Outcome(
            lambda s: s.production,
            True,
            gettext_noop("The %(gpu)s is a datacenter GPU with ECC memory."),
        ),
        Outcome(
            lambda s: not s.config.gpu.ecc,
            True,
            gettext_noop(
                "Experiment: the %(gpu)s (%(gpu_class)s) is allowed, with no ECC: a memory error "
                "can go unnoticed."
            ),
            warning=True,
        ),
        Outcome(
            always, True, gettext_noop("Experiment: the %(gpu)s (%(gpu_class)s, ECC) is allowed.")
        ),
    ),
)

CONSUMER_LIMIT = RuleCheck(
    rules.CONSUMER_LIMIT,
    lambda s: {
        "gpu": s.config.gpu.name,
        "count": s.config.gpu_count,
        "max": rules.CONSUMER_GPUS_MAX_PER_SERVER,
    },
    (
        Outcome(
            lambda s: s.config.gpu.gpu_class is not GpuClass.CONSUMER,
            True,
            gettext_noop("The %(gpu)s is not a consumer card: no per-server limit."),
        ),
        Outcome(
            lambda s: s.config.gpu_count <= rules.CONSUMER_GPUS_MAX_PER_SERVER,
            True,
            gettext_noop("%(count)s consumer cards per server, within the limit of %(max)s."),
        ),
        Outcome(
            always,
            False,
            gettext_noop("%(count)s consumer cards per server, above the limit of %(max)s."),
        ),
    ),
)


def _gpu_fit_chassis_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    ch = c.chassis
    return {
        "gpu": c.gpu.name,
        "chassis": ch.name,
        "form": FORM_FACTOR_LABELS[c.gpu.form_factor],
        "accepted": ", ".join(sorted(FORM_FACTOR_LABELS[f] for f in ch.gpu_form_factors)) or "-",
        "board": c.gpu.baseboard or "?",
        "boards": ", ".join(sorted(ch.baseboards)) or "-",
        "count": c.gpu_count,
        "slots": ch.gpu_slots,
        "growth": s.needs.growth_gpus,
        "free": ch.gpu_slots - c.gpu_count,
    }


def _on_baseboard(s: Subject) -> bool:
    return s.config.gpu.form_factor in rules.BASEBOARD_FORM_FACTORS


GPU_FIT_CHASSIS = RuleCheck(
    rules.GPU_FIT_CHASSIS,
    _gpu_fit_chassis_params,
    (
        Outcome(
            lambda s: s.config.gpu.form_factor not in s.config.chassis.gpu_form_factors,
            False,
            gettext_noop("The %(chassis)s takes %(accepted)s GPUs, not the %(form)s %(gpu)s."),
        ),
        Outcome(
            lambda s: not baseboard_fits(s.config.gpu, s.config.chassis),
            False,
            gettext_noop(
                "The %(gpu)s comes on an %(board)s baseboard; the %(chassis)s is built for "
                "%(boards)s baseboards only."
            ),
        ),
        Outcome(
            lambda s: s.config.gpu_count < 1,
            False,
            gettext_noop("The configuration has no GPU in the %(chassis)s."),
        ),
        Outcome(
            lambda s: _on_baseboard(s) and s.config.gpu_count != s.config.chassis.gpu_slots,
            False,
            gettext_noop(
                "The %(chassis)s baseboard holds exactly %(slots)s %(form)s GPUs, not %(count)s."
            ),
        ),
        Outcome(
            lambda s: _on_baseboard(s) and bool(s.needs.growth_gpus),
            False,
            gettext_noop(
                "The %(chassis)s baseboard is always fully populated: it cannot keep %(growth)s "
                "slots free for growth."
            ),
        ),
        Outcome(
            lambda s: s.config.gpu_count + s.needs.growth_gpus > s.config.chassis.gpu_slots,
            False,
            gettext_noop(
                "%(count)s GPUs plus %(growth)s kept for growth exceed the %(slots)s slots of the "
                "%(chassis)s."
            ),
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "%(count)s %(form)s GPUs in the %(slots)s slots of the %(chassis)s, %(free)s free "
                "(%(growth)s kept for growth)."
            ),
        ),
    ),
)

NVLINK = RuleCheck(
    rules.NVLINK,
    lambda s: {
        "gpu": s.config.gpu.name,
        "chassis": s.config.chassis.name,
        "count": s.config.gpu_count,
        "gbs": _num(s.config.gpu.nvlink_gbs or 0),
        "bridge_max": rules.NVLINK_BRIDGE_MAX_GPUS,
    },
    (
        Outcome(
            lambda s: not model_sharded(s.needs, s.fit),
            True,
            gettext_noop("Not needed: each GPU holds a whole copy of the model."),
        ),
        Outcome(
            lambda s: s.config.gpu_count <= 1,
            True,
            gettext_noop("Not needed: one GPU per server."),
        ),
        Outcome(
            lambda s: s.config.gpu.nvlink_gbs is None,
            False,
            gettext_noop(
                "The %(gpu)s has no NVLink, but %(count)s GPUs per server share one model."
            ),
        ),
        Outcome(
            lambda s: s.config.chassis.nvswitch and fabric_names(s.config.gpu)[1] == "NVSwitch",
            True,
            gettext_noop("NVSwitch links the %(count)s GPUs at %(gbs)s GB/s each."),
        ),
        Outcome(
            lambda s: s.config.chassis.nvswitch,
            True,
            gettext_noop(
                "The Infinity Fabric mesh of the baseboard links the %(count)s GPUs all-to-all "
                "at %(gbs)s GB/s each."
            ),
        ),
        Outcome(
            lambda s: (
                s.config.chassis.nvlink_bridge
                and s.config.gpu_count <= rules.NVLINK_BRIDGE_MAX_GPUS
            ),
            True,
            gettext_noop("An NVLink bridge joins the %(count)s GPUs at %(gbs)s GB/s."),
        ),
        Outcome(
            lambda s: s.config.chassis.nvlink_bridge,
            False,
            gettext_noop(
                "The %(chassis)s joins cards in pairs with NVLink bridges; %(count)s GPUs that "
                "share one model need NVSwitch."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The %(chassis)s has neither NVSwitch nor NVLink bridges to link %(count)s GPUs "
                "that share one model."
            ),
        ),
    ),
)

COOLING = RuleCheck(
    rules.COOLING,
    lambda s: {
        "gpu": s.config.gpu.name,
        "chassis": s.config.chassis.name,
        "tdp": s.config.gpu.tdp_w,
        "max": s.config.chassis.max_gpu_tdp_w,
        "cooling": COOLING_LABELS[s.config.chassis.cooling],
        "limit": rules.LIQUID_COOLING_ABOVE_GPU_W,
    },
    (
        Outcome(
            lambda s: s.config.gpu.tdp_w > s.config.chassis.max_gpu_tdp_w,
            False,
            gettext_noop(
                "The %(gpu)s draws %(tdp)s W, above the %(max)s W per GPU the %(chassis)s can cool."
            ),
        ),
        Outcome(
            lambda s: (
                s.config.gpu.tdp_w > rules.LIQUID_COOLING_ABOVE_GPU_W
                and s.config.chassis.cooling is not Cooling.LIQUID
            ),
            False,
            gettext_noop(
                "The %(gpu)s draws %(tdp)s W: above %(limit)s W per GPU it needs liquid cooling, "
                "and the %(chassis)s is air-cooled."
            ),
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "The %(chassis)s (%(cooling)s cooling) is rated for %(max)s W per GPU; the "
                "%(gpu)s draws %(tdp)s W."
            ),
        ),
    ),
)
