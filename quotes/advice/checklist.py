"""The seed articles' five-point decision checklist, evaluated on an advice result's figures."""

from __future__ import annotations

from decimal import Decimal

from engine.advice import checklist
from engine.money import Money
from engine.tco import Category, OptionCost
from quotes.advice.result import AdviceResult


def _option_figures(result: AdviceResult) -> checklist.OptionFigures | None:
    option = result.chosen
    if option is None:
        return None
    cpu = next((line for line in option.parts if line.kind == "cpu"), None)
    gpu = option.gpu_line
    totals = option.totals
    return checklist.OptionFigures(
        servers=option.servers,
        gpus=totals.gpus,
        gpu_name=gpu.name,
        vram_gb=totals.vram_gb,
        ram_gb=totals.ram_gb,
        storage_gb=totals.storage_gb,
        cpu_name=cpu.name if cpu else "",
        cpus=cpu.quantity * option.servers if cpu else 0,
        price=totals.price,
        passed={check.rule: check.passed for check in option.checks},
    )


def _sum(cost: OptionCost, *categories: Category) -> Money:
    amounts = (cost.by_category[c] for c in categories if c in cost.by_category)
    return sum(amounts, Money(Decimal(0), cost.total.currency))


def _cost_figures(result: AdviceResult) -> checklist.CostFigures | None:
    tco = result.tco
    if tco is None:
        return None
    on_premises = tco.on_premises
    return checklist.CostFigures(
        horizon_years=tco.horizon_months // 12,
        on_premises=on_premises.total,
        managed=None if tco.managed is None else tco.managed.total,
        cloud=None if tco.cloud is None else tco.cloud.total,
        capital=_sum(on_premises, Category.CAPITAL),
        energy=_sum(on_premises, Category.POWER, Category.COOLING),
        support=_sum(on_premises, Category.SUPPORT, Category.SPARES, Category.INSURANCE),
        break_even_vs_managed=tco.break_even_month.vs_managed,
    )


def checklist_evaluate(result: AdviceResult) -> tuple[checklist.ChecklistItem, ...]:
    inputs = result.inputs
    currency = inputs.currency
    return checklist.evaluate(
        checklist.ChecklistInput(
            job_memory_gb=result.sizing.memory_gb.total,
            storage_need_gb=result.sizing.storage_gb,
            growth_gpus=inputs.growth_gpus,
            deployment=checklist.Deployment(inputs.deployment),
            option=_option_figures(result),
            costs=_cost_figures(result),
            budget=None if inputs.budget is None else Money(inputs.budget, currency),
        )
    )
