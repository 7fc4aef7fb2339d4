"""Django choices from an enum declared once, in the engine (or the feed parsers).

The enum holds the values; the model or form gives the words shown beside them, one per member.
A member without a word, or a word for a value the enum does not have, fails at import: a value
added to the engine cannot reach a form or the admin unlabelled.

    kind = models.CharField(choices=choices_of(Cooling, {Cooling.AIR: _("Air"), ...}))
    models.CheckConstraint(condition=Q(kind__in=values_of(Cooling)), ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

E = TypeVar("E", bound=StrEnum)


def choices_of(enum: type[E], labels: Mapping[E, StrOrPromise]) -> list[tuple[str, StrOrPromise]]:
    """``[(value, label), ...]`` in the enum's order; every member labelled, nothing else."""
    missing = [member.name for member in enum if member not in labels]
    unknown = [str(key) for key in labels if key not in enum.__members__.values()]
    if missing or unknown:
        raise ValueError(
            f"{enum.__name__} choices: labels missing for {missing}, labels for unknown {unknown}"
        )
    return [(member.value, labels[member]) for member in enum]


def values_of(enum: type[StrEnum]) -> list[str]:
    """The enum's values as plain strings (what a migration writes for a constraint)."""
    return [member.value for member in enum]
