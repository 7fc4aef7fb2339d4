"""The configuration builder's three tiers (budget, balanced, performance) and the prices it
compares them by.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from engine.builder import GpuFit, Tier, build_options
from tests.engine import catalog_factory as make
from tests.engine.builder_cases import fits, needs, pcie_parts, rendered


def tier_catalog() -> Any:
    return make.snapshot(make.l40s(), make.h100_nvl(), make.pcie_chassis(), *pcie_parts())


# 60 GB in total: two L40S (30 GB each) or one H100 NVL
SIXTY_GB = fits(GPU_L40S=(2, 30.0), GPU_H100_NVL=(1, 60.0))


def test_three_tiers_budget_balanced_and_performance():
    result = build_options(needs(SIXTY_GB), tier_catalog())

    summary = [
        (
            o.tier,
            o.totals.price,
            [(p.sku, p.quantity) for p in o.parts if p.kind in {"gpu", "drive"}],
        )
        for o in result.options
    ]
    # Budget: 12,000 + 2 x 8,000 + 2,000 + 16 x 80 + 240 + 900 = 32,420 (724 TFLOPS)
    # Balanced: best TFLOPS per euro is the L40S build, with a second drive for 2x reads
    # Performance: one H100 NVL has more TFLOPS (835): 12,000 + 28,000 + ... + 2 drives
    assert summary == [
        (Tier.BUDGET, make.eur("32420.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 1)]),
        (Tier.BALANCED, make.eur("33320.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 2)]),
        (
            Tier.PERFORMANCE,
            make.eur("45320.00"),
            [("GPU-H100-NVL", 1), ("M2-480", 2), ("NVME-7.68", 2)],
        ),
    ]


def test_performance_stays_within_the_budget_and_duplicates_are_left_out():
    result = build_options(needs(SIXTY_GB, budget=make.eur(40000)), tier_catalog())

    # The H100 NVL build is over budget: performance falls back to the L40S comfort build,
    # which is the balanced option already.
    assert [(o.tier, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, make.eur("32420.00")),
        (Tier.BALANCED, make.eur("33320.00")),
    ]


def test_parts_without_a_price_are_not_offered():
    free_looking = make.l40s(sku="GPU-L40S-NOPRICE", name="L40S (no price)", price=None)
    catalog = make.snapshot(free_looking, make.l40s(), make.pcie_chassis(), *pcie_parts())
    job = needs(lambda gpu: GpuFit(1, 30.0))

    result = build_options(job, catalog)

    assert {p.sku for o in result.options for p in o.parts if p.kind == "gpu"} == {"GPU-L40S"}


def test_identical_skus_count_as_one_model_and_the_cheapest_is_chosen():
    calls: list[str] = []

    def gpus_for(gpu: Any) -> GpuFit:
        calls.append(gpu.sku)
        return GpuFit(1, 30.0)

    dear = make.l40s(sku="GPU-L40S-OEM", name="L40S OEM", vendor="OEM", price=9000)
    catalog = make.snapshot(dear, make.l40s(), make.pcie_chassis(), *pcie_parts())

    result = build_options(needs(gpus_for), catalog)

    assert calls == ["GPU-L40S"]
    assert [p.sku for p in result.options[0].parts if p.kind == "gpu"] == ["GPU-L40S"]


def test_a_request_in_another_currency_is_unmet():
    result = build_options(needs(SIXTY_GB, currency="USD"), tier_catalog())

    assert rendered(result.unmet) == [
        "The catalog is priced in EUR but the request is in USD: ask for EUR."
    ]


def test_money_totals_keep_cents():
    catalog = make.snapshot(make.l40s(price=Decimal("8000.45")), make.pcie_chassis(), *pcie_parts())

    budget = build_options(needs(fits(GPU_L40S=(1, 30.0))), catalog).options[0]

    # 12,000 + 8,000.45 + 2,000 + 16 x 80 + 240 + 900
    assert budget.totals.price == make.eur("24420.45")
