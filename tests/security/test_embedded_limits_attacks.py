"""Embedded production (GPUQUOTE_EMBEDDED=1, no Redis) runs several gunicorn processes: the
request limits must count one budget for all of them, not one per process (a visitor whose
requests are spread over two workers would otherwise get twice the rate).

Each test runs the real production profile in fresh interpreters; two of them count in the same
limits' cache at the same moment (both wait for the same signal before their first request).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.gpuquote.settings.test_settings import BASE_ENV, SELLER, STRONG_SECRET_KEY

ROOT = Path(__file__).resolve().parents[2]
EMBEDDED = {
    "GPUQUOTE_EMBEDDED": "1",
    "SECRET_KEY": STRONG_SECRET_KEY,
    "ALLOWED_HOSTS": "quote.example.com",
    **SELLER,
}
SETUP = """
import json, sys, django
from gpuquote.env import set_default_settings_module
set_default_settings_module()
django.setup()
from django.conf import settings
"""
PROBE = (
    SETUP
    + """
from django.core.cache import caches
from django.core.cache.backends.filebased import FileBasedCache
print(json.dumps({
    "module": settings.SETTINGS_MODULE,
    "limits": settings.CACHES["limits"],
    "file_based": isinstance(caches["limits"], FileBasedCache),
    "ratelimit_cache": settings.RATELIMIT_USE_CACHE,
}))
"""
)
# One gunicorn worker's share of an anonymous client's requests: as many API calls as the anon
# rate allows in a minute (API_ANON_RATE, 120/minute) and wizard posts as the rate given here.
WORKER = (
    SETUP
    + """
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django_ratelimit.core import get_usage
from rest_framework.request import Request

from gpuquote.core.ratelimit import client_key
from quotes.api.auth import AnonymousThrottle

api_calls, wizard_posts, wizard_rate = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
factory = RequestFactory()
print("ready", flush=True)
sys.stdin.readline()  # the go signal: both workers start together
api_allowed = 0
for _ in range(api_calls):
    request = Request(factory.post("/api/v1/sizing/", REMOTE_ADDR="203.0.113.9"))
    request.user = AnonymousUser()
    api_allowed += AnonymousThrottle().allow_request(request, None)
wizard_allowed = 0
for _ in range(wizard_posts):
    post = factory.post("/wizard/project/", REMOTE_ADDR="203.0.113.9")
    usage = get_usage(post, group="wizard", key=client_key, rate=wizard_rate, method=["POST"],
                      increment=True)
    wizard_allowed += not usage["should_limit"]
print(json.dumps({"api": api_allowed, "wizard": wizard_allowed}), flush=True)
"""
)
API_ANON_PER_MINUTE = 120  # API_ANON_RATE's default
WIZARD_PER_DAY = 60  # a day: the run never straddles django-ratelimit's fixed window


def _env(tmp_path: Path) -> dict[str, str]:
    rate = {"API_ANON_RATE": f"{API_ANON_PER_MINUTE}/minute"}
    return {**BASE_ENV, **EMBEDDED, **rate, "GPUQUOTE_VAR_DIR": str(tmp_path)}


def test_embedded_production_keeps_the_limits_in_a_file_cache_under_var(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)

    assert seen["module"] == "gpuquote.settings.prod"
    assert seen["limits"]["BACKEND"] == "gpuquote.core.cache.LockedFileCache"
    assert seen["limits"]["LOCATION"] == str(tmp_path / "cache" / "limits")
    assert seen["file_based"] is True  # one directory, seen by every process of the host
    assert seen["ratelimit_cache"] == "limits"


def test_two_embedded_workers_share_one_budget_per_client_address(tmp_path):
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(API_ANON_PER_MINUTE),
                str(WIZARD_PER_DAY),
                f"{WIZARD_PER_DAY}/d",
            ],
            cwd=ROOT,
            env=_env(tmp_path),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for worker in workers:
        assert worker.stdout is not None
        assert worker.stdout.readline() == "ready\n", worker.communicate()[1]
    for worker in workers:  # both go before either is waited for
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    answers = [worker.communicate(timeout=120) for worker in workers]

    assert [w.returncode for w in workers] == [0, 0], [err for _out, err in answers]
    allowed = [json.loads(out) for out, _err in answers]
    # 240 API calls and 120 wizard posts from one address over two processes: exactly one
    # budget of each is allowed (one per process, 240 and 120, before the limits were shared).
    assert sum(a["api"] for a in allowed) == API_ANON_PER_MINUTE
    assert sum(a["wizard"] for a in allowed) == WIZARD_PER_DAY
