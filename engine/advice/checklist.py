"""The customer's decision checklist: five points, each met or not, with the reason in figures.

The five points are the "Liste de contrôle de votre décision" of the customer's reference article
on choosing a dedicated GPU server (``rules.CHOOSING_ARTICLE``): VRAM validated, system synergy,
growth plan, deployment decision and total cost. ``evaluate`` fills each point with the
customer's own answers and the figures of the sizing, the chosen configuration and its TCO, and
says whether the point is met, with one ``Message`` explaining why.

Pure: figures in, messages out. Parameters of the messages stay typed (``Money``, numbers,
nested ``Message``s, tuples of ``Message``s) so that the shell formats them for the reader's
locale; the engine never formats for a locale itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from types import MappingProxyType

from ..build import rules
from ..i18n import Message, Plural, gettext_noop, ngettext_noop
from ..money import Money

SOURCE = rules.CHOOSING_ARTICLE + " ('Liste de contrôle de votre décision')"


class Point(StrEnum):
    VRAM = "vram"
    SYNERGY = "synergy"
    GROWTH = "growth"
    DEPLOYMENT = "deployment"
    TOTAL_COST = "total_cost"


class Deployment(StrEnum):
    """Where the customer wants the hardware: the wizard's last step."""

    ON_PREMISES = "on_premises"
    MANAGED = "managed"
    NOT_SURE = "not_sure"


@dataclass(frozen=True, slots=True)
class PointText:
    title: Message
    statement: Message  # what "met" means, in the article's words


POINTS: Mapping[Point, PointText] = MappingProxyType(
    {
        Point.VRAM: PointText(
            Message(gettext_noop("GPU memory validated")),
            Message(
                gettext_noop("The GPU memory meets the needs of my model and can be increased.")
            ),
        ),
        Point.SYNERGY: PointText(
            Message(gettext_noop("System synergy")),
            Message(gettext_noop("The CPU, RAM and storage match the power of the GPUs.")),
        ),
        Point.GROWTH: PointText(
            Message(gettext_noop("Growth plan")),
            Message(gettext_noop("The configuration allows future upgrades.")),
        ),
        Point.DEPLOYMENT: PointText(
            Message(gettext_noop("Deployment decision")),
            Message(gettext_noop("A choice between on-premises control and managed hosting.")),
        ),
        Point.TOTAL_COST: PointText(
            Message(gettext_noop("Total cost")),
            Message(
                gettext_noop("Every cost is counted: purchase or rental, electricity and support.")
            ),
        ),
    }
)

# The builder's rules that decide each hardware point (rules as data: one place).
POINT_RULES: Mapping[Point, tuple[str, ...]] = MappingProxyType(
    {
        Point.VRAM: (rules.GPU_COUNT, rules.GPU_MEMORY, rules.GPU_MEMORY_FLOOR),
        Point.SYNERGY: (
            rules.CPU_SERVER_GRADE,
            rules.CPU_CORES,
            rules.PCIE_LANES,
            rules.SYSTEM_RAM,
            rules.MEMORY_POPULATION,
            rules.STORAGE_NVME,
            rules.STORAGE_CAPACITY,
            rules.STORAGE_THROUGHPUT,
        ),
        Point.GROWTH: (rules.GPU_FIT_CHASSIS, rules.POWER),
    }
)

DEPLOYMENT_LABELS: Mapping[Deployment, Message] = MappingProxyType(
    {
        Deployment.ON_PREMISES: Message(gettext_noop("buying and running the servers yourself")),
        Deployment.MANAGED: Message(gettext_noop("managed hosting")),
        Deployment.NOT_SURE: Message(gettext_noop("not decided yet")),
    }
)


@dataclass(frozen=True, slots=True)
class OptionFigures:
    """The configuration the checklist judges (the balanced option, or the only one)."""

    servers: int
    gpus: int  # all servers
    gpu_name: str
    vram_gb: float  # all servers
    ram_gb: float  # all servers
    storage_gb: float  # NVMe data capacity, all servers
    cpu_name: str
    cpus: int  # all servers
    price: Money  # all servers
    passed: Mapping[str, bool]  # rule code -> passed


