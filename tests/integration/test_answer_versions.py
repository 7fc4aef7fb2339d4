"""The calculators' answers are cached per data version in every web process (the
catalog snapshot, the assumptions, the cached answers), and a change made anywhere reaches
every process: two web processes (``answer_probe``) on one database, a third process changing
the data the way each kind of change is made (a feed applied, a quarantined price approved, an
edit saved as the admin saves it, a staff assumption edited), and both processes' next answers
follow. Each process trusts the version it read for DATA_VERSION_MS (1 s, the production
default): the test waits for the answers to change, bounded by ``wait_until``; that the delay
is at most that second is tested with a clock in ``tests/quotes/api/test_answer_cache.py``."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.workers import BASE_DIR, manage, wait_until

ANSWER_TIMEOUT_S = 60  # the first answer of a process builds its catalog snapshot
CHANGE_SEEN_TIMEOUT_S = 15


class Probe:
    """One web process answering the fixed questions of ``answer_probe``."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.answer_probe"],
            cwd=BASE_DIR,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        assert self._line() == {"ready": True}

    def _line(self) -> dict[str, Any]:
        ready, _, _ = select.select([self.stdout], [], [], ANSWER_TIMEOUT_S)
        assert ready, "the probe did not answer"
        line = self.stdout.readline()
        assert line, f"the probe exited with {self.process.poll()}"
        return json.loads(line)

    def ask(self, question: str) -> dict[str, Any]:
        self.stdin.write(question + "\n")
        self.stdin.flush()
        answer = self._line()
        assert answer["status"] == 200, answer
        return answer

    def stop(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=15)


class Site:
    """A database file with the seed catalog and regional assumptions, the environment every
    process of the test shares, and ``change``: Python run by ``manage.py shell`` in a process
    of its own."""

    def __init__(self, tmp_path: Path) -> None:
        self.env = os.environ | {
            "DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'gpuquote.sqlite3'}",
            "REDIS_URL": "",  # each process its own cache: the strictest case
            "ALLOWED_HOSTS": "testserver",
            "API_ANON_RATE": "100000/minute",
            "DATA_VERSION_MS": "1000",
            "ANSWER_CACHE_SECONDS": "3600",
            "PRICE_FEED_FILE_ROOT": str(tmp_path),
        }
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("load_catalog")
        self.manage("load_assumptions")

    def manage(self, *args: str) -> str:
        return manage(self.env, *args)

    def change(self, code: str) -> str:
        return self.manage("shell", "-c", PRELUDE + code)


PRELUDE = """
import datetime as dt, os, pathlib
from decimal import Decimal
from django.utils import timezone
from catalog.models import Gpu, Price, PriceSource, QuarantinedPrice
from quotes.models import RegionAssumption

def current(sku):
    return Price.objects.filter(part__sku=sku, price_kind="purchase", currency="USD").order_by(
        "-observed_on", "-id").first().amount

def feed(sku, amount, name):
    from catalog.services.refresh import price_source_refresh
    pathlib.Path(os.environ["PRICE_FEED_FILE_ROOT"], name + ".csv").write_text(
        "sku,price,currency,observed_on,source\\n"
        f"{sku},{amount:.2f},USD,{timezone.localdate().isoformat()},{name}\\n")
    source = PriceSource.objects.create(
        name=name, kind="supplier", location=name + ".csv", format="csv", currency="USD")
    run = price_source_refresh(source_id=source.pk, trigger="manual")
    print("run", run.status, run.rows_changed, run.rows_quarantined)
"""


@pytest.fixture
def site(tmp_path) -> Site:
    return Site(tmp_path)


@pytest.fixture
def probes(site) -> Iterator[tuple[Probe, Probe]]:
    first, second = Probe(site.env), Probe(site.env)
    yield first, second
    first.stop()
    second.stop()


def _both_answer(probes: tuple[Probe, Probe], question: str) -> dict:
    """Both processes' answer, asked twice each (the second from its cache), all alike."""
    answers = [probe.ask(question) for probe in probes for _ in range(2)]
    assert len({answer["digest"] for answer in answers}) == 1, answers
    assert len({answer["pid"] for answer in answers}) == 2  # two processes indeed
    return answers[0]


def _seen_by_both(probes: tuple[Probe, Probe], question: str, before: dict, what: str) -> None:
    for probe in probes:

        def changed(probe: Probe = probe) -> bool:
            return probe.ask(question)["digest"] != before["digest"]

        wait_until(
            changed,
            timeout=CHANGE_SEEN_TIMEOUT_S,
            interval=0.2,
            what=f"{what} in process {probe.process.pid}",
        )
    _both_answer(probes, question)  # and then they agree again


def test_every_change_reaches_every_web_process(site, probes):
    before = _both_answer(probes, "configurations")
    sku = before["gpu"]

    # A supplier feed brings a new price (+5 %: applied, not held).
    output = site.change(f"feed('{sku}', current('{sku}') * Decimal('1.05'), 'probe-feed')")
    assert "run applied 1 0" in output, output
    _seen_by_both(probes, "configurations", before, "the feed's price")

    # A feed's price moving +60 % is held; staff approve it.
    before = _both_answer(probes, "configurations")
    output = site.change(
        f"feed('{sku}', current('{sku}') * Decimal('1.6'), 'probe-held')\n"
        "from django.contrib.auth import get_user_model\n"
        "from catalog.services import quarantined_price_approve\n"
        "staff = get_user_model().objects.create_user('reviewer', is_staff=True)\n"
        "held = QuarantinedPrice.objects.get(status='pending')\n"
        "print(before := current(held.part.sku))\n"
        "quarantined_price_approve(quarantined_id=held.pk, user=staff)\n"
        "print('approved', current(held.part.sku) != before)\n"
    )
    assert "run applied 0 1" in output, output
    assert "approved True" in output, output
    _seen_by_both(probes, "configurations", before, "the approved price")

    # An edit saved as the admin saves it (ModelAdmin.save_model: Model.save).
    before = _both_answer(probes, "configurations")
    site.change(f"gpu = Gpu.objects.get(sku='{sku}'); gpu.model += ' (rev. B)'; gpu.save()")
    _seen_by_both(probes, "configurations", before, "the admin's edit")

    # Staff double the electricity price in France.
    before = _both_answer(probes, "tco")
    site.change(
        "row = RegionAssumption.objects.get(region='FR', name='electricity_price_per_kwh')\n"
        "row.value *= 2; row.save()\n"
    )
    _seen_by_both(probes, "tco", before, "the assumption's edit")
