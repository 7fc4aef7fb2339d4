"""Builders for the rows tests and benchmarks need, with valid defaults a caller overrides by name.

``<thing>_make`` saves a row (through the service where one exists, so the row is one the app
could have written); ``<thing>_build`` returns an unsaved instance, for ``bulk_create`` when a
benchmark needs thousands. Sections: catalog (parts, prices, feeds), sales (staff users, quotes,
wizard results and requests), partners (keys, webhooks, deliveries).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from catalog.models import (
    Chassis,
    Cpu,
    Drive,
    Gpu,
    MemoryModule,
    NetworkCard,
    Part,
    Price,
    PriceKind,
    PriceSource,
)
from catalog.services import price_source_refresh
from engine.assumptions.specs import SPECS
from engine.build.builder import BuildResult, BuiltOption, PartLine, Tier, Totals
from engine.build.parts import PartKind
from engine.money import Money
from engine.sizing import size
from engine.workload import workload_from_dict
from quotes.advice.result import AdviceInputs, AdviceResult, ModelSummary
from quotes.advice.store import result_to_json
from quotes.models import (
    ApiKey,
    Partner,
    Quote,
    QuoteLine,
    QuoteRequest,
    QuoteRevision,
    RegionAssumption,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
    WizardResult,
)
from quotes.partners.keys import api_key_issue
from quotes.partners.webhooks.events import webhook_event_emit
from quotes.sales import services as sales_services

_serial = itertools.count(1)
_assumption_names = itertools.cycle(SPECS)


def _sku(prefix: str) -> str:
    return f"{prefix}-{next(_serial):05d}"


# --- Catalog ------------------------------------------------------------------------------------


def part_build(**overrides: Any) -> Part:
    """A bare unsaved ``Part`` (no kind table row): enough for price feeds, which match by SKU."""
    values: dict[str, Any] = {
        "kind": PartKind.DRIVE,
        "sku": _sku("PRT"),
        "vendor": "Micron",
        "model": "Part",
        "source": "tests/factories.py",
    }
    return Part(**(values | overrides))


def gpu_make(**overrides: Any) -> Gpu:
    values: dict[str, Any] = {
        "sku": _sku("GPU"),
        "vendor": "NVIDIA",
        "model": "H100 SXM5 80GB",
        "source": "https://www.nvidia.com/en-us/data-center/h100/",
        "architecture": "Hopper",
        "memory_gb": 80,
        "memory_bandwidth_gbs": 3350,
        "bf16_tflops": Decimal("989.4"),
        "fp8_tflops": Decimal("1978.9"),
        "tdp_w": 700,
        "form_factor": "sxm",
        "nvlink_gbs": 900,
        "ecc": True,
        "mig": True,
        "gpu_class": "datacenter",
        "pcie_gen": 5,
    }
    return Gpu.objects.create(kind=Gpu.KIND, **(values | overrides))


def cpu_make(**overrides: Any) -> Cpu:
    values: dict[str, Any] = {
        "sku": _sku("CPU"),
        "vendor": "AMD",
        "model": "EPYC 9654",
        "source": "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-series/amd-epyc-9654.html",
        "socket": "SP5",
        "cores": 96,
        "threads": 192,
        "base_ghz": Decimal("2.40"),
        "boost_ghz": Decimal("3.70"),
        "tdp_w": 360,
        "memory_channels": 12,
        "max_memory_gb": 6000,
        "pcie_gen": 5,
        "pcie_lanes": 128,
        "server_grade": True,
    }
    return Cpu.objects.create(kind=Cpu.KIND, **(values | overrides))


def memory_make(**overrides: Any) -> MemoryModule:
    values: dict[str, Any] = {
        "sku": _sku("MEM"),
        "vendor": "Micron",
        "model": "64GB DDR5-4800 RDIMM",
        "source": "https://www.micron.com/products/memory/dram-modules/rdimm",
        "capacity_gb": 64,
        "ddr_generation": 5,
        "speed_mts": 4800,
        "ecc": True,
        "registered": True,
        "power_w": Decimal("10.0"),
    }
    return MemoryModule.objects.create(kind=MemoryModule.KIND, **(values | overrides))


def drive_make(**overrides: Any) -> Drive:
    values: dict[str, Any] = {
        "sku": _sku("DRV"),
        "vendor": "Micron",
        "model": "9550 PRO 7.68TB",
        "source": "https://www.micron.com/products/storage/ssd/data-center-ssd/9550-ssd",
        "drive_kind": "nvme",
        "form_factor": "u2",
        "capacity_tb": Decimal("7.68"),
        "read_mbs": 14000,
        "write_mbs": 10000,
        "endurance_dwpd": Decimal("1.00"),
        "power_w": Decimal("25.0"),
    }
    return Drive.objects.create(kind=Drive.KIND, **(values | overrides))


def nic_make(**overrides: Any) -> NetworkCard:
    values: dict[str, Any] = {
        "sku": _sku("NIC"),
        "vendor": "NVIDIA",
        "model": "ConnectX-7 400G OSFP",
        "source": "https://www.nvidia.com/en-us/networking/infiniband-adapters/",
        "speed_gbps": 400,
        "ports": 1,
        "ethernet": True,
        "infiniband": True,
        "roce": True,
        "pcie_gen": 5,
        "pcie_lanes": 16,
        "power_w": Decimal("25.0"),
    }
    return NetworkCard.objects.create(kind=NetworkCard.KIND, **(values | overrides))


def chassis_make(**overrides: Any) -> Chassis:
    values: dict[str, Any] = {
        "sku": _sku("CHS"),
        "vendor": "Supermicro",
        "model": "SYS-821GE-TNHR",
        "source": "https://www.supermicro.com/en/products/system/gpu/8u/sys-821ge-tnhr",
        "rack_units": 8,
        "gpu_slots": 8,
        "accepts_sxm": True,
        "max_gpu_tdp_w": 700,
        "nvswitch": True,
        "cpu_sockets": 2,
        "cpu_socket_type": "LGA4677",
        "dimm_slots": 32,
        "ddr_generation": 5,
        "nvme_bays": 16,
        "pcie_gen": 5,
        "psu_count": 6,
        "psu_w": 3000,
        "psu_redundant": 3,
        "cooling": "air",
        "max_system_power_w": 10200,
        "base_power_w": 900,
    }
    return Chassis.objects.create(kind=Chassis.KIND, **(values | overrides))


def price_build(part: Part, **overrides: Any) -> Price:
    """An unsaved purchase price of ``part`` in EUR."""
    values: dict[str, Any] = {
        "price_kind": PriceKind.PURCHASE,
        "amount": Decimal("1000.00"),
        "currency": "EUR",
        "observed_on": dt.date(2026, 10, 1),
        "source": "test price list",
    }
    return Price(part=part, **(values | overrides))


def price_make(part: Part, **overrides: Any) -> Price:
    price = price_build(part, **overrides)
    price.save()
    return price


def price_source_make(**overrides: Any) -> PriceSource:
    """A supplier's CSV price list read from a file (``location`` under PRICE_FEED_FILE_ROOT)."""
    values: dict[str, Any] = {
        "name": f"Supplier {next(_serial)}",
        "kind": "supplier",
        "location": "prices.csv",
        "format": "csv",
        "currency": "EUR",
    }
    return PriceSource.objects.create(**(values | overrides))


