"""Managed hosting's service tiers (support levels): what the host does for the customer on top of
owning and running the hardware, and what it costs per server and month.

The tiers are catalog data the sales team edits (``catalog.models.ServiceTier``); this is the
engine's view of one, priced in the currency of the answer. The hosting fee already pays for
the hardware, its power, space, spares and replacement parts (``tco.hosting``); a tier adds the
people: how fast they answer, when, and what upkeep they take off the customer's hands. Its
price is the managed option's support line in the TCO and a line of the quote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from ..i18n import Message, gettext_noop
from ..money import Money


class Coverage(StrEnum):
    """When the host's people answer."""

    BUSINESS_HOURS = "business_hours"  # working days, office hours of the customer's region
    ALWAYS = "24x7"  # every hour of every day


COVERAGE_LABELS: Mapping[Coverage, Message] = MappingProxyType(
    {
        Coverage.BUSINESS_HOURS: Message(gettext_noop("Business hours (working days)")),
        Coverage.ALWAYS: Message(gettext_noop("24×7 (every hour of every day)")),
    }
)


@dataclass(frozen=True, slots=True)
class ServiceTier:
    """One tier as offered: ``names`` by language code (``"en"``, ``"fr"``; English is the
    fallback); ``response_minutes``: the most time to a first answer on an incident that stops
    the servers; ``replacement_hours``: the most time to replace a failed part; the upkeep the
    host does (``os_driver_upkeep``: operating system, GPU driver and CUDA or ROCm updates;
    ``monitoring``: the host watches the GPUs and acts on alerts; ``backups``: the system disks
    backed up daily); ``monthly``: per server and month, in the answer's currency (zero for a
    tier the hosting fee includes)."""

    code: str
    names: Mapping[str, str]
    coverage: Coverage
    response_minutes: int
    replacement_hours: int
    os_driver_upkeep: bool
    monitoring: bool
    backups: bool
    monthly: Money

    def __post_init__(self) -> None:
        if not self.code or "en" not in self.names:
            raise ValueError("a service tier needs a code and an English name")
        if self.response_minutes < 1 or self.replacement_hours < 1:
            raise ValueError("a service tier's response and replacement times are at least 1")
        if self.monthly.amount < 0:
            raise ValueError("a service tier's price cannot be negative")

    def name(self, language: str | None) -> str:
        """The tier's name in ``language`` (``"fr"``, ``"fr-be"``...), else in English."""
        base = (language or "en").split("-")[0].lower()
        return self.names.get(base) or self.names["en"]

    def monthly_for(self, servers: int) -> Money:
        return self.monthly * servers

    def included_operations(self) -> tuple[Message, ...]:
        """What the host does for the customer under this tier, sentence by sentence."""
        done: list[Message] = [
            Message(
                gettext_noop("%(coverage)s support: a first answer within %(time)s"),
                MappingProxyType(
                    {
                        "coverage": COVERAGE_LABELS[self.coverage],
                        "time": _duration(self.response_minutes),
                    }
                ),
            ),
            Message(
                gettext_noop("A failed part replaced within %(hours)s h"),
                MappingProxyType({"hours": self.replacement_hours}),
            ),
        ]
        if self.os_driver_upkeep:
            done.append(
                Message(
                    gettext_noop("Operating system, GPU driver and CUDA or ROCm kept up to date")
                )
            )
        if self.monitoring:
            done.append(
                Message(gettext_noop("The GPUs watched by the host, which acts on the alerts"))
            )
        if self.backups:
            done.append(Message(gettext_noop("The system disks backed up every day")))
        return tuple(done)


def _duration(minutes: int) -> Message:
    # A no-break space: "4 h" never splits over two lines.
    if minutes % 60 == 0:
        return Message(gettext_noop("%(hours)s h"), MappingProxyType({"hours": minutes // 60}))
    return Message(gettext_noop("%(minutes)s min"), MappingProxyType({"minutes": minutes}))


def monthly_with_service(fee: Money, tier: ServiceTier | None) -> Money:
    """What a server of managed hosting costs the customer per month: the host's fee plus the
    chosen tier (the figure the result page, the recommendation and the quote agree on)."""
    return fee if tier is None else fee + tier.monthly
