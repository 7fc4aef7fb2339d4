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
    and k not in ("GPUQUOTE_EMBEDDED", "DJANGO_SETTINGS_MODULE")
}
DEVELOPMENT = {"DEBUG": "true"}
STRONG_SECRET_KEY = "x" * 20 + "-a-long-production-secret-for-tests-only-0123456789"
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": STRONG_SECRET_KEY,
    "ALLOWED_HOSTS": "quote.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/gpuquote",
    "REDIS_URL": "redis://127.0.0.1:6379/3",
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


def test_development_profile_uses_sqlite_in_var_and_eager_celery(tmp_path):
    seen = _settings(DEVELOPMENT, tmp_path)
    assert seen["engine"] == "django.db.backends.sqlite3"
    assert seen["name"] == str(tmp_path / "gpuquote.sqlite3")
    assert seen["cache"].endswith("LocMemCache")
    assert seen["broker"] == "memory://"
    assert seen["eager"] is True
    assert seen["debug"] is True


def test_database_and_redis_urls_switch_to_postgres_and_a_real_broker(tmp_path):
    seen = _settings(
        {
            **DEVELOPMENT,
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


def _refusal(env, tmp_path) -> str:
    result = _run(["-c", PROBE], {"GPUQUOTE_VAR_DIR": str(tmp_path), **env})
    assert result.returncode != 0
    assert "django.core.exceptions.ImproperlyConfigured" in result.stderr
    assert not (tmp_path / "gpuquote.sqlite3").exists()
    return result.stderr.strip().splitlines()[-1]


def test_debug_unset_means_production_and_refuses_to_start_with_no_variables(tmp_path):
    message = _refusal({}, tmp_path)

    assert message == (
        "django.core.exceptions.ImproperlyConfigured: Production settings (DEBUG is off) "
        "are incomplete: SECRET_KEY is not set; DATABASE_URL is not set; REDIS_URL is not set; "
        "ALLOWED_HOSTS is not set. Set them, or DEBUG=true for development, or "
        "GPUQUOTE_EMBEDDED=1 for a single-machine deployment (SQLite, tasks in-process)."
    )


@pytest.mark.parametrize("missing", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS"])
def test_production_refuses_to_start_without_each_variable(tmp_path, missing):
    env = {name: value for name, value in PRODUCTION.items() if name != missing}

    message = _refusal(env, tmp_path)

    assert f"are incomplete: {missing} is not set. Set them" in message


@pytest.mark.parametrize(
    ("secret_key", "problem"),
    [
        ("short-but-random-Q7x", "is shorter than 50 characters"),
        ("ab" * 40, "has fewer than 5 distinct characters"),
        ("django-insecure-" + STRONG_SECRET_KEY, "is a development key (django-insecure-...)"),
        ("dev-only-insecure-key-never-used-when-debug-is-off", "is the committed development key"),
    ],
)
def test_production_refuses_a_weak_secret_key(tmp_path, secret_key, problem):
    message = _refusal({**PRODUCTION, "SECRET_KEY": secret_key}, tmp_path)

    assert f"are incomplete: SECRET_KEY {problem}. Set them" in message
    assert secret_key not in message


def test_production_with_debug_explicitly_false_refuses_too(tmp_path):
    message = _refusal({"DEBUG": "false", "ALLOWED_HOSTS": "quote.example.com"}, tmp_path)

    assert "SECRET_KEY is not set; DATABASE_URL is not set; REDIS_URL is not set. Set" in message


def test_embedded_deployment_runs_on_sqlite_and_eager_celery_without_debug(tmp_path):
    seen = _settings(
        {
            "GPUQUOTE_EMBEDDED": "1",
            "SECRET_KEY": STRONG_SECRET_KEY,
            "ALLOWED_HOSTS": "quote.example.com",
        },
        tmp_path,
    )

    assert seen["debug"] is False
    assert seen["engine"] == "django.db.backends.sqlite3"
    assert seen["name"] == str(tmp_path / "gpuquote.sqlite3")
    assert seen["eager"] is True
    assert seen["hsts"] >= 31_536_000


def test_embedded_deployment_still_needs_a_secret_key_and_allowed_hosts(tmp_path):
    message = _refusal({"GPUQUOTE_EMBEDDED": "1", "SECRET_KEY": "too-short"}, tmp_path)

    expected = "SECRET_KEY is shorter than 50 characters; ALLOWED_HOSTS is not set."
    assert f"are incomplete: {expected} Set them" in message


def test_pytest_runs_on_the_development_profile_whatever_the_shell_says():
    from django.conf import settings

    assert settings.SETTINGS_MODULE == "gpuquote.settings_test"
    assert os.environ["DEBUG"] == "true"


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
