"""Why the search found no plan: one diagnostic per excluded GPU, blocked chassis, part or
combination."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...i18n import gettext_noop
from .. import rules
from ..configuration import GpuFit, ServerNeeds, num, power_capacity_w, usable_memory_gb
from ..parts import FORM_FACTOR_LABELS, GPU_CLASS_LABELS, GpuClass, GpuSpec
from .records import (
    RANK_CHASSIS,
    RANK_COMBINATION,
    RANK_EXCLUDED,
    RANK_GPU,
    RANK_PARTS,
    ChassisItem,
    CpuSet,
    FittingGpu,
    PartSet,
)
from .state import SearchState


def explain_chassis(search: SearchState, model: FittingGpu, blocked: dict[str, int]) -> None:
    gpu = model.gpu
    params: dict[str, Any] = {
        "gpu": gpu.name,
        "form": FORM_FACTOR_LABELS[gpu.form_factor],
        "tdp": gpu.tdp_w,
        "growth": search.needs.growth_gpus,
    }
    if "baseboard" in blocked:
        params["board"] = gpu.baseboard or "?"
        template = gettext_noop(
            "The %(gpu)s comes on an %(board)s baseboard and no chassis is built for it: add an "
            "%(board)s server, or choose a GPU for the chassis the catalog has."
        )
    elif not blocked:
        template = gettext_noop(
            "No chassis takes %(form)s GPUs such as the %(gpu)s: add a chassis with %(form)s slots."
        )
    elif "slots" in blocked:
        if gpu.form_factor in rules.BASEBOARD_FORM_FACTORS and search.needs.growth_gpus:
            template = gettext_noop(
                "%(form)s baseboards are always fully populated, so no slot stays free for "
                "growth next to the %(gpu)s: ask for no growth or choose PCIe GPUs."
            )
        else:
            template = gettext_noop(
                "No %(form)s chassis fits the %(gpu)s with %(growth)s growth slots, the "
                "consumer-card limit and NVLink for a shared model: add a chassis with more "
                "%(form)s slots or NVSwitch."
            )
    elif "sparse" in blocked and "tdp" not in blocked:
        params["dense"] = rules.MULTI_NODE_TRAINING_MIN_GPUS_PER_SERVER
        template = gettext_noop(
            "Training the job on %(gpu)s GPUs spreads it over servers, and no chassis holds them "
            "as a dense training server does (a power of two, at least %(dense)s per server): "
            "add a 4- or 8-GPU chassis."
        )
    elif "psu" in blocked:
        template = gettext_noop(
            "No chassis for the %(gpu)s has a spare power supply, which production needs: "
            "add an N+1 %(form)s chassis."
        )
    elif "tower" in blocked:
        template = gettext_noop(
            "The %(gpu)s fits only a workstation tower here, and production needs a "
            "rack-mount server: add a rack %(form)s chassis for it."
        )
    elif "liquid" in blocked:
        template = gettext_noop(
            "The %(gpu)s draws %(tdp)s W and needs liquid cooling: add a liquid-cooled "
            "%(form)s chassis."
        )
    else:
        params["best"] = blocked["tdp"]
        template = gettext_noop(
            "No %(form)s chassis can cool the %(gpu)s's %(tdp)s W per GPU (the best takes "
            "%(best)s W): add a chassis rated for it."
        )
    search.fail(RANK_CHASSIS, gpu.sku, template, **params)


def explain_parts(
    search: SearchState,
    chassis: ChassisItem,
    model: FittingGpu,
    per_server: int,
    servers: int,
    server: ServerNeeds,
    cpus: Sequence[CpuSet],
    drives: Sequence[PartSet],
    nics: Sequence[PartSet],
) -> None:
    spec = chassis.spec
    offered = (
        search.index.tower_cpus_by_socket
        if rules.workstation_cpu_allowed(spec, production=search.production)
        else search.index.cpus_by_socket
    )
    if not cpus and not offered.get(spec.cpu_socket_type):
        search.fail(
            RANK_CHASSIS,
            model.gpu.sku,
            gettext_noop(
                "The %(chassis)s takes %(socket)s CPUs and the catalog offers no server-grade "
                "one: add one, or a chassis for another socket."
            ),
            chassis=spec.name,
            socket=spec.cpu_socket_type,
        )
    elif not cpus:
        search.fail(
            RANK_PARTS,
            model.gpu.sku,
            gettext_noop(
                "No server-grade %(socket)s CPU gives the %(chassis)s %(cores)s cores over "
                "%(sockets)s sockets: add one with at least %(per_cpu)s cores."
            ),
            socket=spec.cpu_socket_type,
            chassis=spec.name,
            cores=server.cores,
            sockets=spec.cpu_sockets,
            per_cpu=-(-server.cores // max(1, spec.cpu_sockets)),
        )
    if not drives:
        search.fail(
            RANK_PARTS,
            model.gpu.sku,
            gettext_noop(
                "No set of NVMe drives gives %(storage_gb)s GB and %(read_mbs)s MB/s within "
                "the %(bays)s NVMe bays of the %(chassis)s: add larger or faster NVMe drives."
            ),
            storage_gb=num(server.storage_gb),
            read_mbs=num(server.read_mbs),
            bays=spec.nvme_bays,
            chassis=spec.name,
        )
    if not nics:
        search.fail(
            RANK_PARTS,
            model.gpu.sku,
            gettext_noop(
                "%(servers)s servers of %(count)s x %(gpu)s need an InfiniBand or RoCE port "
                "of %(gbps)s Gb/s per GPU, and the catalog offers no such NIC: add one."
            ),
            servers=servers,
            count=per_server,
            gpu=model.gpu.name,
            gbps=search.needs.interconnect_gbps_per_gpu,
        )


def explain_memory(
    search: SearchState, chassis: ChassisItem, model: FittingGpu, server: ServerNeeds
) -> None:
    spec = chassis.spec
    if search.production:
        template = gettext_noop(
            "No set of identical ECC DDR%(ddr)s DIMMs reaches %(ram_gb)s GB in the %(slots)s "
            "slots of the %(chassis)s with every channel filled evenly: add larger ECC DIMMs."
        )
    else:
        template = gettext_noop(
            "No set of identical DDR%(ddr)s DIMMs reaches %(ram_gb)s GB in the %(slots)s "
            "slots of the %(chassis)s with every channel filled evenly: add larger DIMMs."
        )
    search.fail(
        RANK_PARTS,
        model.gpu.sku,
        template,
        ddr=spec.ddr_generation,
        ram_gb=num(server.ram_gb),
        slots=spec.dimm_slots,
        chassis=spec.name,
    )


def explain_combination(
    search: SearchState,
    chassis: ChassisItem,
    model: FittingGpu,
    per_server: int,
    servers: int,
    short_of: str,
) -> None:
    spec = chassis.spec
    params = {
        "servers": servers,
        "count": per_server,
        "gpu": model.gpu.name,
        "chassis": spec.name,
        "margin": rules.POWER_MARGIN,
        "capacity": power_capacity_w(spec, search.production),
    }
    if short_of == "network":
        template = gettext_noop(
            "%(servers)s x %(chassis)s with %(count)s x %(gpu)s: the catalog lacks the switches, "
            "cables or storage servers to connect them; add them to build a cluster."
        )
    elif short_of == "lanes":
        template = gettext_noop(
            "%(servers)s x %(chassis)s with %(count)s x %(gpu)s: no CPU offers the PCIe "
            "lanes for the GPUs, NICs and NVMe drives; CPUs with more lanes or a chassis with "
            "PCIe switches would fit."
        )
    else:
        template = gettext_noop(
            "%(servers)s x %(chassis)s with %(count)s x %(gpu)s: the parts draw more, with "
            "the x%(margin)s margin, than the %(capacity)s W its usable supplies give; a "
            "chassis with more power would fit."
        )
    search.fail(RANK_COMBINATION, model.gpu.sku, template, **params)


def usable_fit(search: SearchState, gpu: GpuSpec, floor: int) -> GpuFit | None:
    """How many of ``gpu`` the job needs, or None (and why, in the diagnostics) if it cannot
    use them: production without ECC, a number format it cannot run, below the memory floor, or
    too small at any count."""
    if search.production and (gpu.gpu_class is not GpuClass.DATACENTER or not gpu.ecc):
        search.fail(
            RANK_EXCLUDED,
            gpu.sku,
            gettext_noop(
                "Production needs a datacenter GPU with ECC; the %(gpu)s is a %(gpu_class)s GPU."
            )
            if gpu.ecc
            else gettext_noop(
                "Production needs a datacenter GPU with ECC; the %(gpu)s is a "
                "%(gpu_class)s GPU without ECC."
            ),
            gpu=gpu.name,
            gpu_class=GPU_CLASS_LABELS[gpu.gpu_class],
        )
        return None
    precision = search.needs.precision
    if not rules.runs_precision(gpu.architecture, precision):
        search.fail(
            RANK_EXCLUDED,
            gpu.sku,
            gettext_noop(
                "The %(gpu)s (%(architecture)s) cannot run %(precision)s: %(precision)s needs "
                "one of these GPU architectures: %(supported)s."
            ),
            gpu=gpu.name,
            architecture=gpu.architecture or "?",
            precision=rules.PRECISION_LABELS.get(precision, precision.upper()),
            supported=", ".join(rules.PRECISION_ARCHITECTURES.get(precision, ())),
        )
        return None
    if gpu.memory_gb < floor:
        search.fail(
            RANK_GPU,
            gpu.sku,
            gettext_noop(
                "The %(gpu)s has %(memory_gb)s GB; this project needs at least "
                "%(floor_gb)s GB per GPU."
            ),
            gpu=gpu.name,
            memory_gb=num(gpu.memory_gb),
            floor_gb=floor,
        )
        return None
    fit = search.needs.gpus_for(gpu)
    if fit is None:
        search.fail(
            RANK_GPU,
            gpu.sku,
            gettext_noop(
                "The job cannot run on the %(gpu)s (%(memory_gb)s GB) at any GPU count: "
                "it needs GPUs with more memory."
            ),
            gpu=gpu.name,
            memory_gb=num(gpu.memory_gb),
        )
        return None
    if usable_memory_gb(gpu) < fit.memory_per_gpu_gb:
        search.fail(
            RANK_GPU,
            gpu.sku,
            gettext_noop(
                "On %(gpus)s x %(gpu)s the job needs %(need_gb)s GB per GPU, more than "
                "the %(usable_gb)s GB usable: a GPU of at least %(min_gb)s GB would fit."
            ),
            gpus=fit.gpus,
            gpu=gpu.name,
            need_gb=num(fit.memory_per_gpu_gb),
            usable_gb=num(usable_memory_gb(gpu)),
            min_gb=math.ceil(fit.memory_per_gpu_gb / rules.GPU_MEMORY_USABLE_FRACTION),
        )
        return None
    return fit


def explain_no_plan(
    search: SearchState,
    model: FittingGpu,
    blocked: dict[str, int],
    *,
    any_chassis: bool,
    unlinked: int,
) -> None:
    gpu = model.gpu
    if not any_chassis or blocked.get("sparse"):
        explain_chassis(search, model, {"sparse": 1} if any_chassis else blocked)
    if unlinked:
        search.fail(
            RANK_CHASSIS,
            (gpu.sku, rules.NVLINK),
            gettext_noop(
                "%(count)s x %(gpu)s in one server share the model and need NVLink "
                "(NVSwitch, or a bridge for %(bridge_max)s cards), which no chassis "
                "offers for them: add such a chassis."
            ),
            count=unlinked,
            gpu=gpu.name,
            bridge_max=rules.NVLINK_BRIDGE_MAX_GPUS,
        )