@dataclass(frozen=True, slots=True)
class CostFigures:
    """The TCO of that configuration over the horizon (cash totals)."""

    horizon_years: int
    on_premises: Money
    managed: Money | None
    cloud: Money | None
    capital: Money  # on premises: the purchase
    energy: Money  # on premises: electricity and cooling
    support: Money  # on premises: support, spares and insurance
    break_even_vs_managed: int | None  # month from which buying stays cheaper; None: never


@dataclass(frozen=True, slots=True)
class ChecklistInput:
    job_memory_gb: float  # the whole job, as if one device held it
    storage_need_gb: float  # data, model files and checkpoints
    growth_gpus: int  # GPU slots kept free per server
    deployment: Deployment
    option: OptionFigures | None  # None: no configuration was found
    costs: CostFigures | None  # None: no TCO (no configuration)
    budget: Money | None = None


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    point: Point
    title: Message
    statement: Message
    met: bool
    reason: Message
    # False: the customer chose to leave the point out (no growth planned). Shown as "not
    # planned", neither met nor failed: it is a choice, not a fault of the configuration.
    planned: bool = True


def _gb(value: float, places: int = 1) -> Decimal:
    """A GB figure for a sentence, rounded half up like every figure the pages show."""
    return Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _msg(template: str | Plural, **params: object) -> Message:
    """A message; a counted one (``ngettext_noop``) follows the years of the horizon."""
    if isinstance(template, Plural):
        return Message.counted(template, "years", **params)
    return Message(template, MappingProxyType(dict(params)))


def _failed_rules(option: OptionFigures, point: Point) -> tuple[Message, ...]:
    return tuple(
        rules.rule_get(code).title
        for code in POINT_RULES[point]
        if code in option.passed and not option.passed[code]
    )


_NO_OPTION = gettext_noop(
    "No configuration of the catalog meets every rule for this work within your answers."
)


def _vram(inp: ChecklistInput) -> ChecklistItem:
    option = inp.option
    if option is None:
        return _item(Point.VRAM, False, _msg(_NO_OPTION))
    failed = _failed_rules(option, Point.VRAM)
    params = {
        "need_gb": _gb(inp.job_memory_gb),
        "gpus": option.gpus,
        "gpu": option.gpu_name,
        "vram_gb": _gb(option.vram_gb),
    }
    if failed:
        return _item(
            Point.VRAM,
            False,
            _msg(
                gettext_noop(
                    "The work needs %(need_gb)s GB of GPU memory; %(gpus)s x %(gpu)s "
                    "(%(vram_gb)s GB) fail: %(failed)s."
                ),
                failed=failed,
                **params,
            ),
        )
    return _item(
        Point.VRAM,
        True,
        _msg(
            gettext_noop(
                "The work needs %(need_gb)s GB of GPU memory; %(gpus)s x %(gpu)s give "
                "%(vram_gb)s GB and pass every GPU memory rule."
            ),
            **params,
        ),
    )


def _synergy(inp: ChecklistInput) -> ChecklistItem:
    option = inp.option
    if option is None:
        return _item(Point.SYNERGY, False, _msg(_NO_OPTION))
    failed = _failed_rules(option, Point.SYNERGY)
    params = {
        "cpus": option.cpus,
        "cpu": option.cpu_name,
        "ram_gb": _gb(option.ram_gb, 0),
        "vram_gb": _gb(option.vram_gb),
        "factor": rules.SYSTEM_RAM_PER_VRAM,
        "storage_gb": _gb(option.storage_gb, 0),
        "need_storage_gb": _gb(inp.storage_need_gb),
    }
    if failed:
        return _item(
            Point.SYNERGY,
            False,
            _msg(gettext_noop("The configuration fails: %(failed)s."), failed=failed),
        )
    return _item(
        Point.SYNERGY,
        True,
        _msg(
            gettext_noop(
                "%(cpus)s x %(cpu)s; %(ram_gb)s GB of RAM for %(vram_gb)s GB of GPU memory "
                "(at least %(factor)s x); %(storage_gb)s GB of NVMe storage for the "
                "%(need_storage_gb)s GB of data, model files and checkpoints."
            ),
            **params,
        ),
    )


