"""The platform rule checks as records: storage, boot mirror, power, network and rack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...i18n import gettext_noop, ngettext_noop
from .. import rules
from ..configuration import (
    SSD_KINDS,
    drive_gb,
    is_fabric,
    needs_fabric,
    num,
    power_capacity_w,
    shared_storage_needed,
    sized_w,
)
from ..parts import DRIVE_KIND_LABELS, DriveFormFactor, DriveKind, hot_swap_bay
from .records import (
    Outcome,
    RuleCheck,
    Subject,
    always,
    data_storage_gb,
    growth_reserve_mw,
    load_mw,
    power_fits,
)


def _m2_data(s: Subject) -> bool:
    """Data on M.2 drives where a workstation tower for experiments may keep it."""
    return s.config.data_drive.form_factor is DriveFormFactor.M2 and rules.m2_data_allowed(
        s.config.chassis, production=s.production
    )


STORAGE_NVME = RuleCheck(
    rules.STORAGE_NVME,
    lambda s: {
        "drive": s.config.data_drive.name,
        "kind": DRIVE_KIND_LABELS[s.config.data_drive.kind],
        "count": s.config.data_drive_count,
        "bays": s.config.chassis.nvme_bays,
        "m2": s.config.chassis.m2_slots,
        "chassis": s.config.chassis.name,
    },
    (
        Outcome(
            lambda s: s.config.data_drive.kind is not DriveKind.NVME,
            False,
            gettext_noop("The %(drive)s is a %(kind)s drive; data needs NVMe."),
        ),
        Outcome(
            lambda s: not hot_swap_bay(s.config.data_drive) and not _m2_data(s),
            False,
            gettext_noop(
                "The %(drive)s is an M.2 boot device; data needs U.2, U.3, E1.S or E3.S drives in "
                "the front bays, which can be swapped while the server runs."
            ),
        ),
        Outcome(
            lambda s: s.config.data_drive_count < 1,
            False,
            gettext_noop("The configuration has no NVMe data drive."),
        ),
        Outcome(
            lambda s: (
                s.production
                and (
                    s.config.data_drive_count < rules.DATA_MIRROR_COPIES
                    or s.config.data_drive_count % rules.DATA_MIRROR_COPIES != 0
                )
            ),
            False,
            ngettext_noop(
                "%(count)s data drive: production mirrors its data (RAID 1/10), so an even "
                "number of at least two.",
                "%(count)s data drives: production mirrors its data (RAID 1/10), so an even "
                "number of at least two.",
            ),
            count="count",
        ),
        Outcome(
            lambda s: _m2_data(s) and s.config.data_drive_count > s.config.chassis.m2_slots,
            False,
            gettext_noop("%(count)s M.2 drives exceed the %(m2)s M.2 slots of the %(chassis)s."),
        ),
        Outcome(
            _m2_data,
            True,
            gettext_noop(
                "%(count)s x %(drive)s (NVMe) on the board's M.2 slots: a workstation tower for "
                "experiments, where no drive is swapped while the job runs."
            ),
        ),
        Outcome(
            lambda s: s.config.data_drive_count > s.config.chassis.nvme_bays,
            False,
            gettext_noop("%(count)s NVMe drives exceed the %(bays)s NVMe bays of the %(chassis)s."),
        ),
        Outcome(
            lambda s: s.production,
            True,
            gettext_noop(
                "%(count)s x %(drive)s (NVMe) in the %(bays)s NVMe bays, mirrored in pairs "
                "(RAID 1/10)."
            ),
        ),
        Outcome(
            always, True, gettext_noop("%(count)s x %(drive)s (NVMe) in the %(bays)s NVMe bays.")
        ),
    ),
)

STORAGE_CAPACITY = RuleCheck(
    rules.STORAGE_CAPACITY,
    lambda s: {
        "have": num(data_storage_gb(s)),
        "need": num(s.server.storage_gb),
        "job": num(s.needs.storage_gb),
        "servers": s.config.servers,
    },
    (
        Outcome(
            lambda s: data_storage_gb(s) >= s.server.storage_gb and s.config.servers == 1,
            True,
            gettext_noop("%(have)s GB of usable data storage for the %(need)s GB needed."),
        ),
        Outcome(
            lambda s: data_storage_gb(s) >= s.server.storage_gb and s.needs.serving,
            True,
            gettext_noop(
                "%(have)s GB of usable data storage per server for the %(need)s GB each server "
                "loads (the model files and data)."
            ),
        ),
        Outcome(
            lambda s: (
                data_storage_gb(s) >= s.server.storage_gb
                and shared_storage_needed(s.needs, s.config.servers)
            ),
            True,
            gettext_noop(
                "%(have)s GB of usable data storage per server keeps a local copy of the "
                "%(need)s GB every server reads; the whole %(job)s GB, checkpoints included, "
                "lives on the shared storage tier."
            ),
        ),
        Outcome(
            lambda s: data_storage_gb(s) >= s.server.storage_gb,
            True,
            gettext_noop(
                "%(have)s GB of usable data storage per server for the %(need)s GB needed (%(job)s "
                "GB over %(servers)s servers)."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(have)s GB of usable data storage per server, less than the %(need)s GB needed "
                "(%(job)s GB for the whole job, %(servers)s servers)."
            ),
        ),
    ),
)

STORAGE_THROUGHPUT = RuleCheck(
    rules.STORAGE_THROUGHPUT,
    lambda s: {
        "have": s.config.data_drive_count * s.config.data_drive.read_mbs,
        "need": num(s.server.read_mbs),
    },
    (
        Outcome(
            lambda s: s.config.data_drive_count * s.config.data_drive.read_mbs >= s.server.read_mbs,
            True,
            gettext_noop(
                "The data drives read %(have)s MB/s per server for the %(need)s MB/s needed."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The data drives read %(have)s MB/s per server, less than the %(need)s MB/s needed."
            ),
        ),
    ),
)

BOOT_MIRROR = RuleCheck(
    rules.BOOT_MIRROR,
    lambda s: {
        "count": s.config.boot_drive_count,
        "drive": s.config.boot_drive.name if s.config.boot_drive is not None else "-",
        "drives": rules.BOOT_MIRROR_DRIVES,
        "min_gb": rules.BOOT_DRIVE_MIN_GB,
    },
    (
        Outcome(
            lambda s: not s.production,
            True,
            gettext_noop("Experiment: a boot mirror is not required."),
        ),
        Outcome(
            lambda s: (
                s.config.boot_drive is None or s.config.boot_drive_count != rules.BOOT_MIRROR_DRIVES
            ),
            False,
            ngettext_noop(
                "%(count)s boot drive; production needs a mirror of %(drives)s identical SSDs.",
                "%(count)s boot drives; production needs a mirror of %(drives)s identical SSDs.",
            ),
            count="count",
        ),
        Outcome(
            lambda s: (
                s.config.boot_drive is not None
                and (
                    s.config.boot_drive.kind not in SSD_KINDS
                    or drive_gb(s.config.boot_drive) < rules.BOOT_DRIVE_MIN_GB
                )
            ),
            False,
            gettext_noop(
                "The %(drive)s is not an SSD of at least %(min_gb)s GB for the boot mirror."
            ),
        ),
        Outcome(
            lambda s: (
                s.config.boot_drive is not None
                and s.config.boot_drive.form_factor is not DriveFormFactor.M2
            ),
            False,
            gettext_noop(
                "The %(drive)s would take front bays meant for data: the system mirror is two "
                "M.2 SSDs on the board."
            ),
        ),
        Outcome(always, True, gettext_noop("%(count)s x %(drive)s, mirrored, hold the system.")),
    ),
)


def _power_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    load = load_mw(c)
    return {
        "draw": -(-load // 1000),
        "sized": sized_w(load + growth_reserve_mw(s)),
        "margin": rules.POWER_MARGIN,
        "growth": s.needs.growth_gpus,
        "supplies": c.chassis.psu_count - (c.chassis.psu_redundant if s.production else 0),
        "psu_w": c.chassis.psu_w,
        "capacity": power_capacity_w(c.chassis, s.production),
        "max": c.chassis.max_system_power_w,
    }


POWER = RuleCheck(
    rules.POWER,
    _power_params,
    (
        Outcome(
            power_fits,
            True,
            gettext_noop(
                "%(draw)s W at full load per server, %(sized)s W sized (×%(margin)s, with "
                "%(growth)s growth GPUs), within the %(capacity)s W allowed by %(supplies)s usable "
                "supplies of %(psu_w)s W and the chassis maximum of %(max)s W."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "%(draw)s W at full load per server, %(sized)s W sized (×%(margin)s, with "
                "%(growth)s growth GPUs), more than the %(capacity)s W allowed by %(supplies)s "
                "usable supplies of %(psu_w)s W and the chassis maximum of %(max)s W."
            ),
        ),
    ),
)

REDUNDANT_PSU = RuleCheck(
    rules.REDUNDANT_PSU,
    lambda s: {
        "count": s.config.chassis.psu_count,
        "spares": s.config.chassis.psu_redundant,
        "psu_w": s.config.chassis.psu_w,
    },
    (
        Outcome(
            lambda s: not s.production,
            True,
            gettext_noop("Experiment: redundancy not required (N+%(spares)s)."),
        ),
        Outcome(
            lambda s: s.config.chassis.psu_redundant >= rules.PSU_REDUNDANT_MIN,
            True,
            gettext_noop(
                "N+%(spares)s: %(count)s supplies of %(psu_w)s W, %(spares)s of them spare."
            ),
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "No spare among the %(count)s supplies of %(psu_w)s W; production needs N+1."
            ),
        ),
    ),
)


def _interconnect_params(s: Subject) -> Mapping[str, Any]:
    c = s.config
    nic = c.nic
    return {
        "servers": c.servers,
        "need": s.needs.interconnect_gbps_per_gpu,
        "gpus": c.gpu_count,
        "count": c.nic_count,
        "nic": nic.name if nic is not None else "-",
        "speed": nic.speed_gbps if nic is not None else 0,
        "ports": nic.ports * c.nic_count if nic is not None else 0,
        "fabric": ("InfiniBand" if nic.infiniband else "RoCE") if nic is not None else "-",
    }


def _no_nic(s: Subject) -> bool:
    return s.config.nic is None or s.config.nic_count < 1


# After the ``_no_nic`` outcome the configuration has a NIC: the conditions below say so for mypy.
INTERCONNECT = RuleCheck(
    rules.INTERCONNECT,
    _interconnect_params,
    (
        Outcome(
            lambda s: s.config.servers == 1,
            True,
            gettext_noop("One server: no network between servers is needed."),
        ),
        Outcome(
            lambda s: not needs_fabric(s.needs, s.fit, s.config.gpu_count, s.config.servers),
            True,
            gettext_noop(
                "Every server holds whole copies of the model and answers requests on its own: "
                "no GPU fabric between servers is needed, only the front-end network."
            ),
        ),
        Outcome(
            _no_nic,
            False,
            gettext_noop(
                "%(servers)s servers need an InfiniBand or RoCE port per GPU; there is no NIC."
            ),
        ),
        Outcome(
            lambda s: s.config.nic is not None and not is_fabric(s.config.nic),
            False,
            gettext_noop("The %(nic)s is neither InfiniBand nor RoCE."),
        ),
        Outcome(
            lambda s: (
                s.config.nic is not None
                and s.config.nic.speed_gbps < s.needs.interconnect_gbps_per_gpu
            ),
            False,
            gettext_noop(
                "The %(nic)s runs at %(speed)s Gb/s per port; the job needs %(need)s Gb/s per GPU."
            ),
        ),
        Outcome(
            lambda s: (
                s.config.nic is not None
                and s.config.nic.ports * s.config.nic_count < s.config.gpu_count
            ),
            False,
            gettext_noop(
                "%(ports)s ports for %(gpus)s GPUs per server: every GPU needs its own port."
            ),
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "%(count)s x %(nic)s: %(ports)s %(fabric)s ports at %(speed)s Gb/s for %(gpus)s "
                "GPUs (%(need)s Gb/s needed per GPU)."
            ),
        ),
    ),
)

RACK_CHASSIS = RuleCheck(
    rules.RACK_CHASSIS,
    lambda s: {"chassis": s.config.chassis.name, "units": s.config.chassis.rack_units},
    (
        Outcome(
            lambda s: s.config.chassis.rack_mount,
            True,
            gettext_noop("The %(chassis)s mounts in a rack (%(units)s U)."),
        ),
        Outcome(
            lambda s: not s.production,
            True,
            gettext_noop("The %(chassis)s is a workstation tower: fine for an experiment."),
            warning=True,
        ),
        Outcome(
            always,
            False,
            gettext_noop(
                "The %(chassis)s is a workstation tower; production needs a rack-mount server."
            ),
        ),
    ),
)