def ecb_rates_load() -> PriceSource:
    """The ECB source read from the committed 90-day sample (the ECB's structure, illustrative
    rates: USD 1.0839 on 2026-12-02, 1.0853 on 2026-12-04, the latest), applied as the daily
    task applies the real file."""
    source = PriceSource.objects.create(
        name="ECB euro reference rates",
        kind="exchange_rates",
        location="ecb-eurofxref-hist-90d.xml",
        format="xml",
        currency="EUR",
        schedule="30 16 * * 1-5",
    )
    assert price_source_refresh(source_id=source.pk).rows_changed == 87
    return source


# --- Sales --------------------------------------------------------------------------------------


def staff_user_make(username: str | None = None, *, group: str | None = sales_services.REP_GROUP):
    """A signed-up user in ``group`` (a sales rep by default; None: in no group)."""
    user = get_user_model().objects.create_user(
        username=username or f"user{next(_serial)}", password="not-a-real-password"
    )
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def line_inputs(count: int = 1, **overrides: Any) -> list[sales_services.LineInput]:
    """``count`` one-off part lines at 1,000.00 EUR each, SKUs LINE-1, LINE-2, ..."""
    lines = []
    for n in range(1, count + 1):
        values: dict[str, Any] = {
            "kind": "part",
            "sku": f"LINE-{n}",
            "description": f"Part {n}",
            "quantity": Decimal(1),
            "unit_price": Decimal("1000.00"),
        }
        lines.append(sales_services.LineInput(**(values | overrides)))
    return lines


