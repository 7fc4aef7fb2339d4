"""Small timing helpers shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure(call: Callable[[], object], *, runs: int, warmup: int = 3) -> list[float]:
    """Wall time of each call in milliseconds."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def report(label: str, samples_ms: list[float], *, target_p95_ms: float | None = None) -> bool:
    p50, p95 = statistics.median(samples_ms), percentile(samples_ms, 95)
    verdict = ""
    ok = True
    if target_p95_ms is not None:
        ok = p95 <= target_p95_ms
        verdict = f"  target p95 <= {target_p95_ms} ms: {'met' if ok else 'MISSED'}"
    print(f"   {label}: n={len(samples_ms)} p50={p50:.3f} ms p95={p95:.3f} ms{verdict}")
    return ok


def django_setup() -> None:
    import django

    from gpuquote.env import set_default_settings_module

    set_default_settings_module()  # as manage.py: dev under `make bench` (or DEBUG=true)
    django.setup()
