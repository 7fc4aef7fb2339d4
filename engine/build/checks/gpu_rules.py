"""The GPU rule checks as records: count, memory, number format, class, chassis fit (form
factor, baseboard generation, slots), NVLink and cooling."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...i18n import gettext_noop, ngettext_noop
from .. import rules
from ..configuration import (
    memory_floor_gb,
    num,
    replica_layout_ok,
    server_capacity,
    sparse_training,
    usable_memory_gb,
)
from ..parts import (
    COOLING_LABELS,
    FORM_FACTOR_LABELS,
    GPU_CLASS_LABELS,
    Cooling,
    GpuClass,
    baseboard_fits,
    fabric_names,
)
from .records import Outcome, RuleCheck, Subject, always, fit, model_sharded, nvlink_linked


def _gpu_count_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    job = fit(s)
    spare = min(s.needs.spare_servers, c.servers - 1)
    return {
        "have": (c.servers - spare) * c.gpu_count,
        "servers": c.servers - spare,
        "per_server": c.gpu_count,
        "need": job.gpus,
        "gpu": c.gpu.name,
        "replica": job.replica_gpus,
        "copies": job.gpus // job.replica_gpus,
        "stages": max(1, job.replica_gpus // c.gpu_count),
        "spare": spare,
    }


def _capacity(s: Subject) -> int:
    return server_capacity(s.config.gpu, s.config.chassis, s.needs.growth_gpus)


def _layout_ok(s: Subject) -> bool:
    return replica_layout_ok(s.config.gpu_count, fit(s).replica_gpus, _capacity(s))


def _covered(s: Subject) -> bool:
    spare = min(s.needs.spare_servers, s.config.servers - 1)
    return (s.config.servers - spare) * s.config.gpu_count >= fit(s).gpus


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
            lambda s: not _layout_ok(s) and fit(s).replica_gpus <= _capacity(s),
            False,
            gettext_noop(
                "%(per_server)s GPUs per server would split copies of the model (%(replica)s "
                "GPUs each) between servers, although one server holds a whole copy."
            ),
        ),
        Outcome(
            lambda s: not _layout_ok(s),
            False,
            gettext_noop(
                "A copy of the model needs %(replica)s GPUs, more than one server holds: each "
                "server must hold an equal share of it, and %(per_server)s GPUs per server is not."
            ),
        ),
        Outcome(
            lambda s: sparse_training(s.needs, s.config.gpu_count, s.config.servers),
            False,
            gettext_noop(
                "Training over %(servers)s servers of %(per_server)s GPUs: a job spread over "
                "servers runs on dense servers of %(dense)s or 8 GPUs (a power of two, at least "
                "%(dense)s), so that gradients cross the network once per server and parallel "
                "groups split evenly."
            ),
            params=lambda s: {
                "servers": s.config.servers,
                "per_server": s.config.gpu_count,
                "dense": rules.MULTI_NODE_TRAINING_MIN_GPUS_PER_SERVER,
            },
        ),
        Outcome(
            lambda s: not _covered(s),
            False,
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs are fewer than the %(need)s "
                "%(gpu)s GPUs the job needs."
            ),
        ),
        Outcome(
            lambda s: fit(s).replica_gpus > s.config.gpu_count,
            True,
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s GPUs the "
                "job needs. One copy of the model needs %(replica)s GPUs, more than a server "
                "holds: it runs as %(stages)s pipeline stages, one per server, over the fabric."
            ),
        ),
        Outcome(
            lambda s: fit(s).replica_gpus > 1,
            True,
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s GPUs the "
                "job needs: %(copies)s copies of the model on %(replica)s GPUs each, every copy "
                "inside one server."
            ),
        ),
        Outcome(
            always,
            True,
            ngettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s GPU "
                "the job needs.",
                "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s GPUs "
                "the job needs.",
            ),
            count="need",
        ),
    ),
)


def _gpu_memory_params(s: Subject) -> Mapping[str, Any]:
    gpu = s.config.gpu
    return {
        "need_gb": num(fit(s).memory_per_gpu_gb),
        "usable_gb": num(usable_memory_gb(gpu)),
        "memory_gb": num(gpu.memory_gb),
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
            params=lambda s: {"gpu": s.config.gpu.name, "memory_gb": num(s.config.gpu.memory_gb)},
        ),
        Outcome(
            lambda s: usable_memory_gb(s.config.gpu) >= fit(s).memory_per_gpu_gb,
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
        "memory_gb": num(s.config.gpu.memory_gb),
        "floor_gb": memory_floor_gb(s.needs),
    },
    (
        Outcome(
            lambda s: s.config.gpu.memory_gb >= memory_floor_gb(s.needs),
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


def _copy_linked(s: Subject) -> bool:
    """Whether the GPUs that share one model copy in a server are all NVLink-linked."""
    fit = s.fit
    sharing = s.config.gpu_count if fit is None else min(fit.replica_gpus, s.config.gpu_count)
    return sharing <= 1 or nvlink_linked(s.config.gpu, s.config.chassis, sharing)


NVLINK = RuleCheck(
    rules.NVLINK,
    lambda s: {
        "gpu": s.config.gpu.name,
        "chassis": s.config.chassis.name,
        "count": s.config.gpu_count,
        "gbs": num(s.config.gpu.nvlink_gbs or 0),
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
            lambda s: (
                s.needs.serving
                and s.fit is not None
                and s.fit.replica_gpus > s.config.gpu_count
                and not _copy_linked(s)
            ),
            False,
            gettext_noop(
                "One copy of the model spans servers: the %(count)s GPUs of each server need "
                "NVLink or NVSwitch between them, which the %(gpu)s in the %(chassis)s lack."
            ),
        ),
        Outcome(
            lambda s: s.needs.serving and not _copy_linked(s),
            True,
            gettext_noop(
                "The GPUs of one model copy exchange activations over PCIe: this works for "
                "serving (tensor-parallel inference), with more latency per token than NVLink."
            ),
            warning=True,
        ),
        Outcome(
            lambda s: s.needs.serving,
            True,
            gettext_noop("%(link)s links the GPUs of each model copy at %(gbs)s GB/s."),
            params=lambda s: {
                "link": fabric_names(s.config.gpu)[0],
                "gbs": num(s.config.gpu.nvlink_gbs or 0),
            },
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