def _growth(inp: ChecklistInput) -> ChecklistItem:
    option = inp.option
    if option is None:
        return _item(Point.GROWTH, False, _msg(_NO_OPTION))
    if inp.growth_gpus < 1:
        text = POINTS[Point.GROWTH]
        return ChecklistItem(
            Point.GROWTH,
            text.title,
            text.statement,
            False,
            _msg(
                gettext_noop(
                    "No growth was planned, so no GPU slot is kept free: adding GPUs later may "
                    "need another server. Plan the growth expected in 12 to 24 months."
                )
            ),
            planned=False,
        )
    failed = _failed_rules(option, Point.GROWTH)
    if failed:
        return _item(
            Point.GROWTH,
            False,
            _msg(gettext_noop("The configuration fails: %(failed)s."), failed=failed),
        )
    return _item(
        Point.GROWTH,
        True,
        _msg(
            gettext_noop(
                "Free GPU slots kept in every server: %(growth)s, with power supplies and PCIe "
                "lanes already sized for them (servers: %(servers)s)."
            ),
            servers=option.servers,
            growth=inp.growth_gpus,
        ),
    )


def _break_even(costs: CostFigures) -> Message:
    if costs.break_even_vs_managed is None:
        return _msg(
            ngettext_noop(
                "buying does not become cheaper than managed hosting within %(years)s year",
                "buying does not become cheaper than managed hosting within %(years)s years",
            ),
            years=costs.horizon_years,
        )
    return _msg(
        gettext_noop("buying becomes cheaper than managed hosting from month %(month)s"),
        month=costs.break_even_vs_managed,
    )


def _deployment(inp: ChecklistInput) -> ChecklistItem:
    costs = inp.costs
    chosen = DEPLOYMENT_LABELS[inp.deployment]
    decided = inp.deployment is not Deployment.NOT_SURE
    if costs is None:
        return _item(
            Point.DEPLOYMENT,
            False,
            _msg(
                gettext_noop(
                    "Your choice: %(choice)s. No cost comparison without a configuration."
                ),
                choice=chosen,
            ),
        )
    if costs.managed is None:
        template = (
            ngettext_noop(
                "Your choice: %(choice)s. Buying costs %(on_premises)s over %(years)s year; no "
                "managed-hosting price is known for these GPUs.",
                "Your choice: %(choice)s. Buying costs %(on_premises)s over %(years)s years; no "
                "managed-hosting price is known for these GPUs.",
            )
            if decided
            else ngettext_noop(
                "Not decided yet. Buying costs %(on_premises)s over %(years)s year; no "
                "managed-hosting price is known for these GPUs.",
                "Not decided yet. Buying costs %(on_premises)s over %(years)s years; no "
                "managed-hosting price is known for these GPUs.",
            )
        )
        return _item(
            Point.DEPLOYMENT,
            decided,
            _msg(
                template,
                choice=chosen,
                on_premises=costs.on_premises,
                years=costs.horizon_years,
            ),
        )
    template = (
        ngettext_noop(
            "Your choice: %(choice)s. Over %(years)s year buying costs %(on_premises)s and "
            "managed hosting %(managed)s; %(break_even)s.",
            "Your choice: %(choice)s. Over %(years)s years buying costs %(on_premises)s and "
            "managed hosting %(managed)s; %(break_even)s.",
        )
        if decided
        else ngettext_noop(
            "Not decided yet. Over %(years)s year buying costs %(on_premises)s and managed "
            "hosting %(managed)s; %(break_even)s.",
            "Not decided yet. Over %(years)s years buying costs %(on_premises)s and managed "
            "hosting %(managed)s; %(break_even)s.",
        )
    )
    return _item(
        Point.DEPLOYMENT,
        decided,
        _msg(
            template,
            choice=chosen,
            years=costs.horizon_years,
            on_premises=costs.on_premises,
            managed=costs.managed,
            break_even=_break_even(costs),
        ),
    )


