"""Settings profiles, checked in fresh interpreters so each sees only its own environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "name": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "broker": settings.CELERY_BROKER_URL,
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "debug": settings.DEBUG,
    "hsts": getattr(settings, "SECURE_HSTS_SECONDS", 0),
    "secure_cookies": getattr(settings, "SESSION_COOKIE_SECURE", False),
}))
"""
BASE_ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")
}
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x" * 20 + "-a-long-production-secret-for-tests-only-0123456789",
    "ALLOWED_HOSTS": "quote.example.com",
}


def _run(args, env):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "gpuquote.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _settings(env, tmp_path):
    result = _run(["-c", PROBE], {"GPUQUOTE_VAR_DIR": str(tmp_path), **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_embedded_defaults_use_sqlite_in_var_and_eager_celery(tmp_path):
    seen = _settings({}, tmp_path)
    assert seen["engine"] == "django.db.backends.sqlite3"
    assert seen["name"] == str(tmp_path / "gpuquote.sqlite3")
    assert seen["cache"].endswith("LocMemCache")
    assert seen["broker"] == "memory://"
    assert seen["eager"] is True
    assert seen["debug"] is True


def test_database_and_redis_urls_switch_to_postgres_and_a_real_broker(tmp_path):
    seen = _settings(
        {
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/gpuquote",
            "REDIS_URL": "redis://127.0.0.1:6379/3",
        },
        tmp_path,
    )
    assert seen["engine"] == "django.db.backends.postgresql"
    assert seen["name"] == "gpuquote"
    assert seen["cache"].endswith("RedisCache")
    assert seen["broker"] == "redis://127.0.0.1:6379/3"
    assert seen["eager"] is False


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    result = _run(["-c", PROBE], {"DEBUG": "false", "GPUQUOTE_VAR_DIR": str(tmp_path)})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_a_malformed_boolean_names_the_variable(tmp_path):
    result = _run(["-c", PROBE], {"DEBUG": "perhaps", "GPUQUOTE_VAR_DIR": str(tmp_path)})
    assert result.returncode != 0
    assert "DEBUG must be one of" in result.stderr


def test_production_profile_is_hardened(tmp_path):
    seen = _settings(PRODUCTION, tmp_path)
    assert seen["debug"] is False
    assert seen["hsts"] >= 31_536_000
    assert seen["secure_cookies"] is True


def test_check_deploy_has_zero_warnings(tmp_path):
    result = _run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        {**PRODUCTION, "GPUQUOTE_VAR_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.django_db
def test_healthz_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
