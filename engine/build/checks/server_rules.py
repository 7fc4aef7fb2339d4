"""The server rule checks as records: CPU socket and cores, PCIe lanes, system memory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...i18n import Message, gettext_noop
from .. import rules
from ..configuration import num
from .records import Outcome, RuleCheck, Subject, always, memory_channels, pcie_lanes

CPU_SERVER_GRADE = RuleCheck(
    rules.CPU_SERVER_GRADE,
    lambda s: {
        "cpu": s.config.cpu.name,
        "count": s.config.cpu_count,
        "sockets": s.config.chassis.cpu_sockets,
        "cpu_socket": s.config.cpu.socket,
        "chassis_socket": s.config.chassis.cpu_socket_type,
        "chassis": s.config.chassis.name,
    },
    (
        Outcome(
            lambda s: s.config.cpu.socket != s.config.chassis.cpu_socket_type,
            False,
            gettext_noop(
                "The %(cpu)s fits socket %(cpu_socket)s; the %(chassis)s has %(chassis_socket)s."
            ),
        ),
        Outcome(
            lambda s: (
                not s.config.cpu.server_grade
                and not rules.workstation_cpu_allowed(s.config.chassis, production=s.production)
            ),
            False,
            gettext_noop("The %(cpu)s is not a server-grade CPU."),
        ),
        Outcome(
            lambda s: s.config.cpu_count != s.config.chassis.cpu_sockets,
            False,
            gettext_noop(
                "%(count)s CPUs for the %(sockets)s sockets of the %(chassis)s: every socket needs "
                "one."
            ),
        ),
        Outcome(
            lambda s: not s.config.cpu.server_grade,
            True,
            gettext_noop(
                "Experiment: %(count)s x %(cpu)s, a workstation CPU, in the %(sockets)s "
                "%(cpu_socket)s sockets of the %(chassis)s tower; a rack server needs a "
                "server-grade CPU."
            ),
            warning=True,
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "%(count)s x %(cpu)s, server-grade, in the %(sockets)s %(cpu_socket)s sockets."
            ),
        ),
    ),
)

CPU_CORES = RuleCheck(
    rules.CPU_CORES,
    lambda s: {
        "have": s.config.cpu.cores * s.config.cpu_count,
        "need": s.server.cores,
        "min": rules.CPU_CORES_MIN_PER_SERVER,
        "per_gpu": rules.CPU_CORES_PER_GPU,
        "job": s.server.job_cores,
    },
    (
        Outcome(
            lambda s: s.config.cpu.cores * s.config.cpu_count >= s.server.cores,
            True,
            gettext_noop(
                "%(have)s cores per server for the %(need)s needed (at least %(min)s, %(per_gpu)s "
                "per GPU, %(job)s as the job's share)."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(have)s cores per server, fewer than the %(need)s needed (at least %(min)s, "
                "%(per_gpu)s per GPU, %(job)s as the job's share)."
            ),
        ),
    ),
)


def _pcie_params(s: Subject) -> Mapping[str, Any]:
    need, nic, nvme, have = pcie_lanes(s)
    return {"need": need, "gpu": s.server.gpu_lanes, "nic": nic, "nvme": nvme, "have": have}


PCIE_LANES = RuleCheck(
    rules.PCIE_LANES,
    _pcie_params,
    (
        Outcome(
            lambda s: s.config.chassis.pcie_switches,
            True,
            gettext_noop(
                "The %(chassis)s puts GPUs, NICs and drives behind PCIe switches: CPU lanes are "
                "not the limit."
            ),
            params=lambda s: {"chassis": s.config.chassis.name},
        ),
        Outcome(
            lambda s: pcie_lanes(s)[0] <= pcie_lanes(s)[3],
            True,
            gettext_noop(
                "%(need)s PCIe lanes needed (GPUs and growth slots %(gpu)s, NICs %(nic)s, NVMe "
                "%(nvme)s); the CPUs provide %(have)s."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(need)s PCIe lanes needed (GPUs and growth slots %(gpu)s, NICs %(nic)s, NVMe "
                "%(nvme)s), more than the %(have)s the CPUs provide."
            ),
        ),
    ),
)

SYSTEM_RAM = RuleCheck(
    rules.SYSTEM_RAM,
    lambda s: {
        "have": s.config.dimm.capacity_gb * s.config.dimm_count,
        "need": num(s.server.ram_gb),
        "factor": rules.SYSTEM_RAM_PER_VRAM,
        "vram": num(s.config.gpu.memory_gb * s.config.gpu_count),
    },
    (
        Outcome(
            lambda s: s.config.dimm.capacity_gb * s.config.dimm_count >= s.server.ram_gb,
            True,
            gettext_noop(
                "%(have)s GB of RAM per server for the %(need)s GB needed (%(factor)s x %(vram)s "
                "GB of GPU memory)."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(have)s GB of RAM per server, less than the %(need)s GB needed (%(factor)s x "
                "%(vram)s GB of GPU memory)."
            ),
        ),
    ),
)


def _memory_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    group = memory_channels(s)
    return {
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
        "total": c.dimm.capacity_gb * c.dimm_count,
        "max": c.cpu.max_memory_gb * c.cpu_count,
        "dpc": c.dimm_count // group if group else 0,
        "dimm_kind": _DIMM_KINDS[c.dimm.registered],
        "board_kind": _DIMM_KINDS[c.chassis.registered_memory],
    }


_DIMM_KINDS = {
    True: Message(gettext_noop("registered (RDIMM)")),
    False: Message(gettext_noop("unbuffered (UDIMM)")),
}


def _uneven(s: Subject) -> bool:
    group = memory_channels(s)
    count = s.config.dimm_count
    return group < 1 or count < group or bool(count % group)


MEMORY_POPULATION = RuleCheck(
    rules.MEMORY_POPULATION,
    _memory_params,
    (
        Outcome(
            lambda s: s.config.dimm.ddr_generation != s.config.chassis.ddr_generation,
            False,
            gettext_noop("The %(dimm)s is DDR%(ddr)s; the %(chassis)s takes DDR%(chassis_ddr)s."),
        ),
        Outcome(
            lambda s: s.config.dimm.registered != s.config.chassis.registered_memory,
            False,
            gettext_noop(
                "The %(dimm)s is %(dimm_kind)s; the %(chassis)s takes %(board_kind)s DIMMs only."
            ),
        ),
        Outcome(
            lambda s: s.production and not s.config.dimm.ecc,
            False,
            gettext_noop("The %(dimm)s has no ECC; production needs ECC memory."),
        ),
        Outcome(
            _uneven,
            False,
            gettext_noop(
                "%(count)s DIMMs cannot fill the %(group)s channels (%(sockets)s CPUs x "
                "%(channels)s) evenly."
            ),
        ),
        Outcome(
            lambda s: s.config.dimm_count > s.config.chassis.dimm_slots,
            False,
            gettext_noop("%(count)s DIMMs exceed the %(slots)s slots of the %(chassis)s."),
        ),
        Outcome(
            lambda s: (
                s.config.dimm.capacity_gb * s.config.dimm_count
                > s.config.cpu.max_memory_gb * s.config.cpu_count
            ),
            False,
            gettext_noop("%(total)s GB exceeds the %(max)s GB the CPUs can address."),
        ),
        Outcome(
            lambda s: s.config.dimm_count > memory_channels(s) * rules.DIMMS_PER_CHANNEL_PREFERRED,
            True,
            gettext_noop(
                "%(count)s x %(capacity)s GB DDR%(ddr)s fill the %(group)s channels evenly, but "
                "%(dpc)s DIMMs per channel lower the memory clock."
            ),
            warning=True,
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "%(count)s x %(capacity)s GB DDR%(ddr)s, one per channel on all %(group)s channels."
            ),
        ),
    ),
)