def quote_make(
    *, user: Any = None, lines: int | list[sales_services.LineInput] = 1, **overrides: Any
) -> Quote:
    """A draft quote through ``quote_create``: staff-made for ``user``, or a partner's
    (``origin="partner_api", partner=...``); ``lines`` is a count of part lines or the lines."""
    values: dict[str, Any] = {
        "origin": "staff" if user is not None else "partner_api",
        "company": "Acme",
        "contact_name": "Ada",
        "email": "ada@example.com",
        "country": "FR",
    }
    if isinstance(lines, int):
        lines = line_inputs(lines)
    return sales_services.quote_create(user=user, lines=lines, **(values | overrides))


def quote_build(*, year: int, sequence: int, **overrides: Any) -> Quote:
    """An unsaved quote numbered ``Q-<year>-<sequence>`` (give ``quotes_bulk_make`` many)."""
    values: dict[str, Any] = {
        "number": f"Q-{year}-{sequence:05d}",
        "year": year,
        "sequence": sequence,
        "origin": "staff",
        "status": "draft",
        "company": f"Company {sequence}",
        "contact_name": f"Contact {sequence}",
        "email": f"contact{sequence}@example.com",
        "country": "FR",
    }
    return Quote(**(values | overrides))


def quotes_bulk_make(
    quotes: Iterable[Quote],
    *,
    lines_per_quote: int = 2,
    valid_until: dt.date = dt.date(2027, 1, 1),
    batch_size: int = 2000,
) -> list[Quote]:
    """Save unsaved quotes (``quote_build``) in a few queries, each with its first revision
    current and ``lines_per_quote`` one-off part lines: thousands of rows for a benchmark."""
    saved = Quote.objects.bulk_create(quotes, batch_size=batch_size)
    revisions = QuoteRevision.objects.bulk_create(
        (QuoteRevision(quote=quote, index=0, valid_until=valid_until) for quote in saved),
        batch_size=batch_size,
    )
    for quote, revision in zip(saved, revisions, strict=True):
        quote.current_revision = revision
    Quote.objects.bulk_update(saved, ["current_revision"], batch_size=batch_size)
    QuoteLine.objects.bulk_create(
        (
            QuoteLine(
                revision=revision,
                position=position,
                kind="part",
                description="GPU",
                quantity=Decimal(1),
                unit_price=Decimal("1000.00"),
                currency="EUR",
            )
            for revision in revisions
            for position in range(1, lines_per_quote + 1)
        ),
        batch_size=batch_size,
    )
    return saved


def region_assumption_make(**overrides: Any) -> RegionAssumption:
    """A staff-set regional default (the next assumption name in turn, region FR)."""
    values: dict[str, Any] = {
        "region": "FR",
        "name": next(_assumption_names),
        "value": Decimal(1),
        "source": "tests/factories.py",
    }
    return RegionAssumption.objects.create(**(values | overrides))


def _eur(amount: str) -> Money:
    return Money(Decimal(amount), "EUR")


def advice_inputs_make(**overrides: Any) -> AdviceInputs:
    """The computation's inputs: a production 70B service in France, around the clock, over
    3 years in EUR, managed; ``overrides`` by field name."""
    values: dict[str, Any] = {
        "workload": {"task": "inference", "model": "llama-3.1-70b"},
        "environment": "production",
        "uptime": "always_on",
        "growth_gpus": 0,
        "deployment": "managed",
        "region": "FR",
        "currency": "EUR",
        "horizon_years": 3,
        "utilization": Decimal("0.7"),
        "budget": None,
        "overrides": {},
    }
    return AdviceInputs(**(values | overrides))


