"""Settings profiles, checked in fresh interpreters so each sees only its own environment.

Without DJANGO_SETTINGS_MODULE, the probes choose the profile as every entry point does
(gpuquote.env.set_default_settings_module): production, or development with DEBUG=true.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import json, django
from gpuquote.env import set_default_settings_module
set_default_settings_module()
django.setup()
from django.conf import settings
print(json.dumps({
    "module": settings.SETTINGS_MODULE,
    "secret_key": settings.SECRET_KEY,
    "allowed_hosts": settings.ALLOWED_HOSTS,
    "staticfiles": settings.STORAGES["staticfiles"]["BACKEND"],
    "renderers": settings.REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"],
    "apps": settings.INSTALLED_APPS,
    "ssl_redirect": getattr(settings, "SECURE_SSL_REDIRECT", False),
    "engine": settings.DATABASES["default"]["ENGINE"],
    "name": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "broker": settings.CELERY_BROKER_URL,
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "debug": settings.DEBUG,
    "hsts": getattr(settings, "SECURE_HSTS_SECONDS", 0),
    "secure_cookies": getattr(settings, "SESSION_COOKIE_SECURE", False),
    "seller": {name: getattr(settings, name) for name in (
        "SELLER_NAME", "SELLER_SIREN", "SELLER_SIRET", "SELLER_VAT_NUMBER", "SELLER_IBAN",
        "SELLER_BIC", "SELLER_IS_SAMPLE")},
}))
"""
BASE_ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")
    and k not in ("GPUQUOTE_EMBEDDED", "DJANGO_SETTINGS_MODULE")
    and not k.startswith("SELLER_")
}
DEVELOPMENT = {"DEBUG": "true"}
STRONG_SECRET_KEY = "x" * 20 + "-a-long-production-secret-for-tests-only-0123456789"
# A made-up seller whose numbers pass python-stdnum's checks (check digits computed for them).
SELLER = {
    "SELLER_NAME": "Hébergement GPU SAS",
    "SELLER_ADDRESS": "10 quai de Seine, 69001 Lyon, France",
    "SELLER_SIREN": "123 123 127",
    "SELLER_VAT_NUMBER": "FR 86 123123127",
    "SELLER_IBAN": "FR76 1234 5000 4200 0123 4567 854",
}
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": STRONG_SECRET_KEY,
    "ALLOWED_HOSTS": "quote.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/gpuquote",
    "REDIS_URL": "redis://127.0.0.1:6379/3",
    **SELLER,
}


def _run(args, env):
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**BASE_ENV, **env},
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
    assert seen["cache"] == "gpuquote.core.cache.FailOpenRedisCache"  # never a 500 on an outage
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
            **SELLER,
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

    assert settings.SETTINGS_MODULE == "gpuquote.settings.test"
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


# --- One module per profile (gpuquote/settings/{base,dev,prod,test}.py) ---------------------------

DEV_KEY = "dev-only-insecure-key-never-used-when-debug-is-off"
JSON_ONLY = ["rest_framework.renderers.JSONRenderer"]
WITH_BROWSABLE_API = [*JSON_ONLY, "rest_framework.renderers.BrowsableAPIRenderer"]
PLAIN_STATIC = "django.contrib.staticfiles.storage.StaticFilesStorage"
MANIFEST_STATIC = "whitenoise.storage.CompressedManifestStaticFilesStorage"


@pytest.mark.parametrize("profile", ["gpuquote.settings.dev", "gpuquote.settings.test"])
def test_the_development_and_test_profiles_need_no_variable(tmp_path, profile):
    seen = _settings({"DJANGO_SETTINGS_MODULE": profile}, tmp_path)

    assert seen["module"] == profile
    assert seen["debug"] is True
    assert seen["secret_key"] == DEV_KEY
    assert seen["allowed_hosts"] == ["127.0.0.1", "localhost"]
    assert seen["staticfiles"] == PLAIN_STATIC
    assert seen["renderers"] == WITH_BROWSABLE_API
    assert seen["engine"] == "django.db.backends.sqlite3"
    assert seen["name"] == str(tmp_path / "gpuquote.sqlite3")
    assert seen["eager"] is True
    assert (seen["hsts"], seen["secure_cookies"], seen["ssl_redirect"]) == (0, False, False)


def test_the_production_profile_module_is_hardened(tmp_path):
    seen = _settings({**PRODUCTION, "DJANGO_SETTINGS_MODULE": "gpuquote.settings.prod"}, tmp_path)

    assert seen["module"] == "gpuquote.settings.prod"
    assert seen["debug"] is False
    assert seen["secret_key"] == STRONG_SECRET_KEY
    assert seen["allowed_hosts"] == ["quote.example.com"]
    assert seen["staticfiles"] == MANIFEST_STATIC
    assert seen["renderers"] == JSON_ONLY
    assert seen["engine"] == "django.db.backends.postgresql"
    assert seen["eager"] is False
    assert (seen["hsts"], seen["secure_cookies"], seen["ssl_redirect"]) == (31_536_000, True, True)


