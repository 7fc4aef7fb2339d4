"""The assumptions of one region and currency: value objects, errors, conversion, validation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

from ..i18n import Message, gettext_noop
from ..money import CURRENCIES, Money, amount_between
from .facts import COMMON, ONE, RATES, REGIONAL, Fact
from .gpu_models import gpu_model_key, gpu_model_name
from .gpu_prices import CLOUD_ON_DEMAND, CLOUD_ON_DEMAND_BY_REGION
from .specs import SPECS, unit_message

REGIONS = ("DE", "FR", "GB", "US")
OVERRIDE_SOURCE = "override"


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


class AssumptionError(ValueError):
    """A region, currency, name or value the assumptions cannot accept.

    ``message`` is the translatable explanation; ``field`` names the offending input.
    """

    def __init__(self, message: Message, *, field: str) -> None:
        super().__init__(message.render())
        self.message = message
        self.field = field


class UnknownRegionError(AssumptionError):
    pass


def _msg(template: str, **params: object) -> Message:
    return Message(template, MappingProxyType(dict(params)))


# --------------------------------------------------------------------------------------------
# The value objects
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assumption:
    name: str
    value: Decimal
    unit: str
    source: str  # the citation, verbatim
    label: Message
    overridden: bool = False
    # How a figure published in another currency was converted (a sentence to translate,
    # shown after the citation); None when it was not.
    conversion: Message | None = None


# --------------------------------------------------------------------------------------------
# The set of assumptions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assumptions(Mapping[str, Assumption]):
    """All assumptions for one region and currency; a read-only mapping name -> Assumption.

    Build it with ``region_defaults``; derive variants with ``with_overrides`` and
    ``for_gpu_model``. ``gpu_model`` is the canonical key the per-model defaults were
    resolved for (``None``: not resolved).
    """

    region: str
    currency: str
    items: tuple[Assumption, ...]  # type: ignore[assignment]  # a field, not Mapping.items()
    gpu_model: str | None = None
    # Staff-edited regional defaults (from the database) that replace the built-in facts.
    edited: Mapping[str, Fact] = field(default_factory=lambda: MappingProxyType({}))
    _index: Mapping[str, Assumption] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_index", MappingProxyType({item.name: item for item in self.items})
        )

    def __getitem__(self, name: str) -> Assumption:
        return self._index[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def value(self, name: str) -> Decimal:
        return self._index[name].value

    def money(self, name: str) -> Money:
        if not SPECS[name].money:
            raise KeyError(name)
        return Money(self._index[name].value, self.currency)

    @property
    def overrides(self) -> Mapping[str, Decimal]:
        """The overridden values, to store with a quote and replay later."""
        return MappingProxyType({a.name: a.value for a in self.items if a.overridden})

    def with_overrides(self, **values: Decimal | int | str | Money) -> Assumptions:
        """A copy with ``values`` replacing the defaults (source ``"override"``).

        Accepts ``Decimal``, ``int``, a numeric ``str`` or, for money, ``Money`` in this set's
        currency; ``float`` is refused. Unknown names and out-of-range values raise
        ``AssumptionError``. Overriding ``usd_per_eur`` or ``gbp_per_eur`` re-converts every
        default that was converted.
        """
        merged = dict(self.overrides)
        for name, raw in values.items():
            merged[name] = _validated(name, raw, self.currency)
        return _assemble(self.region, self.currency, self.gpu_model, merged, self.edited)

    def for_gpu_model(self, name: str | None) -> Assumptions:
        """A copy whose per-model defaults are those of GPU ``name`` (overrides are kept)."""
        key = gpu_model_key(name)
        if key == self.gpu_model:
            return self
        return _assemble(self.region, self.currency, key, dict(self.overrides), self.edited)


def region_defaults(
    region: str,
    currency: str,
    *,
    gpu_model: str | None = None,
    edited: Mapping[str, Fact] | None = None,
) -> Assumptions:
    """The default assumptions for ``region`` (FR, DE, US, GB), money in ``currency``.

    ``gpu_model`` (a name or SKU) resolves the per-model defaults now; otherwise
    ``compute_tco`` resolves them from the configuration. ``edited`` holds the defaults staff
    changed for this region (value, currency, source), which replace the built-in facts.
    """
    code = _region(region)
    cur = _currency(currency)
    for name, fact in (edited or {}).items():
        _validated(name, fact.value, fact.currency or cur)
    return _assemble(code, cur, gpu_model_key(gpu_model), {}, MappingProxyType(dict(edited or {})))


def builtin_facts(region: str) -> Mapping[str, Fact]:
    """The built-in regional and common defaults (not per GPU model), as published."""
    return MappingProxyType({**COMMON, **REGIONAL[_region(region)], **RATES})


# --------------------------------------------------------------------------------------------
# Internals
# --------------------------------------------------------------------------------------------


def _region(region: str) -> str:
    code = (region or "").strip().upper()
    if code not in REGIONS:
        raise UnknownRegionError(
            _msg(
                gettext_noop("Unknown region %(region)s; use one of %(allowed)s."),
                region=region,
                allowed=", ".join(REGIONS),
            ),
            field="region",
        )
    return code


def _currency(currency: str) -> str:
    code = (currency or "").strip().upper()
    if code not in CURRENCIES:
        raise AssumptionError(
            _msg(
                gettext_noop("Unsupported currency %(currency)s; use one of %(allowed)s."),
                currency=currency,
                allowed=", ".join(CURRENCIES),
            ),
            field="currency",
        )
    return code


def _validated(name: str, raw: Decimal | int | str | Money, currency: str) -> Decimal:
    spec = SPECS.get(name)
    if spec is None:
        raise AssumptionError(
            _msg(
                gettext_noop("Unknown assumption %(name)s; known: %(known)s."),
                name=name,
                known=", ".join(SPECS),
            ),
            field=name,
        )
    if isinstance(raw, Money):
        if not spec.money or raw.currency != currency:
            raise AssumptionError(
                _msg(
                    gettext_noop("%(name)s must be given in %(currency)s."),
                    name=name,
                    currency=currency,
                ),
                field=name,
            )
        value = raw.amount
    elif isinstance(raw, bool) or not isinstance(raw, Decimal | int | str):
        raise AssumptionError(
            _msg(gettext_noop("%(name)s must be a decimal number, not a float."), name=name),
            field=name,
        )
    else:
        try:
            value = Decimal(raw)
        except InvalidOperation:
            value = Decimal("NaN")
    if (
        not value.is_finite()
        or value < spec.minimum
        or (spec.maximum is not None and value > spec.maximum)
    ):
        raise AssumptionError(
            _msg(
                gettext_noop("%(name)s must be between %(minimum)s and %(maximum)s."),
                name=name,
                minimum=spec.minimum,
                maximum="any" if spec.maximum is None else spec.maximum,
            ),
            field=name,
        )
    if spec.integral and value != value.to_integral_value():
        raise AssumptionError(_msg(gettext_noop("%(name)s must be 0 or 1."), name=name), field=name)
    return value


class _Converter:
    """Converts a published figure into the target currency and says how in its source."""

    def __init__(self, currency: str, usd_per_eur: Decimal, gbp_per_eur: Decimal) -> None:
        self.currency = currency
        self.per_eur = {"EUR": ONE, "USD": usd_per_eur, "GBP": gbp_per_eur}

    def __call__(self, fact: Fact) -> tuple[Decimal, Message | None]:
        """The value in the target currency, and how it was converted (None: it was not)."""
        if fact.currency is None or fact.currency == self.currency or not fact.value:
            return fact.value, None
        rate_from = self.per_eur[fact.currency]
        rate_to = self.per_eur[self.currency]
        value = amount_between(fact.value, fact.currency, self.currency, self.per_eur)
        if fact.currency == "EUR":
            return value, _msg(
                gettext_noop("published in %(published)s, converted at %(rate)s %(currency)s/EUR"),
                published=fact.currency,
                rate=rate_to,
                currency=self.currency,
            )
        if self.currency == "EUR":
            return value, _msg(
                gettext_noop("published in %(published)s, converted at %(rate)s %(published)s/EUR"),
                published=fact.currency,
                rate=rate_from,
            )
        return value, _msg(
            gettext_noop(
                "published in %(published)s, converted at %(rate_from)s %(published)s/EUR and "
                "%(rate_to)s %(currency)s/EUR"
            ),
            published=fact.currency,
            rate_from=rate_from,
            rate_to=rate_to,
            currency=self.currency,
        )


def _label(name: str, gpu_model: str | None) -> Message:
    if name == "cloud_price_per_gpu_hour" and gpu_model:
        return _msg(
            gettext_noop("Cloud price per GPU-hour, on demand (%(gpu)s)"),
            gpu=gpu_model_name(gpu_model),
        )
    if name == "managed_monthly_price" and gpu_model:
        return _msg(
            gettext_noop("Managed-hosting fee per GPU per month (%(gpu)s)"),
            gpu=gpu_model_name(gpu_model),
        )
    return Message(SPECS[name].label)


def _assemble(
    region: str,
    currency: str,
    gpu_model: str | None,
    overrides: Mapping[str, Decimal],
    edited: Mapping[str, Fact] = MappingProxyType({}),
) -> Assumptions:
    rate_facts = {name: edited.get(name, fact) for name, fact in RATES.items()}
    rates = {name: overrides.get(name, fact.value) for name, fact in rate_facts.items()}
    convert = _Converter(currency, rates["usd_per_eur"], rates["gbp_per_eur"])

    facts: dict[str, Fact] = {**COMMON, **REGIONAL[region]}
    if gpu_model is not None:
        cloud = CLOUD_ON_DEMAND_BY_REGION.get(region, {}).get(gpu_model) or CLOUD_ON_DEMAND.get(
            gpu_model
        )
        if cloud is not None:
            facts["cloud_price_per_gpu_hour"] = cloud
    facts.update(RATES)
    facts.update(edited)

    items: list[Assumption] = []
    for name in SPECS:
        unit = unit_message(name, currency).render()
        label = _label(name, gpu_model)
        if name in overrides:
            items.append(Assumption(name, overrides[name], unit, OVERRIDE_SOURCE, label, True))
        elif name in facts:
            value, conversion = convert(facts[name])
            items.append(
                Assumption(name, value, unit, facts[name].source, label, conversion=conversion)
            )
    return Assumptions(
        region=region, currency=currency, items=tuple(items), gpu_model=gpu_model, edited=edited
    )


def assumption_validate(name: str, value: Decimal, currency: str) -> Decimal:
    """Check one value against its assumption's range; raises ``AssumptionError``."""
    return _validated(name, value, currency)


def is_money(name: str) -> bool:
    return SPECS[name].money
