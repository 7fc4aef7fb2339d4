"""The rule checks: one function per rule of ``rules.py``, each a pass/fail and a sentence.

``check_configuration`` runs them all on any server configuration, hand-built ones included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from . import rules
from .configuration import (
    _MARGIN_DEN,
    _MARGIN_NUM,
    _SSD_KINDS,
    BuildNeeds,
    Check,
    Environment,
    GpuFit,
    ServerConfiguration,
    _drive_gb,
    _is_fabric,
    _memory_floor_gb,
    _msg,
    _mw,
    _nic_lanes,
    _num,
    _power_capacity_w,
    _server_needs,
    _ServerNeeds,
    _sized_w,
    _usable_gb,
)
from .i18n import Message, gettext_noop
from .parts import (
    COOLING_LABELS,
    DRIVE_KIND_LABELS,
    FORM_FACTOR_LABELS,
    GPU_CLASS_LABELS,
    ChassisSpec,
    Cooling,
    DriveKind,
    GpuClass,
    GpuSpec,
)

# --- The checks --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Subject:
    config: ServerConfiguration
    needs: BuildNeeds
    fit: GpuFit | None
    server: _ServerNeeds
    production: bool


def _check_gpu_count(s: _Subject) -> Check:
    c = s.config
    have = c.servers * c.gpu_count
    if s.fit is None:
        return Check(
            rules.GPU_COUNT,
            False,
            _msg(
                gettext_noop("The job cannot run on the %(gpu)s at any GPU count."),
                gpu=c.gpu.name,
            ),
        )
    params = {
        "have": have,
        "servers": c.servers,
        "per_server": c.gpu_count,
        "need": s.fit.gpus,
        "gpu": c.gpu.name,
    }
    if have >= s.fit.gpus:
        return Check(
            rules.GPU_COUNT,
            True,
            Message(
                gettext_noop(
                    "%(servers)s x %(per_server)s = %(have)s GPUs cover the %(need)s %(gpu)s "
                    "GPUs the job needs."
                ),
                params,
            ),
        )
    return Check(
        rules.GPU_COUNT,
        False,
        Message(
            gettext_noop(
                "%(servers)s x %(per_server)s = %(have)s GPUs are fewer than the %(need)s "
                "%(gpu)s GPUs the job needs."
            ),
            params,
        ),
    )


def _check_gpu_memory(s: _Subject) -> Check:
    gpu = s.config.gpu
    if s.fit is None:
        return Check(
            rules.GPU_MEMORY,
            False,
            _msg(
                gettext_noop("The job does not fit the %(gpu)s's %(memory_gb)s GB at any count."),
                gpu=gpu.name,
                memory_gb=_num(gpu.memory_gb),
            ),
        )
    usable = _usable_gb(gpu)
    params = {
        "need_gb": _num(s.fit.memory_per_gpu_gb),
        "usable_gb": _num(usable),
        "memory_gb": _num(gpu.memory_gb),
        "gpu": gpu.name,
    }
    if usable >= s.fit.memory_per_gpu_gb:
        template = gettext_noop(
            "The job needs %(need_gb)s GB per GPU; the %(gpu)s offers %(usable_gb)s GB usable of "
            "%(memory_gb)s GB."
        )
        return Check(rules.GPU_MEMORY, True, Message(template, params))
    template = gettext_noop(
        "The job needs %(need_gb)s GB per GPU but the %(gpu)s offers only %(usable_gb)s GB "
        "usable of %(memory_gb)s GB."
    )
    return Check(rules.GPU_MEMORY, False, Message(template, params))


def _check_gpu_memory_floor(s: _Subject) -> Check:
    gpu = s.config.gpu
    floor = _memory_floor_gb(s.needs)
    params = {"gpu": gpu.name, "memory_gb": _num(gpu.memory_gb), "floor_gb": floor}
    if gpu.memory_gb >= floor:
        template = gettext_noop(
            "The %(gpu)s has %(memory_gb)s GB per GPU, at least the %(floor_gb)s GB this project "
            "needs."
        )
        return Check(rules.GPU_MEMORY_FLOOR, True, Message(template, params))
    template = gettext_noop(
        "The %(gpu)s has %(memory_gb)s GB per GPU, below the %(floor_gb)s GB this project needs."
    )
    return Check(rules.GPU_MEMORY_FLOOR, False, Message(template, params))


def _check_production_gpu(s: _Subject) -> Check:
    gpu = s.config.gpu
    params = {"gpu": gpu.name, "gpu_class": GPU_CLASS_LABELS[gpu.gpu_class]}
    if s.production:
        if gpu.gpu_class is not GpuClass.DATACENTER:
            template = gettext_noop(
                "The %(gpu)s is a %(gpu_class)s GPU; production needs a datacenter GPU with ECC."
            )
            return Check(rules.PRODUCTION_GPU, False, Message(template, params))
        if not gpu.ecc:
            template = gettext_noop(
                "The %(gpu)s has no ECC memory; production needs a datacenter GPU with ECC."
            )
            return Check(rules.PRODUCTION_GPU, False, Message(template, params))
        template = gettext_noop("The %(gpu)s is a datacenter GPU with ECC memory.")
        return Check(rules.PRODUCTION_GPU, True, Message(template, params))
    if not gpu.ecc:
        template = gettext_noop(
            "Experiment: the %(gpu)s (%(gpu_class)s) is allowed, with no ECC: a memory error can "
            "go unnoticed."
        )
        return Check(rules.PRODUCTION_GPU, True, Message(template, params), warning=True)
    template = gettext_noop("Experiment: the %(gpu)s (%(gpu_class)s, ECC) is allowed.")
    return Check(rules.PRODUCTION_GPU, True, Message(template, params))


def _check_consumer_limit(s: _Subject) -> Check:
    c = s.config
    params = {"gpu": c.gpu.name, "count": c.gpu_count, "max": rules.CONSUMER_GPUS_MAX_PER_SERVER}
    if c.gpu.gpu_class is not GpuClass.CONSUMER:
        template = gettext_noop("The %(gpu)s is not a consumer card: no per-server limit.")
        return Check(rules.CONSUMER_LIMIT, True, Message(template, params))
    if c.gpu_count <= rules.CONSUMER_GPUS_MAX_PER_SERVER:
        template = gettext_noop("%(count)s consumer cards per server, within the limit of %(max)s.")
        return Check(rules.CONSUMER_LIMIT, True, Message(template, params))
    template = gettext_noop("%(count)s consumer cards per server, above the limit of %(max)s.")
    return Check(rules.CONSUMER_LIMIT, False, Message(template, params))


def _check_gpu_fit_chassis(s: _Subject) -> Check:
    c = s.config
    ch = c.chassis
    growth = s.needs.growth_gpus
    params = {
        "gpu": c.gpu.name,
        "chassis": ch.name,
        "form": FORM_FACTOR_LABELS[c.gpu.form_factor],
        "accepted": ", ".join(sorted(FORM_FACTOR_LABELS[f] for f in ch.gpu_form_factors)) or "-",
        "count": c.gpu_count,
        "slots": ch.gpu_slots,
        "growth": growth,
        "free": ch.gpu_slots - c.gpu_count,
    }
    if c.gpu.form_factor not in ch.gpu_form_factors:
        template = gettext_noop(
            "The %(chassis)s takes %(accepted)s GPUs, not the %(form)s %(gpu)s."
        )
        return Check(rules.GPU_FIT_CHASSIS, False, Message(template, params))
    if c.gpu_count < 1:
        template = gettext_noop("The configuration has no GPU in the %(chassis)s.")
        return Check(rules.GPU_FIT_CHASSIS, False, Message(template, params))
    if c.gpu.form_factor in rules.BASEBOARD_FORM_FACTORS:
        if c.gpu_count != ch.gpu_slots:
            template = gettext_noop(
                "The %(chassis)s baseboard holds exactly %(slots)s %(form)s GPUs, not %(count)s."
            )
            return Check(rules.GPU_FIT_CHASSIS, False, Message(template, params))
        if growth:
            template = gettext_noop(
                "The %(chassis)s baseboard is always fully populated: it cannot keep %(growth)s "
                "slots free for growth."
            )
            return Check(rules.GPU_FIT_CHASSIS, False, Message(template, params))
    if c.gpu_count + growth > ch.gpu_slots:
        template = gettext_noop(
            "%(count)s GPUs plus %(growth)s kept for growth exceed the %(slots)s slots of the "
            "%(chassis)s."
        )
        return Check(rules.GPU_FIT_CHASSIS, False, Message(template, params))
    template = gettext_noop(
        "%(count)s %(form)s GPUs in the %(slots)s slots of the %(chassis)s, %(free)s free "
        "(%(growth)s kept for growth)."
    )
    return Check(rules.GPU_FIT_CHASSIS, True, Message(template, params))


def _nvlink_ok(gpu: GpuSpec, chassis: ChassisSpec, per_server: int, sharded: bool) -> bool:
    if not sharded or per_server <= 1:
        return True
    if gpu.nvlink_gbs is None:
        return False
    return chassis.nvswitch or (
        chassis.nvlink_bridge and per_server <= rules.NVLINK_BRIDGE_MAX_GPUS
    )


def _model_sharded(needs: BuildNeeds, fit: GpuFit | None) -> bool:
    if fit is not None and fit.model_sharded is not None:
        return fit.model_sharded
    return needs.model_sharded


def _check_nvlink(s: _Subject) -> Check:
    c = s.config
    params = {
        "gpu": c.gpu.name,
        "chassis": c.chassis.name,
        "count": c.gpu_count,
        "gbs": _num(c.gpu.nvlink_gbs or 0),
        "bridge_max": rules.NVLINK_BRIDGE_MAX_GPUS,
    }
    if not _model_sharded(s.needs, s.fit):
        template = gettext_noop("Not needed: each GPU holds a whole copy of the model.")
        return Check(rules.NVLINK, True, Message(template, params))
    if c.gpu_count <= 1:
        template = gettext_noop("Not needed: one GPU per server.")
        return Check(rules.NVLINK, True, Message(template, params))
    if c.gpu.nvlink_gbs is None:
        template = gettext_noop(
            "The %(gpu)s has no NVLink, but %(count)s GPUs per server share one model."
        )
        return Check(rules.NVLINK, False, Message(template, params))
    if c.chassis.nvswitch:
        template = gettext_noop("NVSwitch links the %(count)s GPUs at %(gbs)s GB/s each.")
        return Check(rules.NVLINK, True, Message(template, params))
    if c.chassis.nvlink_bridge and c.gpu_count <= rules.NVLINK_BRIDGE_MAX_GPUS:
        template = gettext_noop("An NVLink bridge joins the %(count)s GPUs at %(gbs)s GB/s.")
        return Check(rules.NVLINK, True, Message(template, params))
    if c.chassis.nvlink_bridge:
        template = gettext_noop(
            "The %(chassis)s joins cards in pairs with NVLink bridges; %(count)s GPUs that share "
            "one model need NVSwitch."
        )
    else:
        template = gettext_noop(
            "The %(chassis)s has neither NVSwitch nor NVLink bridges to link %(count)s GPUs that "
            "share one model."
        )
    return Check(rules.NVLINK, False, Message(template, params))


def _check_cooling(s: _Subject) -> Check:
    gpu, ch = s.config.gpu, s.config.chassis
    params = {
        "gpu": gpu.name,
        "chassis": ch.name,
        "tdp": gpu.tdp_w,
        "max": ch.max_gpu_tdp_w,
        "cooling": COOLING_LABELS[ch.cooling],
        "limit": rules.LIQUID_COOLING_ABOVE_GPU_W,
    }
    if gpu.tdp_w > ch.max_gpu_tdp_w:
        template = gettext_noop(
            "The %(gpu)s draws %(tdp)s W, above the %(max)s W per GPU the %(chassis)s can cool."
        )
        return Check(rules.COOLING, False, Message(template, params))
    if gpu.tdp_w > rules.LIQUID_COOLING_ABOVE_GPU_W and ch.cooling is not Cooling.LIQUID:
        template = gettext_noop(
            "The %(gpu)s draws %(tdp)s W: above %(limit)s W per GPU it needs liquid cooling, and "
            "the %(chassis)s is air-cooled."
        )
        return Check(rules.COOLING, False, Message(template, params))
    template = gettext_noop(
        "The %(chassis)s (%(cooling)s cooling) is rated for %(max)s W per GPU; the %(gpu)s draws "
        "%(tdp)s W."
    )
    return Check(rules.COOLING, True, Message(template, params))


def _check_cpu_server_grade(s: _Subject) -> Check:
    c = s.config
    params = {
        "cpu": c.cpu.name,
        "count": c.cpu_count,
        "sockets": c.chassis.cpu_sockets,
        "cpu_socket": c.cpu.socket,
        "chassis_socket": c.chassis.cpu_socket_type,
        "chassis": c.chassis.name,
    }
    if c.cpu.socket != c.chassis.cpu_socket_type:
        template = gettext_noop(
            "The %(cpu)s fits socket %(cpu_socket)s; the %(chassis)s has %(chassis_socket)s."
        )
        return Check(rules.CPU_SERVER_GRADE, False, Message(template, params))
    if not c.cpu.server_grade:
        template = gettext_noop("The %(cpu)s is not a server-grade CPU.")
        return Check(rules.CPU_SERVER_GRADE, False, Message(template, params))
    if c.cpu_count != c.chassis.cpu_sockets:
        template = gettext_noop(
            "%(count)s CPUs for the %(sockets)s sockets of the %(chassis)s: every socket needs one."
        )
        return Check(rules.CPU_SERVER_GRADE, False, Message(template, params))
    template = gettext_noop(
        "%(count)s x %(cpu)s, server-grade, in the %(sockets)s %(cpu_socket)s sockets."
    )
    return Check(rules.CPU_SERVER_GRADE, True, Message(template, params))


def _check_cpu_cores(s: _Subject) -> Check:
    c = s.config
    have = c.cpu.cores * c.cpu_count
    params = {
        "have": have,
        "need": s.server.cores,
        "min": rules.CPU_CORES_MIN_PER_SERVER,
        "per_gpu": rules.CPU_CORES_PER_GPU,
        "job": s.server.job_cores,
    }
    if have >= s.server.cores:
        template = gettext_noop(
            "%(have)s cores per server for the %(need)s needed (at least %(min)s, %(per_gpu)s "
            "per GPU, %(job)s as the job's share)."
        )
        return Check(rules.CPU_CORES, True, Message(template, params))
    template = gettext_noop(
        "%(have)s cores per server, fewer than the %(need)s needed (at least %(min)s, "
        "%(per_gpu)s per GPU, %(job)s as the job's share)."
    )
    return Check(rules.CPU_CORES, False, Message(template, params))


def _check_pcie_lanes(s: _Subject) -> Check:
    c = s.config
    if c.chassis.pcie_switches:
        template = gettext_noop(
            "The %(chassis)s puts GPUs, NICs and drives behind PCIe switches: CPU lanes are not "
            "the limit."
        )
        return Check(rules.PCIE_LANES, True, _msg(template, chassis=c.chassis.name))
    nic_lanes = _nic_lanes(c.nic) * c.nic_count if c.nic is not None else 0
    nvme_lanes = (
        rules.PCIE_LANES_PER_NVME * c.data_drive_count if c.data_drive.kind is DriveKind.NVME else 0
    )
    need = s.server.gpu_lanes + nic_lanes + nvme_lanes
    have = c.cpu.pcie_lanes * c.cpu_count
    params = {
        "need": need,
        "gpu": s.server.gpu_lanes,
        "nic": nic_lanes,
        "nvme": nvme_lanes,
        "have": have,
    }
    if need <= have:
        template = gettext_noop(
            "%(need)s PCIe lanes needed (GPUs and growth slots %(gpu)s, NICs %(nic)s, NVMe "
            "%(nvme)s); the CPUs provide %(have)s."
        )
        return Check(rules.PCIE_LANES, True, Message(template, params))
    template = gettext_noop(
        "%(need)s PCIe lanes needed (GPUs and growth slots %(gpu)s, NICs %(nic)s, NVMe "
        "%(nvme)s), more than the %(have)s the CPUs provide."
    )
    return Check(rules.PCIE_LANES, False, Message(template, params))


def _check_system_ram(s: _Subject) -> Check:
    c = s.config
    have = c.dimm.capacity_gb * c.dimm_count
    params = {
        "have": have,
        "need": _num(s.server.ram_gb),
        "factor": rules.SYSTEM_RAM_PER_VRAM,
        "vram": _num(c.gpu.memory_gb * c.gpu_count),
    }
    if have >= s.server.ram_gb:
        template = gettext_noop(
            "%(have)s GB of RAM per server for the %(need)s GB needed (%(factor)s x %(vram)s GB "
            "of GPU memory)."
        )
        return Check(rules.SYSTEM_RAM, True, Message(template, params))
    template = gettext_noop(
        "%(have)s GB of RAM per server, less than the %(need)s GB needed (%(factor)s x "
        "%(vram)s GB of GPU memory)."
    )
    return Check(rules.SYSTEM_RAM, False, Message(template, params))


def _check_memory_population(s: _Subject) -> Check:
    c = s.config
    group = c.cpu_count * c.cpu.memory_channels
    total = c.dimm.capacity_gb * c.dimm_count
    params = {
        "dimm": c.dimm.name,
        "chassis": c.chassis.name,
        "ddr": c.dimm.ddr_generation,
        "chassis_ddr": c.chassis.ddr_generation,
        "count": c.dimm_count,
        "capacity": c.dimm.capacity_gb,
        "group": group,
        "sockets": c.cpu_count,
        "channels": c.cpu.memory_channels,
        "slots": c.chassis.dimm_slots,
        "total": total,
        "max": c.cpu.max_memory_gb * c.cpu_count,
        "dpc": c.dimm_count // group if group else 0,
    }
    failure = None
    if c.dimm.ddr_generation != c.chassis.ddr_generation:
        failure = gettext_noop(
            "The %(dimm)s is DDR%(ddr)s; the %(chassis)s takes DDR%(chassis_ddr)s."
        )
    elif s.production and not c.dimm.ecc:
        failure = gettext_noop("The %(dimm)s has no ECC; production needs ECC memory.")
    elif group < 1 or c.dimm_count < group or c.dimm_count % group:
        failure = gettext_noop(
            "%(count)s DIMMs cannot fill the %(group)s channels (%(sockets)s CPUs x %(channels)s) "
            "evenly."
        )
    elif c.dimm_count > c.chassis.dimm_slots:
        failure = gettext_noop("%(count)s DIMMs exceed the %(slots)s slots of the %(chassis)s.")
    elif total > c.cpu.max_memory_gb * c.cpu_count:
        failure = gettext_noop("%(total)s GB exceeds the %(max)s GB the CPUs can address.")
    if failure is not None:
        return Check(rules.MEMORY_POPULATION, False, Message(failure, params))
    if c.dimm_count > group * rules.DIMMS_PER_CHANNEL_PREFERRED:
        template = gettext_noop(
            "%(count)s x %(capacity)s GB DDR%(ddr)s fill the %(group)s channels evenly, but "
            "%(dpc)s DIMMs per channel lower the memory clock."
        )
        return Check(rules.MEMORY_POPULATION, True, Message(template, params), warning=True)
    template = gettext_noop(
        "%(count)s x %(capacity)s GB DDR%(ddr)s, one per channel on all %(group)s channels."
    )
    return Check(rules.MEMORY_POPULATION, True, Message(template, params))


def _check_storage_nvme(s: _Subject) -> Check:
    c = s.config
    params = {
        "drive": c.data_drive.name,
        "kind": DRIVE_KIND_LABELS[c.data_drive.kind],
        "count": c.data_drive_count,
        "bays": c.chassis.nvme_bays,
        "chassis": c.chassis.name,
    }
    if c.data_drive.kind is not DriveKind.NVME:
        template = gettext_noop("The %(drive)s is a %(kind)s drive; data needs NVMe.")
        return Check(rules.STORAGE_NVME, False, Message(template, params))
    if c.data_drive_count < 1:
        template = gettext_noop("The configuration has no NVMe data drive.")
        return Check(rules.STORAGE_NVME, False, Message(template, params))
    if c.data_drive_count > c.chassis.nvme_bays:
        template = gettext_noop(
            "%(count)s NVMe drives exceed the %(bays)s NVMe bays of the %(chassis)s."
        )
        return Check(rules.STORAGE_NVME, False, Message(template, params))
    template = gettext_noop("%(count)s x %(drive)s (NVMe) in the %(bays)s NVMe bays.")
    return Check(rules.STORAGE_NVME, True, Message(template, params))


def _check_storage_capacity(s: _Subject) -> Check:
    c = s.config
    have = c.data_drive_count * _drive_gb(c.data_drive)
    params = {
        "have": _num(have),
        "need": _num(s.server.storage_gb),
        "job": _num(s.needs.storage_gb),
        "servers": c.servers,
    }
    if have >= s.server.storage_gb:
        template = gettext_noop(
            "%(have)s GB of data storage per server for the %(need)s GB needed (%(job)s GB over "
            "%(servers)s servers)."
        )
        return Check(rules.STORAGE_CAPACITY, True, Message(template, params))
    template = gettext_noop(
        "%(have)s GB of data storage per server, less than the %(need)s GB needed (%(job)s GB "
        "over %(servers)s servers)."
    )
    return Check(rules.STORAGE_CAPACITY, False, Message(template, params))


def _check_storage_throughput(s: _Subject) -> Check:
    c = s.config
    have = c.data_drive_count * c.data_drive.read_mbs
    params = {"have": have, "need": _num(s.server.read_mbs)}
    if have >= s.server.read_mbs:
        template = gettext_noop(
            "The data drives read %(have)s MB/s per server for the %(need)s MB/s needed."
        )
        return Check(rules.STORAGE_THROUGHPUT, True, Message(template, params))
    template = gettext_noop(
        "The data drives read %(have)s MB/s per server, less than the %(need)s MB/s needed."
    )
    return Check(rules.STORAGE_THROUGHPUT, False, Message(template, params))


def _check_boot_mirror(s: _Subject) -> Check:
    c = s.config
    boot = c.boot_drive
    params = {
        "count": c.boot_drive_count,
        "drive": boot.name if boot is not None else "-",
        "drives": rules.BOOT_MIRROR_DRIVES,
        "min_gb": rules.BOOT_DRIVE_MIN_GB,
    }
    if not s.production:
        template = gettext_noop("Experiment: a boot mirror is not required.")
        return Check(rules.BOOT_MIRROR, True, Message(template, params))
    if boot is None or c.boot_drive_count != rules.BOOT_MIRROR_DRIVES:
        template = gettext_noop(
            "%(count)s boot drives; production needs a mirror of %(drives)s identical SSDs."
        )
        return Check(rules.BOOT_MIRROR, False, Message(template, params))
    if boot.kind not in _SSD_KINDS or _drive_gb(boot) < rules.BOOT_DRIVE_MIN_GB:
        template = gettext_noop(
            "The %(drive)s is not an SSD of at least %(min_gb)s GB for the boot mirror."
        )
        return Check(rules.BOOT_MIRROR, False, Message(template, params))
    template = gettext_noop("%(count)s x %(drive)s, mirrored, hold the system.")
    return Check(rules.BOOT_MIRROR, True, Message(template, params))


def _load_mw(config: ServerConfiguration) -> int:
    """Full-load draw of one server as built, in mW."""
    c = config
    nic_mw = _mw(c.nic.power_w) * c.nic_count if c.nic is not None else 0
    return (
        c.gpu.tdp_w * 1000 * c.gpu_count
        + c.cpu.tdp_w * 1000 * c.cpu_count
        + _mw(c.dimm.power_w) * c.dimm_count
        + _mw(c.data_drive.power_w) * c.data_drive_count
        + nic_mw
        + c.chassis.base_power_w * 1000
    )


def _check_power(s: _Subject) -> Check:
    c = s.config
    load = _load_mw(c)
    reserve = c.gpu.tdp_w * 1000 * s.needs.growth_gpus
    capacity = _power_capacity_w(c.chassis, s.production)
    supplies = c.chassis.psu_count - (c.chassis.psu_redundant if s.production else 0)
    params = {
        "draw": -(-load // 1000),
        "sized": _sized_w(load + reserve),
        "margin": rules.POWER_MARGIN,
        "growth": s.needs.growth_gpus,
        "supplies": supplies,
        "psu_w": c.chassis.psu_w,
        "capacity": capacity,
        "max": c.chassis.max_system_power_w,
    }
    passed = (load + reserve) * _MARGIN_NUM <= capacity * 1000 * _MARGIN_DEN
    if passed:
        template = gettext_noop(
            "%(draw)s W at full load per server, %(sized)s W sized (x%(margin)s, with %(growth)s "
            "growth GPUs), within the %(capacity)s W allowed by %(supplies)s usable supplies of "
            "%(psu_w)s W and the chassis maximum of %(max)s W."
        )
    else:
        template = gettext_noop(
            "%(draw)s W at full load per server, %(sized)s W sized (x%(margin)s, with %(growth)s "
            "growth GPUs), more than the %(capacity)s W allowed by %(supplies)s usable supplies "
            "of %(psu_w)s W and the chassis maximum of %(max)s W."
        )
    return Check(rules.POWER, passed, Message(template, params))


def _check_redundant_psu(s: _Subject) -> Check:
    ch = s.config.chassis
    params = {"count": ch.psu_count, "spares": ch.psu_redundant, "psu_w": ch.psu_w}
    if not s.production:
        template = gettext_noop("Experiment: redundancy not required (N+%(spares)s).")
        return Check(rules.REDUNDANT_PSU, True, Message(template, params))
    if ch.psu_redundant >= rules.PSU_REDUNDANT_MIN:
        template = gettext_noop(
            "N+%(spares)s: %(count)s supplies of %(psu_w)s W, %(spares)s of them spare."
        )
        return Check(rules.REDUNDANT_PSU, True, Message(template, params))
    template = gettext_noop(
        "No spare among the %(count)s supplies of %(psu_w)s W; production needs N+1."
    )
    return Check(rules.REDUNDANT_PSU, False, Message(template, params))


def _check_interconnect(s: _Subject) -> Check:
    c = s.config
    nic = c.nic
    params = {
        "servers": c.servers,
        "need": s.needs.interconnect_gbps_per_gpu,
        "gpus": c.gpu_count,
        "count": c.nic_count,
        "nic": nic.name if nic is not None else "-",
        "speed": nic.speed_gbps if nic is not None else 0,
        "ports": nic.ports * c.nic_count if nic is not None else 0,
        "fabric": ("InfiniBand" if nic.infiniband else "RoCE") if nic is not None else "-",
    }
    if c.servers == 1:
        template = gettext_noop("One server: no network between servers is needed.")
        return Check(rules.INTERCONNECT, True, Message(template, params))
    failure = None
    if nic is None or c.nic_count < 1:
        failure = gettext_noop(
            "%(servers)s servers need an InfiniBand or RoCE port per GPU; there is no NIC."
        )
    elif not _is_fabric(nic):
        failure = gettext_noop("The %(nic)s is neither InfiniBand nor RoCE.")
    elif nic.speed_gbps < s.needs.interconnect_gbps_per_gpu:
        failure = gettext_noop(
            "The %(nic)s runs at %(speed)s Gb/s per port; the job needs %(need)s Gb/s per GPU."
        )
    elif nic.ports * c.nic_count < c.gpu_count:
        failure = gettext_noop(
            "%(ports)s ports for %(gpus)s GPUs per server: every GPU needs its own port."
        )
    if failure is not None:
        return Check(rules.INTERCONNECT, False, Message(failure, params))
    template = gettext_noop(
        "%(count)s x %(nic)s: %(ports)s %(fabric)s ports at %(speed)s Gb/s for %(gpus)s GPUs "
        "(%(need)s Gb/s needed per GPU)."
    )
    return Check(rules.INTERCONNECT, True, Message(template, params))


def _check_rack_chassis(s: _Subject) -> Check:
    chassis = s.config.chassis
    params = {"chassis": chassis.name, "units": chassis.rack_units}
    if chassis.rack_mount:
        template = gettext_noop("The %(chassis)s mounts in a rack (%(units)s U).")
        return Check(rules.RACK_CHASSIS, True, Message(template, params))
    if not s.production:
        template = gettext_noop("The %(chassis)s is a workstation tower: fine for an experiment.")
        return Check(rules.RACK_CHASSIS, True, Message(template, params), warning=True)
    template = gettext_noop(
        "The %(chassis)s is a workstation tower; production needs a rack-mount server."
    )
    return Check(rules.RACK_CHASSIS, False, Message(template, params))


_CHECKS: dict[str, Callable[[_Subject], Check]] = {
    rules.GPU_COUNT: _check_gpu_count,
    rules.GPU_MEMORY: _check_gpu_memory,
    rules.GPU_MEMORY_FLOOR: _check_gpu_memory_floor,
    rules.PRODUCTION_GPU: _check_production_gpu,
    rules.CONSUMER_LIMIT: _check_consumer_limit,
    rules.GPU_FIT_CHASSIS: _check_gpu_fit_chassis,
    rules.NVLINK: _check_nvlink,
    rules.COOLING: _check_cooling,
    rules.CPU_SERVER_GRADE: _check_cpu_server_grade,
    rules.CPU_CORES: _check_cpu_cores,
    rules.PCIE_LANES: _check_pcie_lanes,
    rules.SYSTEM_RAM: _check_system_ram,
    rules.MEMORY_POPULATION: _check_memory_population,
    rules.STORAGE_NVME: _check_storage_nvme,
    rules.STORAGE_CAPACITY: _check_storage_capacity,
    rules.STORAGE_THROUGHPUT: _check_storage_throughput,
    rules.BOOT_MIRROR: _check_boot_mirror,
    rules.POWER: _check_power,
    rules.REDUNDANT_PSU: _check_redundant_psu,
    rules.RACK_CHASSIS: _check_rack_chassis,
    rules.INTERCONNECT: _check_interconnect,
}
_CHECK_ORDER = tuple(_CHECKS[code] for code in rules.RULE_ORDER)


def _iter_checks(
    config: ServerConfiguration, needs: BuildNeeds, fit: GpuFit | None = None
) -> Iterator[Check]:
    subject = _Subject(
        config=config,
        needs=needs,
        fit=needs.gpus_for(config.gpu) if fit is None else fit,
        server=_server_needs(needs, config.gpu, config.gpu_count, config.servers),
        production=needs.environment is Environment.PRODUCTION,
    )
    for check in _CHECK_ORDER:
        yield check(subject)


def check_configuration(config: ServerConfiguration, needs: BuildNeeds) -> tuple[Check, ...]:
    """One ``Check`` per rule, in ``rules.RULE_ORDER``; the configuration is valid when all pass."""
    return tuple(_iter_checks(config, needs))


def configuration_feasible(config: ServerConfiguration, needs: BuildNeeds) -> bool:
    """Whether every check passes; stops at the first failure (the search's test oracle)."""
    return all(check.passed for check in _iter_checks(config, needs))
