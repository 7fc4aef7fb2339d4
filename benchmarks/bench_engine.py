"""The pure engine in-process: sizing per call, a full TCO, and sizing + builder end to end.

Targets (issues 3 and 4): sizing under 1 ms per call; a full TCO (36-60 months, three options,
sensitivity table) under 5 ms; the builder fed by real sizing on the synthetic 5,000-part
catalog under 50 ms p95.
"""

from __future__ import annotations

import random
from decimal import Decimal

from benchmarks.bench_builder import SEED, synthetic_catalog
from benchmarks.timing import measure, report
from engine.advice.pipeline import advise
from engine.assumptions import region_defaults
from engine.build.builder import Environment
from engine.build.search import SearchIndex
from engine.money import Money
from engine.sizing import GpuProfile, size
from engine.tco import TcoConfiguration, TcoInput, compute_tco
from engine.workload import workload_from_dict

WORKLOADS = [
    {"task": "inference", "model": "llama-3.1-70b", "inference": {"concurrent_requests": 16}},
    {"task": "fine_tuning", "model": "llama-3.1-8b", "training": {"method": "qlora"}},
    {
        "task": "pretraining",
        "model": "llama-3.1-8b",
        "training": {"training_tokens": 10**11, "deadline_days": 30, "sharding": "zero3"},
    },
    {"task": "fine_tuning", "model": "mixtral-8x7b", "training": {"method": "lora"}},
    {"task": "inference", "model": "mistral-7b", "precision": "int4"},
]
H100 = GpuProfile("H100 SXM", 80, 3350, 989.4, 1978.9)


def bench_sizing() -> bool:
    workloads = [workload_from_dict(w) for w in WORKLOADS]
    samples = []
    for workload in workloads:
        samples += measure(lambda w=workload: size(w, gpu=H100), runs=400)
    return report("size() per call", samples, target_p95_ms=1.0)


def bench_tco() -> bool:
    ok = True
    for years in (3, 5):
        tco_input = TcoInput(
            configuration=TcoConfiguration(
                servers=2,
                gpus_per_server=8,
                gpu_model="H100 SXM",
                power_w=10200,
                price=Money(Decimal("250000"), "EUR"),
                rack_units=8,
                managed_monthly_price=Money(Decimal("9000"), "EUR"),
            ),
            horizon_years=years,
            utilization=Decimal("0.7"),
            region="FR",
            currency="EUR",
            assumptions=region_defaults("FR", "EUR").with_overrides(discount_rate=Decimal("0.08")),
        )
        samples = measure(lambda i=tco_input: compute_tco(i), runs=300)
        ok &= report(f"compute_tco, {years * 12} months + sensitivity", samples, target_p95_ms=5.0)
    return ok


def bench_advice_on_synthetic_catalog() -> bool:
    catalog = synthetic_catalog()
    rng = random.Random(SEED + 7)
    workloads = [workload_from_dict(w) for w in WORKLOADS]
    environments = list(Environment)
    index = SearchIndex(catalog)  # once per snapshot, as the catalog app keeps it
    samples = measure(
        lambda: advise(
            rng.choice(workloads), catalog, environment=rng.choice(environments), index=index
        ),
        runs=100,
        warmup=0,
    )
    return report("sizing + builder, 5,000 parts", samples, target_p95_ms=50.0)


def main() -> bool:
    results = [bench_sizing(), bench_tco(), bench_advice_on_synthetic_catalog()]
    return all(results)
