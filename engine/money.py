"""Money as Decimal plus an ISO 4217 currency, rounded in one place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CURRENCIES = ("EUR", "USD")
CENT = Decimal("0.01")


def round_money(amount: Decimal) -> Decimal:
    """Round to cents, half up (commercial rounding). The only rounding rule for money."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def amount_between(
    amount: Decimal, source: str, target: str, per_eur: Mapping[str, Decimal]
) -> Decimal:
    """``amount`` of ``source`` in ``target`` through the euro, exact: the one conversion formula
    (``per_eur``: units of each currency per euro, the ECB's quotation; the euro's is 1)."""
    if source == target:
        return amount
    return amount / per_eur[source] * per_eur[target]


class CurrencyMismatchError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise TypeError("Money.amount must be a Decimal, never a float")

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise CurrencyMismatchError(f"{self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> Money:
        return Money(self.amount * Decimal(factor), self.currency)

    __rmul__ = __mul__

    def rounded(self) -> Money:
        return Money(round_money(self.amount), self.currency)

    def __str__(self) -> str:
        return f"{round_money(self.amount)} {self.currency}"