def test_a_named_production_profile_ignores_debug_and_still_refuses(tmp_path):
    message = _refusal(
        {"DJANGO_SETTINGS_MODULE": "gpuquote.settings.prod", "DEBUG": "true"}, tmp_path
    )

    assert "are incomplete: SECRET_KEY is not set; DATABASE_URL is not set;" in message


@pytest.mark.parametrize(
    ("debug", "profile"),
    [({"DEBUG": "true"}, "gpuquote.settings.dev"), ({}, "gpuquote.settings.prod")],
)
def test_without_a_settings_module_debug_picks_the_profile(tmp_path, debug, profile):
    env = debug or PRODUCTION
    seen = _settings(env, tmp_path)

    assert seen["module"] == profile
    assert seen["debug"] is bool(debug)


@pytest.mark.parametrize("debug", [{}, {"DEBUG": "true"}])
def test_the_name_from_before_the_profiles_is_refused_naming_the_profiles(tmp_path, debug):
    old_name = {"DJANGO_SETTINGS_MODULE": "gpuquote.settings"}

    message = _refusal({**old_name, **debug}, tmp_path)

    assert "DJANGO_SETTINGS_MODULE=gpuquote.settings no longer names a settings profile" in message
    assert "gpuquote.settings.dev (development), gpuquote.settings.prod (production)" in message


@pytest.mark.parametrize("entry_point", ["gpuquote.wsgi", "gpuquote.asgi", "gpuquote.celery"])
def test_every_entry_point_defaults_to_production_and_to_development_with_debug(
    tmp_path, entry_point
):
    probe = (
        f"import {entry_point}; from django.conf import settings; print(settings.SETTINGS_MODULE)"
    )
    var_dir = {"GPUQUOTE_VAR_DIR": str(tmp_path)}

    development = _run(["-c", probe], {**var_dir, "DEBUG": "true"})
    production = _run(["-c", probe], var_dir)

    assert development.returncode == 0, development.stderr
    assert development.stdout.strip().splitlines()[-1] == "gpuquote.settings.dev"
    assert production.returncode != 0
    assert "Production settings (DEBUG is off) are incomplete" in production.stderr


def test_manage_py_has_no_per_command_profile_and_the_makefile_names_development(tmp_path):
    var_dir = {"GPUQUOTE_VAR_DIR": str(tmp_path)}
    # With nothing set, every command is production, makemigrations too, and refuses to start.
    for debug in ({}, {"DEBUG": ""}, {"DEBUG": "false"}):  # unset, set to nothing, or false
        check = _run(["manage.py", "makemigrations", "--check", "--dry-run"], var_dir | debug)
        assert check.returncode != 0
        assert "Production settings (DEBUG is off) are incomplete" in check.stderr
    # The Makefile's target (what `make lint` and the pre-commit hook run) names development.
    make = subprocess.run(
        ["make", "--no-print-directory", "migrations-check", f"PY={sys.executable}"],
        cwd=ROOT,
        env={**BASE_ENV, **var_dir},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert make.returncode == 0, make.stderr
    assert "manage.py makemigrations --check --dry-run" in make.stdout


def test_the_procfile_runs_every_process_on_the_production_profile():
    lines = (ROOT / "Procfile").read_text().strip().splitlines()

    assert [line.split(":")[0] for line in lines] == ["web", "worker", "webhooks", "beat"]
    for line in lines:
        assert "DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-gpuquote.settings.prod} " in line


def test_nothing_unused_is_installed(tmp_path):
    seen = _settings(DEVELOPMENT, tmp_path)

    assert "django.contrib.humanize" not in seen["apps"]


# --- The seller's legal details, printed on every quote ---------------------------------------


@pytest.mark.parametrize(
    "missing", ["SELLER_NAME", "SELLER_ADDRESS", "SELLER_SIREN", "SELLER_VAT_NUMBER", "SELLER_IBAN"]
)
def test_production_refuses_to_start_without_each_seller_detail(tmp_path, missing):
    env = {name: value for name, value in PRODUCTION.items() if name != missing}

    message = _refusal(env, tmp_path)

    assert message == (
        "django.core.exceptions.ImproperlyConfigured: Production settings (DEBUG is off) lack "
        f"the seller's legal details printed on quotes: {missing} is not set. Set them "
        "(README, Settings)."
    )


def test_production_names_every_missing_seller_detail_at_once(tmp_path):
    env = {name: value for name, value in PRODUCTION.items() if name not in SELLER}

    message = _refusal(env, tmp_path)

    assert message.endswith(
        "on quotes: SELLER_NAME is not set; SELLER_ADDRESS is not set; SELLER_SIREN is not set; "
        "SELLER_VAT_NUMBER is not set; SELLER_IBAN is not set. Set them (README, Settings)."
    )


def test_production_keeps_the_seller_numbers_compact(tmp_path):
    seen = _settings(PRODUCTION, tmp_path)

    assert seen["seller"] == {
        "SELLER_NAME": "Hébergement GPU SAS",
        "SELLER_SIREN": "123123127",
        "SELLER_SIRET": "",
        "SELLER_VAT_NUMBER": "FR86123123127",
        "SELLER_IBAN": "FR7612345000420001234567854",
        "SELLER_BIC": "",
        "SELLER_IS_SAMPLE": False,
    }


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("SELLER_SIREN", "123 123 128", "SELLER_SIREN is not a valid SIREN (9 digits)"),
        ("SELLER_IBAN", "FR76 1234 5000 4200 0123 4567 855", "SELLER_IBAN is not a valid IBAN"),
        ("SELLER_VAT_NUMBER", "FR 87 123123127", "SELLER_VAT_NUMBER is not a valid French VAT"),
        ("SELLER_SIRET", "12312312700075", "SELLER_SIRET is not a valid SIRET (14 digits)"),
        ("SELLER_BIC", "BNPAFR", "SELLER_BIC is not a valid BIC (8 or 11 characters)"),
    ],
)
def test_a_wrong_seller_number_stops_the_start_in_every_profile(tmp_path, name, value, problem):
    for profile in (PRODUCTION, {**DEVELOPMENT, **SELLER}):
        result = _run(["-c", PROBE], {"GPUQUOTE_VAR_DIR": str(tmp_path), **profile, name: value})

        assert result.returncode != 0
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith(f"django.core.exceptions.ImproperlyConfigured: {problem}"), last


