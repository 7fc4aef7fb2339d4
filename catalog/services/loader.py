"""Loading the catalog's seed data: parts by SKU with their prices, all or nothing.

The data file (``catalog/data/catalog.json``, ``manage.py load_catalog``) lists each part with its
kind (``PART_MODELS``: GPUs to chassis, and the cluster parts: switch, cable, storage_server), its
specifications, its availability (``availability``, ``lead_time_weeks`` and where they
come from, ``availability_source``) and its prices; a malformed entry stops the load with a
message naming it. A part without availability data is current, lead time unknown.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction

from catalog.models import (
    Cable,
    Chassis,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    NetworkSwitch,
    Part,
    PriceKind,
    StorageServer,
)
from catalog.services.prices import price_record
from engine.build.parts import Availability, PartKind
from engine.money import CURRENCIES

PART_MODELS: dict[str, type[Part]] = {
    PartKind.GPU: Gpu,
    PartKind.CPU: Cpu,
    PartKind.MEMORY: MemoryModule,
    PartKind.DRIVE: Drive,
    PartKind.NIC: NetworkCard,
    PartKind.CHASSIS: Chassis,
    PartKind.SWITCH: NetworkSwitch,
    PartKind.CABLE: Cable,
    PartKind.STORAGE_SERVER: StorageServer,
}
# Fields every kind shares, read from the entry's top level, with their value when missing.
COMMON_FIELDS: dict[str, Any] = {
    "vendor": "",
    "model": "",
    "source": "",
    "notes": "",
    "availability": Availability.CURRENT,
    "lead_time_weeks": None,
    "availability_source": "",
}


class CatalogDataError(ValueError):
    """The catalog data file is malformed; the message names the part and the field."""


@dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    prices_added: int = 0
    prices_unchanged: int = 0
    skus: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"parts: {self.created} created, {self.updated} updated, {self.unchanged} unchanged; "
            f"prices: {self.prices_added} added, {self.prices_unchanged} unchanged"
        )


def _decimal(value: Any, where: str) -> Decimal:
    try:
        result = Decimal(str(value))
    except InvalidOperation as exc:
        raise CatalogDataError(f"{where}: {value!r} is not a number") from exc
    if not result.is_finite() or result < 0:
        raise CatalogDataError(f"{where}: {value!r} must be a non-negative number")
    return result


def _parse_price(entry: Mapping[str, Any], sku: str) -> dict[str, Any]:
    where = f"{sku} price"
    kind = entry.get("price_kind", PriceKind.PURCHASE)
    if kind not in PriceKind.values:
        raise CatalogDataError(f"{where}: price_kind must be one of {PriceKind.values}")
    currency = entry.get("currency")
    if currency not in CURRENCIES:
        raise CatalogDataError(f"{where}: currency must be one of {list(CURRENCIES)}")
    try:
        observed_on = dt.date.fromisoformat(entry["observed_on"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CatalogDataError(f"{where}: observed_on must be an ISO date (YYYY-MM-DD)") from exc
    if not entry.get("source"):
        raise CatalogDataError(f"{where}: every price needs a source")
    return {
        "price_kind": kind,
        "amount": _decimal(entry.get("amount"), f"{where} amount"),
        "currency": currency,
        "observed_on": observed_on,
        "source": entry["source"],
    }


def _upsert_part(entry: Mapping[str, Any], user: Any, report: LoadReport) -> Part:
    sku = entry.get("sku") or ""
    kind = entry.get("kind")
    model = PART_MODELS.get(kind)  # type: ignore[arg-type]
    if not sku or model is None:
        raise CatalogDataError(f"part {sku or '?'}: needs a sku and a kind in {list(PART_MODELS)}")
    if not entry.get("source"):
        raise CatalogDataError(f"{sku}: every part needs a specification source")
    spec = dict(entry.get("spec", {}))
    fields = {f.name: f for f in model._meta.concrete_fields}
    unknown = set(spec) - set(fields)
    if unknown:
        raise CatalogDataError(f"{sku}: unknown {kind} fields {sorted(unknown)}")
    values = {name: entry.get(name, default) for name, default in COMMON_FIELDS.items()} | spec
    part = model.objects.filter(sku=sku).first()
    if part is None:
        part = model(sku=sku, kind=model.KIND, created_by=user, updated_by=user, **values)
        part.full_clean()
        part.save()
        report.created += 1
        return part
    changed = [
        name
        for name, value in values.items()
        if fields[name].to_python(value) != getattr(part, name)
    ]
    if changed:
        for name in changed:
            setattr(part, name, values[name])
        part.updated_by = user
        part.full_clean()
        part.save()
        report.updated += 1
    else:
        report.unchanged += 1
    return part


@transaction.atomic
def catalog_load(*, parts: Iterable[Mapping[str, Any]], user: Any = None) -> LoadReport:
    """Create or update parts by SKU and record their prices; all or nothing."""
    report = LoadReport()
    for entry in parts:
        part = _upsert_part(entry, user, report)
        report.skus.append(part.sku)
        for price in entry.get("prices", []):
            added = price_record(part=part, user=user, **_parse_price(price, part.sku))
            if added:
                report.prices_added += 1
            else:
                report.prices_unchanged += 1
    return report
