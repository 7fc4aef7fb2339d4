"""The configuration builder's three tiers (budget, balanced, performance) and the prices it
compares them by.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

import pytest

from engine.advice.recommendation import chosen_option
from engine.build.builder import GpuFit, Tier, build_options
from engine.build.configuration import BuilderInconsistencyError
from tests.engine import catalog_factory as make
from tests.engine.build.builder_cases import fits, needs, pcie_parts, rendered


def tier_catalog() -> Any:
    return make.snapshot(make.l40s(), make.h100_nvl(), make.pcie_chassis(), *pcie_parts())


# 60 GB in total: two L40S (30 GB each) or one H100 NVL
SIXTY_GB = fits(GPU_L40S=(2, 30.0), GPU_H100_NVL=(1, 60.0))
# Production mirrors its data, so every build has at least two 7.68 TB drives (14,000 MB/s):
# reads of 8,000 MB/s make the comfort margin (twice that) need 16,000 / 7,000 -> 3 -> an even 4.
READS = 8000.0


def test_three_tiers_budget_balanced_and_performance():
    result = build_options(needs(SIXTY_GB, storage_read_mbs=READS), tier_catalog())

    summary = [
        (
            o.tier,
            o.totals.price,
            [(p.sku, p.quantity) for p in o.parts if p.kind in {"gpu", "drive"}],
        )
        for o in result.options
    ]
    # Budget: 12,000 + 2 x 8,000 + 2,000 + 16 x 80 + 240 + 2 x 900 = 33,320 (724 TFLOPS)
    # Balanced: best TFLOPS per euro is the L40S build (724 / 33,320 against 835 / 45,320),
    # with four drives for 2x reads: 33,320 + 2 x 900 = 35,120
    # Performance: one H100 NVL has more TFLOPS (835): 12,000 + 28,000 + 2,000 + 16 x 80 + 240
    # + 4 x 900 = 47,120, within 3 x 33,320
    assert summary == [
        (Tier.BUDGET, make.eur("33320.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 2)]),
        (Tier.BALANCED, make.eur("35120.00"), [("GPU-L40S", 2), ("M2-480", 2), ("NVME-7.68", 4)]),
        (
            Tier.PERFORMANCE,
            make.eur("47120.00"),
            [("GPU-H100-NVL", 1), ("M2-480", 2), ("NVME-7.68", 4)],
        ),
    ]
    assert result.notes == ()


def test_performance_stays_within_the_budget_and_duplicates_are_left_out():
    result = build_options(
        needs(SIXTY_GB, storage_read_mbs=READS, budget=make.eur(40000)), tier_catalog()
    )

    # The H100 NVL build (45,320 at least) is over budget: performance falls back to the L40S
    # comfort build, which is the balanced option already.
    assert [(o.tier, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, make.eur("33320.00")),
        (Tier.BALANCED, make.eur("35120.00")),
    ]
    [note] = rendered(result.notes)
    assert note == (
        "No separate performance option: within your budget it would be the balanced option itself."
    )


def test_a_repeated_tier_under_a_budget_does_not_quote_the_price_band():
    result = build_options(
        needs(SIXTY_GB, storage_read_mbs=READS, budget=make.eur(40000)), tier_catalog()
    )

    # The H100 NVL build at 47,120 is within 3 x 33,320 = 99,960 and faster: only the budget
    # of 40,000 left it out, so the note must not say "within 3 times".
    [note] = rendered(result.notes)
    assert "3 times" not in note
    assert "budget" in note


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

    # 12,000 + 8,000.45 + 2,000 + 16 x 80 + 240 + 2 x 900 (a mirrored pair for the data)
    assert budget.totals.price == make.eur("25320.45")


def test_the_chosen_option_is_balanced_when_shown_else_the_cheapest():
    result = build_options(needs(SIXTY_GB, storage_read_mbs=READS), tier_catalog())
    budget, balanced, performance = result.options

    assert chosen_option(result.options) is balanced
    assert chosen_option((budget, performance)) is budget
    assert chosen_option((performance,)) is performance
    assert chosen_option(()) is None


def test_each_option_names_its_one_gpu_line():
    result = build_options(needs(SIXTY_GB, storage_read_mbs=READS), tier_catalog())

    assert [(o.gpu_line.sku, o.gpu_line.quantity) for o in result.options] == [
        ("GPU-L40S", 2),
        ("GPU-L40S", 2),
        ("GPU-H100-NVL", 1),
    ]
    no_gpu = dataclasses.replace(
        result.options[0], parts=tuple(p for p in result.options[0].parts if p.kind != "gpu")
    )
    with pytest.raises(BuilderInconsistencyError):
        _ = no_gpu.gpu_line