# (managed price known, budget given) -> template
_TOTAL_COST: Mapping[tuple[bool, bool], Plural] = MappingProxyType(
    {
        (False, False): ngettext_noop(
            "Over %(years)s year buying costs %(on_premises)s in all: %(capital)s for the "
            "servers, %(energy)s for electricity and cooling, %(support)s for support, spares and "
            "insurance, the rest for staff, space, network and software.",
            "Over %(years)s years buying costs %(on_premises)s in all: %(capital)s for the "
            "servers, %(energy)s for electricity and cooling, %(support)s for support, spares and "
            "insurance, the rest for staff, space, network and software.",
        ),
        (True, False): ngettext_noop(
            "Over %(years)s year buying costs %(on_premises)s in all: %(capital)s for the "
            "servers, %(energy)s for electricity and cooling, %(support)s for support, spares and "
            "insurance, the rest for staff, space, network and software. Managed hosting costs "
            "%(managed)s.",
            "Over %(years)s years buying costs %(on_premises)s in all: %(capital)s for the "
            "servers, %(energy)s for electricity and cooling, %(support)s for support, spares and "
            "insurance, the rest for staff, space, network and software. Managed hosting costs "
            "%(managed)s.",
        ),
        (False, True): ngettext_noop(
            "Over %(years)s year buying costs %(on_premises)s in all: %(capital)s for the servers "
            "(within your budget of %(budget)s), %(energy)s for electricity and cooling, "
            "%(support)s for support, spares and insurance, the rest for staff, space, network "
            "and software.",
            "Over %(years)s years buying costs %(on_premises)s in all: %(capital)s for the "
            "servers (within your budget of %(budget)s), %(energy)s for electricity and cooling, "
            "%(support)s for support, spares and insurance, the rest for staff, space, network "
            "and software.",
        ),
        (True, True): ngettext_noop(
            "Over %(years)s year buying costs %(on_premises)s in all: %(capital)s for the servers "
            "(within your budget of %(budget)s), %(energy)s for electricity and cooling, "
            "%(support)s for support, spares and insurance, the rest for staff, space, network "
            "and software. Managed hosting costs %(managed)s.",
            "Over %(years)s years buying costs %(on_premises)s in all: %(capital)s for the "
            "servers (within your budget of %(budget)s), %(energy)s for electricity and cooling, "
            "%(support)s for support, spares and insurance, the rest for staff, space, network "
            "and software. Managed hosting costs %(managed)s.",
        ),
    }
)


def _total_cost(inp: ChecklistInput) -> ChecklistItem:
    costs, option = inp.costs, inp.option
    if costs is None or option is None:
        return _item(
            Point.TOTAL_COST,
            False,
            _msg(gettext_noop("The total cost cannot be counted without a configuration.")),
        )
    if inp.budget is not None and option.price.amount > inp.budget.amount:
        return _item(
            Point.TOTAL_COST,
            False,
            _msg(
                gettext_noop("The servers cost %(price)s, above your budget of %(budget)s."),
                price=option.price,
                budget=inp.budget,
            ),
        )
    params: dict[str, object] = {
        "years": costs.horizon_years,
        "on_premises": costs.on_premises,
        "capital": costs.capital,
        "energy": costs.energy,
        "support": costs.support,
        "managed": costs.managed,
        "budget": inp.budget,
    }
    template = _TOTAL_COST[(costs.managed is not None, inp.budget is not None)]
    return _item(Point.TOTAL_COST, True, _msg(template, **params))


def _item(point: Point, met: bool, reason: Message) -> ChecklistItem:
    text = POINTS[point]
    return ChecklistItem(point, text.title, text.statement, met, reason)


def evaluate(inp: ChecklistInput) -> tuple[ChecklistItem, ...]:
    """The five points, in the article's order."""
    return (_vram(inp), _synergy(inp), _growth(inp), _deployment(inp), _total_cost(inp))
