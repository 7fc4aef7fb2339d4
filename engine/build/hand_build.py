"""A quote's catalog lines read as servers and checked against the builder's rules.

Sales staff add parts by hand; before the quote goes out they must see whether the parts make a
balanced server. ``server_review`` reads the lines the way the builder builds (``servers``
identical servers: one chassis each, one model per kind of part) and runs
``check_configuration`` on them, with the job's needs when the quote carries a workload and the
general rules alone when it does not.

Quote quantities are for the whole quote: the chassis count is the server count and every
other quantity must divide evenly between the servers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..i18n import Message, gettext_noop
from . import rules
from .checks import check_configuration
from .configuration import BuildNeeds, Check, Environment, GpuFit, ServerConfiguration
from .parts import ChassisSpec, CpuSpec, DriveSpec, GpuSpec, MemorySpec, NicSpec

PartSpec = GpuSpec | CpuSpec | MemorySpec | DriveSpec | NicSpec | ChassisSpec

# Rules about the job itself (how many GPUs, how much memory, data and speed): without a
# workload there is nothing to measure them against, so they are left out rather than passed.
JOB_RULES = frozenset(
    {
        rules.GPU_COUNT,
        rules.GPU_MEMORY,
        rules.GPU_PRECISION,
        rules.STORAGE_CAPACITY,
        rules.STORAGE_THROUGHPUT,
    }
)

_KINDS: tuple[tuple[type, str], ...] = (
    (ChassisSpec, "chassis"),
    (GpuSpec, "gpu"),
    (CpuSpec, "cpu"),
    (MemorySpec, "memory"),
    (DriveSpec, "drive"),
    (NicSpec, "nic"),
)
# Words for the messages (translated when rendered).
_KIND_WORDS = {
    "chassis": Message(gettext_noop("chassis")),
    "gpu": Message(gettext_noop("GPU")),
    "cpu": Message(gettext_noop("CPU")),
    "memory": Message(gettext_noop("memory module")),
    "drive": Message(gettext_noop("drive")),
    "nic": Message(gettext_noop("network card")),
}


@dataclass(frozen=True, slots=True)
class QuotedPart:
    """One catalog line of a quote: its SKU, its specification (None: not in the catalog) and
    its quantity for the whole quote."""

    sku: str
    spec: PartSpec | None
    quantity: Decimal
    role: str = ""  # drives: "boot" / "data" when the builder made the line, else ""


@dataclass(frozen=True, slots=True)
class ServerReview:
    configuration: ServerConfiguration | None
    problems: tuple[Message, ...]  # why the lines do not read as servers (no checks then)
    checks: tuple[Check, ...]
    with_workload: bool  # False: the general rules only (JOB_RULES left out)

    @property
    def failures(self) -> tuple[Message, ...]:
        return self.problems + tuple(check.detail for check in self.checks if not check.passed)

    @property
    def passed(self) -> bool:
        return not self.failures


def _kind(spec: PartSpec) -> str:
    return next(name for cls, name in _KINDS if isinstance(spec, cls))


def _grouped(parts: Sequence[QuotedPart]) -> tuple[dict[str, list[QuotedPart]], list[Message]]:
    """Lines by kind of part, one entry per SKU and role (such lines add up), in quote order."""
    by_kind: dict[str, dict[tuple[str, str], QuotedPart]] = {}
    problems: list[Message] = []
    for part in parts:
        if part.spec is None:
            problems.append(
                Message(
                    gettext_noop("%(sku)s is not in the catalog: its specification is unknown."),
                    {"sku": part.sku},
                )
            )
            continue
        same = by_kind.setdefault(_kind(part.spec), {})
        key = (part.sku, part.role)
        earlier = same.get(key)
        quantity = part.quantity + (earlier.quantity if earlier else 0)
        same[key] = QuotedPart(part.sku, part.spec, quantity, part.role)
    return {kind: list(groups.values()) for kind, groups in by_kind.items()}, problems


def _per_server(part: QuotedPart, servers: int, problems: list[Message]) -> int:
    per_server = part.quantity / servers
    if per_server != per_server.to_integral_value():
        problems.append(
            Message(
                gettext_noop(
                    "%(quantity)s x %(name)s do not divide evenly between %(servers)s servers."
                ),
                {"quantity": _figure(part.quantity), "name": _name(part), "servers": servers},
            )
        )
        return 0
    return int(per_server)


def _figure(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _name(part: QuotedPart) -> str:
    return part.spec.name if part.spec is not None else part.sku


def _one_model(
    by_kind: dict[str, list[QuotedPart]], kind: str, problems: list[Message], *, required: bool
) -> QuotedPart | None:
    found = by_kind.get(kind, [])
    if len(found) > 1:
        problems.append(
            Message(
                gettext_noop("%(count)s %(kind)s models (%(names)s): a server takes one model."),
                {
                    "count": len(found),
                    "kind": _KIND_WORDS[kind],
                    "names": ", ".join(_name(p) for p in found),
                },
            )
        )
        return None
    if not found and required:
        problems.append(
            Message(gettext_noop("No %(kind)s in the lines."), {"kind": _KIND_WORDS[kind]})
        )
    return found[0] if found else None


def _drives(
    by_kind: dict[str, list[QuotedPart]], problems: list[Message]
) -> tuple[QuotedPart | None, QuotedPart | None]:
    """(data, boot). Lines the builder made say their role; a drive added by hand is the data
    drive when there is none yet (the largest first), then the boot pair."""
    drives = by_kind.get("drive", [])
    data = [p for p in drives if p.role == "data"]
    boot = [p for p in drives if p.role == "boot"]
    unassigned = sorted(
        (p for p in drives if p.role not in ("data", "boot")),
        key=lambda p: -p.spec.capacity_tb,  # type: ignore[union-attr]
    )
    if not data and unassigned:
        data.append(unassigned.pop(0))
    if not boot and unassigned:
        boot.append(unassigned.pop(0))
    if len(data) + len(boot) + len(unassigned) > 2 or len(data) > 1 or len(boot) > 1:
        problems.append(
            Message(
                gettext_noop(
                    "%(count)s drive models: a server takes one data drive model and one boot "
                    "drive model."
                ),
                {"count": len(drives)},
            )
        )
        return None, None
    if not data:
        problems.append(Message(gettext_noop("No data drive in the lines.")))
        return None, None
    return data[0], (boot[0] if boot else None)


def configuration_from_parts(
    parts: Sequence[QuotedPart],
) -> tuple[ServerConfiguration | None, tuple[Message, ...]]:
    """The servers the lines describe, or why they describe none."""
    by_kind, problems = _grouped(parts)
    chassis = _one_model(by_kind, "chassis", problems, required=True)
    gpu = _one_model(by_kind, "gpu", problems, required=True)
    cpu = _one_model(by_kind, "cpu", problems, required=True)
    dimm = _one_model(by_kind, "memory", problems, required=True)
    nic = _one_model(by_kind, "nic", problems, required=False)
    data, boot = _drives(by_kind, problems)
    if chassis is None:
        return None, tuple(problems)
    if chassis.quantity != chassis.quantity.to_integral_value() or chassis.quantity < 1:
        problems.append(
            Message(
                gettext_noop("%(quantity)s chassis: the server count must be a whole number."),
                {"quantity": _figure(chassis.quantity)},
            )
        )
        return None, tuple(problems)
    servers = int(chassis.quantity)
    counts = {
        name: _per_server(part, servers, problems) if part is not None else 0
        for name, part in (
            ("gpu", gpu),
            ("cpu", cpu),
            ("memory", dimm),
            ("data", data),
            ("boot", boot),
            ("nic", nic),
        )
    }
    if problems or gpu is None or cpu is None or dimm is None or data is None:
        return None, tuple(problems)
    configuration = ServerConfiguration(
        servers=servers,
        chassis=chassis.spec,  # type: ignore[arg-type]
        gpu=gpu.spec,  # type: ignore[arg-type]
        gpu_count=counts["gpu"],
        cpu=cpu.spec,  # type: ignore[arg-type]
        cpu_count=counts["cpu"],
        dimm=dimm.spec,  # type: ignore[arg-type]
        dimm_count=counts["memory"],
        data_drive=data.spec,  # type: ignore[arg-type]
        data_drive_count=counts["data"],
        boot_drive=boot.spec if boot is not None else None,  # type: ignore[arg-type]
        boot_drive_count=counts["boot"],
        nic=nic.spec if nic is not None else None,  # type: ignore[arg-type]
        nic_count=counts["nic"],
    )
    return configuration, ()


def general_needs(
    configuration: ServerConfiguration, *, environment: Environment, currency: str
) -> BuildNeeds:
    """Needs with no job behind them: the GPUs as quoted, nothing asked of storage or network
    speed. The job rules (``JOB_RULES``) are then meaningless and ``server_review`` drops them."""
    have = GpuFit(gpus=configuration.servers * configuration.gpu_count, memory_per_gpu_gb=0.0)
    return BuildNeeds(
        gpus_for=lambda _gpu: have,
        environment=environment,
        model_sharded=False,
        large_project=False,
        storage_gb=0.0,
        storage_read_mbs=0.0,
        cpu_cores_min=0,
        interconnect_gbps_per_gpu=0,
        currency=currency,
    )


def server_review(
    parts: Sequence[QuotedPart],
    *,
    needs: BuildNeeds | None,
    environment: Environment,
    currency: str,
) -> ServerReview | None:
    """The rule checks of the quoted servers; None when the quote has no catalog part at all
    (a services-only quote has no server to check)."""
    if not parts:
        return None
    configuration, problems = configuration_from_parts(parts)
    if configuration is None:
        return ServerReview(None, problems, (), with_workload=needs is not None)
    if needs is None:
        checks = tuple(
            check
            for check in check_configuration(
                configuration,
                general_needs(configuration, environment=environment, currency=currency),
            )
            if check.rule not in JOB_RULES
        )
        return ServerReview(configuration, (), checks, with_workload=False)
    return ServerReview(
        configuration, (), check_configuration(configuration, needs), with_workload=True
    )