def test_a_vat_number_of_another_company_is_refused(tmp_path):
    # FR 11 999999998: a valid French VAT number, of another SIREN than the seller's.
    env = {**PRODUCTION, "SELLER_VAT_NUMBER": "FR11999999998"}

    message = _refusal(env, tmp_path)

    assert message.endswith("SELLER_VAT_NUMBER is not the VAT number of SELLER_SIREN")


def test_development_prints_a_demo_seller_marked_as_sample_data(tmp_path):
    seen = _settings(DEVELOPMENT, tmp_path)

    assert seen["seller"]["SELLER_IS_SAMPLE"] is True
    assert seen["seller"]["SELLER_NAME"] == "GPUQuote Demo SAS"
    assert seen["seller"]["SELLER_SIREN"] == "999999998"


# --- Logs and error reports (tests/gpuquote/settings/test_logging.py checks the pieces) -----------

LOGS_PROBE = """
import json, django, sentry_sdk
django.setup()
from django.conf import settings
print(json.dumps({
    "format": settings.LOG_FORMAT,
    "formatter": settings.LOGGING["handlers"]["console"]["formatter"],
    "sentry": settings.SENTRY_ENABLED,
    "active": sentry_sdk.get_client().is_active(),
}))
"""


def _logs(env, tmp_path):
    result = _run(
        ["-c", LOGS_PROBE],
        {"GPUQUOTE_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "gpuquote.settings.prod"}
        | env,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_logs_json_and_reports_to_sentry_only_with_a_dsn(tmp_path):
    assert _logs(PRODUCTION, tmp_path) == {
        "format": "json",
        "formatter": "json",
        "sentry": False,
        "active": False,
    }
    assert _logs({**PRODUCTION, "LOG_FORMAT": "plain", "SENTRY_DSN": ""}, tmp_path) == {
        "format": "plain",
        "formatter": "plain",
        "sentry": False,
        "active": False,
    }


def test_development_logs_plain_text(tmp_path):
    result = _run(
        [
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.LOGGING['handlers']['console']['formatter'])",
        ],
        {"GPUQUOTE_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "gpuquote.settings.dev"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "plain"


@pytest.mark.parametrize(
    ("name", "value"), [("LOG_FORMAT", "xml"), ("SENTRY_TRACES_SAMPLE_RATE", "2")]
)
def test_production_refuses_a_bad_log_or_sentry_value_naming_it(tmp_path, name, value):
    message = _refusal({**PRODUCTION, name: value}, tmp_path)

    assert message.startswith(f"django.core.exceptions.ImproperlyConfigured: {name} must be")


def test_the_pre_commit_hooks_run_the_locked_tools_and_the_makefile_check():
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}

    assert sorted(hooks) == ["makemigrations-check", "ruff", "ruff-format"]
    assert hooks["ruff"]["entry"].startswith(".venv/bin/ruff check")
    assert hooks["ruff-format"]["entry"].startswith(".venv/bin/ruff format")
    # The profile comes from the Makefile, not from a special case in manage.py.
    migrations = hooks["makemigrations-check"]
    assert migrations["entry"] == "make --no-print-directory --silent migrations-check"
    assert migrations["pass_filenames"] is False


@pytest.mark.parametrize(
    "env",
    [{"QUOTE_VALIDITY_DAYS": "120"}, {"QUOTE_VALIDITY_DAYS": "30", "QUOTE_VALIDITY_MAX_DAYS": "7"}],
)
def test_default_quote_validity_beyond_the_policy_is_refused(tmp_path, env):
    """Partners' quotes get the default validity, with no manager to approve a longer one."""
    message = _refusal({**PRODUCTION, **env}, tmp_path)

    assert message.startswith(
        "django.core.exceptions.ImproperlyConfigured: QUOTE_VALIDITY_DAYS must be 1 to "
        "QUOTE_VALIDITY_MAX_DAYS"
    )