def advice_result_build(*, deployment: str = "managed") -> AdviceResult:
    """An advice result whose balanced option is 2 servers of 8 H100 (no TCO), built by hand:
    a quote made from it has known lines."""
    option = BuiltOption(
        tier=Tier.BALANCED,
        servers=2,
        parts=(
            PartLine("chassis", "CHS-1", "Supermicro 8U", 1, _eur("30000.00")),
            PartLine("gpu", "GPU-H100", "NVIDIA H100", 8, _eur("25000.00")),
        ),
        totals=Totals(
            gpus=16,
            vram_gb=1280.0,
            ram_gb=4096,
            storage_gb=30720.0,
            power_w=10200,
            power_sized_w=12000,
            price=_eur("460000.00"),
            currency="EUR",
            rack_units=16,
            managed_monthly_price=_eur("9000.00"),
        ),
        checks=(),
    )
    workload = {"task": "inference", "model": "llama-3.1-70b"}
    return AdviceResult(
        inputs=advice_inputs_make(workload=workload, deployment=deployment),
        model=ModelSummary("llama-3.1-70b", "Llama", 70.6),
        sizing=size(workload_from_dict(workload)),
        build=BuildResult(options=(option,), unmet=()),
        chosen_tier=Tier.BALANCED,
        tco=None,
        recommended_gpu=None,
        on_recommended=None,
        workstation_gpu=None,
        on_workstation=None,
        defaults=(),
        price_ages={},
    )


def stored_result_make(*, advice: AdviceResult | None = None, **overrides: Any) -> WizardResult:
    """A stored wizard result of ``advice`` (``advice_result_build()`` by default); a result
    computed against the catalog comes from the wizard itself
    (``tests.quotes.wizard.wizard_cases``)."""
    stored = result_to_json(advice or advice_result_build())
    values: dict[str, Any] = {"language": "en", "answers": {}, "result": stored}
    return WizardResult.objects.create(**(values | overrides))


def quote_request_make(*, result: WizardResult | None = None, **overrides: Any) -> QuoteRequest:
    """A new quote request from the wizard (on a result of its own unless given one)."""
    values: dict[str, Any] = {
        "name": "Ada Lovelace",
        "company": "Analytical Engines SA",
        "email": f"ada{next(_serial)}@example.com",
        "country": "FR",
        "consent": True,
    }
    return QuoteRequest.objects.create(
        result=result or stored_result_make(), **(values | overrides)
    )


# --- Partners -----------------------------------------------------------------------------------


def partner_make(**overrides: Any) -> Partner:
    """A partner, the existing one when ``name`` is taken (a benchmark reuses its own)."""
    values: dict[str, Any] = {"name": f"Partner {next(_serial)}"} | overrides
    partner, _created = Partner.objects.get_or_create(name=values.pop("name"), defaults=values)
    return partner


def api_key_make(partner: Partner, **overrides: Any) -> tuple[ApiKey, str]:
    """A new key of ``partner`` and its raw value (``Authorization: Api-Key <raw>``)."""
    return api_key_issue(partner=partner, **({"name": "tests"} | overrides))


def webhook_make(partner: Partner, **overrides: Any) -> Webhook:
    values: dict[str, Any] = {"url": "https://partner.example/hook"}
    return Webhook.objects.create(partner=partner, **(values | overrides))


def webhook_delivery_make(webhook: Webhook, *, attempts: int = 0, **data: Any) -> WebhookDelivery:
    """A ``quote.status_changed`` delivery queued to ``webhook`` (the events service signs up
    every active webhook of its partner), with ``attempts`` failed attempts (HTTP 500)."""
    [delivery] = [
        delivery
        for delivery in webhook_event_emit(
            partner_ids=[webhook.partner_id],
            event_type="quote.status_changed",
            data=data or {"quote_id": 1},
        )
        if delivery.webhook_id == webhook.pk
    ]
    WebhookAttempt.objects.bulk_create(
        WebhookAttempt(delivery=delivery, number=n, response_status=500, duration_ms=10)
        for n in range(1, attempts + 1)
    )
    if attempts:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(attempt_count=attempts)
        delivery.refresh_from_db()
    return delivery
