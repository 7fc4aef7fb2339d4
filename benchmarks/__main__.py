"""Run every benchmarks/bench_*.py module's ``main()`` (or the ones named on the command line)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = argv or sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_")
    )
    failed = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"== {name} ==", flush=True)
        started = time.perf_counter()
        ok = module.main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
        if ok is False:
            failed.append(name)
    if failed:
        print("Targets missed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
