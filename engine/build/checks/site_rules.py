"""The site rule check as a record: what the servers ask of the room that holds them.

A server's full-load draw (the GPUs kept for growth included, as the power rule sizes it) is
compared with what sites offer (``rules.py``, "Site"): an office or lab circuit, the air-cooled
racks most datacenters run, high-density air racks, liquid cooling. The check is advice about the
site, not the server: it always passes, with a warning when the site must be more than an office.
Figures are rounded for reading: a server's draw up to the next 0.1 kW (never understated), feed
ratings to the nearest 0.1 kW.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...i18n import Message, gettext_noop
from .. import rules
from ..configuration import num
from ..parts import Cooling
from .records import Outcome, RuleCheck, Subject, always, growth_reserve_mw, load_mw

_MW_PER_TENTH_KW = 100_000


def draw_mw(s: Subject) -> int:
    """Full-load draw of one server with its growth GPUs, in mW (the power rule's load)."""
    return load_mw(s.config) + growth_reserve_mw(s)


def _tenths_kw_up(mw: int) -> int:
    """A draw in tenths of a kW, rounded up (a draw is never understated)."""
    return -(-mw // _MW_PER_TENTH_KW)


def _kw_up(mw: int) -> int | float:
    """A draw in kW for reading: rounded up to 0.1 kW."""
    return num(_tenths_kw_up(mw) / 10)


def _kw(watts: int) -> int | float:
    """A rating in kW for reading: to the nearest 0.1 kW."""
    return num((watts + 50) // 100 / 10)


def per_rack(s: Subject, budget_w: int) -> int:
    """How many of these servers a rack of ``budget_w`` holds: by power, and by its 42 units."""
    by_power = budget_w * 1000 // max(draw_mw(s), 1)
    units = s.config.chassis.rack_units
    by_space = rules.RACK_UNITS_PER_RACK // units if units > 0 else by_power
    return min(by_power, by_space)


# The feeds a server may need, smallest first: (rating in W, words).
_FEEDS: tuple[tuple[int, str], ...] = (
    (rules.SINGLE_PHASE_16A_W, gettext_noop("a single-phase 230 V 16 A circuit (%(kw)s kW)")),
    (rules.SINGLE_PHASE_32A_W, gettext_noop("a single-phase 230 V 32 A feed (%(kw)s kW)")),
    (rules.THREE_PHASE_32A_W, gettext_noop("a three-phase 400 V 32 A feed (%(kw)s kW)")),
)


def feed(s: Subject) -> Message:
    """The smallest feed that carries one server at full load; above the largest, several."""
    mw = draw_mw(s)
    for watts, words in _FEEDS:
        if mw <= watts * 1000:
            return Message(words, {"kw": _kw(watts)})
    largest = rules.THREE_PHASE_32A_W * 1000
    return Message(
        gettext_noop("%(count)s three-phase 400 V 32 A feeds (%(kw)s kW each)"),
        {"count": -(-mw // largest), "kw": _kw(rules.THREE_PHASE_32A_W)},
    )


def liquid_cooled(s: Subject) -> bool:
    """A liquid-cooled chassis, or GPUs that draw more than air can carry away."""
    return (
        s.config.chassis.cooling is Cooling.LIQUID
        or s.config.gpu.tdp_w > rules.LIQUID_COOLING_ABOVE_GPU_W
    )


def _site_params(s: Subject) -> Mapping[str, Any]:
    mw = draw_mw(s)
    in_air_rack = per_rack(s, rules.AIR_RACK_TYPICAL_W)
    in_dense_rack = per_rack(s, rules.AIR_RACK_HIGH_DENSITY_W)
    return {
        "kw": _kw_up(mw),
        "servers": s.config.servers,
        # the rounded figure times the servers, so that "2 x 10.3 = 20.6 kW" adds up as read
        "total_kw": num(_tenths_kw_up(mw) * s.config.servers / 10),
        "per_rack": in_air_rack,
        "rack_kw": _kw_up(mw * in_air_rack),
        "per_dense_rack": in_dense_rack,
        "air_low_kw": _kw(rules.AIR_RACK_TYPICAL_LOW_W),
        "air_kw": _kw(rules.AIR_RACK_TYPICAL_W),
        "dense_kw": _kw(rules.AIR_RACK_HIGH_DENSITY_W),
        "office_kw": _kw(rules.OFFICE_CIRCUIT_W),
        "feed": feed(s),
    }


SITE_POWER = RuleCheck(
    rules.SITE_POWER,
    _site_params,
    (
        Outcome(
            liquid_cooled,
            True,
            gettext_noop(
                "%(kw)s kW per server, liquid-cooled (%(servers)s x %(kw)s = %(total_kw)s kW): a "
                "datacenter that brings liquid cooling to the rack (coolant distribution and "
                "facility water), never an office; each server on %(feed)s."
            ),
            warning=True,
        ),
        Outcome(
            lambda s: draw_mw(s) > rules.AIR_RACK_HIGH_DENSITY_W * 1000,
            True,
            gettext_noop(
                "%(kw)s kW per server, more than even a high-density air-cooled rack of "
                "%(dense_kw)s kW: a datacenter rack of its own with rear-door or liquid cooling, "
                "on %(feed)s; never an office."
            ),
            warning=True,
        ),
        Outcome(
            lambda s: draw_mw(s) > rules.AIR_RACK_TYPICAL_W * 1000,
            True,
            gettext_noop(
                "%(kw)s kW per server, more than a typical air-cooled rack of %(air_low_kw)s-"
                "%(air_kw)s kW: a datacenter with high-density racks (up to %(dense_kw)s kW with "
                "aisle containment or rear-door heat exchangers), %(per_dense_rack)s per rack, "
                "each server on %(feed)s; never an office."
            ),
            warning=True,
        ),
        Outcome(
            lambda s: draw_mw(s) > rules.OFFICE_CIRCUIT_W * 1000,
            True,
            gettext_noop(
                "%(kw)s kW per server, more than an office's single-phase 16 A circuit gives "
                "(%(office_kw)s kW): a datacenter or server room, %(per_rack)s per %(air_kw)s kW "
                "air-cooled rack (%(rack_kw)s kW), each server on %(feed)s."
            ),
            warning=True,
        ),
        Outcome(
            lambda s: not s.config.chassis.rack_mount,
            True,
            gettext_noop(
                "%(kw)s kW: a tower for an office or lab, on %(feed)s, in a room whose "
                "cooling takes %(kw)s kW of heat."
            ),
        ),
        Outcome(
            always,
            True,
            gettext_noop(
                "%(kw)s kW per server: %(per_rack)s per %(air_kw)s kW air-cooled rack "
                "(%(rack_kw)s kW); one alone also runs in an office or lab on %(feed)s, in a "
                "room whose cooling takes %(kw)s kW of heat."
            ),
        ),
    ),
)
