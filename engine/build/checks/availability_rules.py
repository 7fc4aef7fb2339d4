"""The availability check: a spare server for a production service that must stay up (N+1).

The builder adds ``BuildNeeds.spare_servers`` servers beyond what the job needs; this check says
what fails over and the availability to expect, from ``rules.service_availability``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_DOWN, Decimal
from typing import Any

from ...i18n import gettext_noop, ngettext_noop
from .. import rules
from .records import Outcome, RuleCheck, Subject, always

_PERCENT = Decimal("0.001")


def _spares(s: Subject) -> int:
    return min(s.needs.spare_servers, s.config.servers - 1)


def _percent(share: Decimal) -> Decimal:
    """Rounded down: a service up 99.99996 % of the time is quoted 99.999 %, never 100 %."""
    return (share * 100).quantize(_PERCENT, rounding=ROUND_DOWN)


def _params(s: Subject) -> Mapping[str, Any]:
    spares = _spares(s)
    working = s.config.servers - spares
    return {
        "servers": s.config.servers,
        "working": working,
        "spares": spares,
        "availability": _percent(rules.service_availability(working, spares, s.needs.repair_hours)),
        "single": _percent(rules.server_availability(s.needs.repair_hours)),
        "faults": rules.SERVER_FAULTS_PER_YEAR,
        "hours": s.needs.repair_hours,
    }


AVAILABILITY = RuleCheck(
    rules.AVAILABILITY,
    _params,
    (
        Outcome(
            lambda s: not s.production,
            True,
            gettext_noop("Not needed for an experiment."),
        ),
        Outcome(
            lambda s: not s.needs.serving,
            True,
            gettext_noop(
                "No spare server: a training job restarts from its last checkpoint when a server "
                "fails (about %(faults)s faults a year per server)."
            ),
        ),
        Outcome(
            lambda s: s.needs.spare_servers > 0 and _spares(s) < s.needs.spare_servers,
            False,
            ngettext_noop(
                "The service must stay up, but %(servers)s server leaves no spare: add one so "
                "that the service survives a server failing.",
                "The service must stay up, but %(servers)s servers leave no spare: add one so "
                "that the service survives a server failing.",
            ),
            count="servers",
        ),
        Outcome(
            lambda s: _spares(s) == 0,
            True,
            ngettext_noop(
                "No spare server, as the service need not run around the clock: expected "
                "availability %(availability)s %% (%(servers)s server up, a failed one back within "
                "%(hours)s h).",
                "No spare server, as the service need not run around the clock: expected "
                "availability %(availability)s %% (all %(servers)s servers up, a failed one back "
                "within %(hours)s h).",
            ),
            count="servers",
        ),
        Outcome(
            always,
            True,
            ngettext_noop(
                "%(working)s server carries the load and %(spares)s spare takes over when it "
                "fails: expected availability %(availability)s %% (one server alone: "
                "%(single)s %%; a failed server back within %(hours)s h). Redundant power "
                "supplies and mirrored system disks keep each server up through their own "
                "faults.",
                "%(working)s servers carry the load and %(spares)s spare takes over when one "
                "fails: expected availability %(availability)s %% (one server alone: "
                "%(single)s %%; a failed server back within %(hours)s h). Redundant power "
                "supplies and mirrored system disks keep each server up through their own "
                "faults.",
            ),
            count="working",
        ),
    ),
)
