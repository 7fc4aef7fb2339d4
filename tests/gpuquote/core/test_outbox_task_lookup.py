"""An after-commit job names its task; a web process that never imported the task's module
(nothing on its request path does) still finds it. Before, "refresh now" in the admin looked
``catalog.refresh_price_source`` up in vain, logged a failure and marked the job done."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import sys
import django
django.setup()
assert "catalog.tasks" not in sys.modules, "the probe must start without the task module"
from gpuquote.core.outbox import _task_get
for name in ("catalog.refresh_price_source", "quotes.deliver_webhook", "gpuquote.heartbeat"):
    assert _task_get(name).name == name, name
print("found")
"""


def test_a_fresh_process_finds_every_task_by_name():
    env = {"DJANGO_SETTINGS_MODULE": "gpuquote.settings.test", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("found")
