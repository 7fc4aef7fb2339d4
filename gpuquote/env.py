"""Reading settings from the environment (12-factor), with errors that name the variable."""

from __future__ import annotations

import ipaddress
import os
from typing import overload

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}"
    )


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_networks(name: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """A comma-separated list of addresses or networks ("10.0.0.0/8,192.0.2.7"); a malformed
    entry is refused, naming the setting."""
    networks = []
    for item in env_list(name, []):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name}: {item!r} is not an IP address or network") from exc
    return tuple(networks)


# --- Which settings profile runs ------------------------------------------------------------------

SETTINGS_MODULE_VARIABLE = "DJANGO_SETTINGS_MODULE"
DEVELOPMENT_SETTINGS = "gpuquote.settings.dev"
PRODUCTION_SETTINGS = "gpuquote.settings.prod"
LEGACY_SETTINGS_MODULE = "gpuquote.settings"  # the name from before the profiles: refused


def default_settings_module() -> str:
    """The profile when DJANGO_SETTINGS_MODULE names none: development when DEBUG says so
    (DEBUG=true), otherwise production, which refuses to start half-configured. Nothing else
    picks it: the Makefile's development targets and the pre-commit hook name their profile."""
    return DEVELOPMENT_SETTINGS if env_bool("DEBUG", default=False) else PRODUCTION_SETTINGS


def set_default_settings_module() -> None:
    """For the entry points (manage.py, WSGI, ASGI, Celery): keep a DJANGO_SETTINGS_MODULE that
    is set, otherwise name the profile ``default_settings_module`` picks."""
    if not os.environ.get(SETTINGS_MODULE_VARIABLE):
        os.environ[SETTINGS_MODULE_VARIABLE] = default_settings_module()


# --- The production profile fails closed ----------------------------------------------------------

# The development profile's key, public in the repository: production refuses it.
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-never-used-when-debug-is-off"  # noqa: S105

SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_DISTINCT = 5


def secret_key_problem(value: str | None, *, development_key: str) -> str | None:
    """Why ``value`` may not sign production sessions, or None when it is strong enough
    (Django's own ``check --deploy`` rule: 50 characters, 5 distinct, not a development key)."""
    if not value:
        return "SECRET_KEY is not set"
    if value == development_key:
        return "SECRET_KEY is the committed development key"
    if value.startswith("django-insecure-"):
        return "SECRET_KEY is a development key (django-insecure-...)"
    if len(value) < SECRET_KEY_MIN_LENGTH:
        return f"SECRET_KEY is shorter than {SECRET_KEY_MIN_LENGTH} characters"
    if len(set(value)) < SECRET_KEY_MIN_DISTINCT:
        return f"SECRET_KEY has fewer than {SECRET_KEY_MIN_DISTINCT} distinct characters"
    return None


def require_production_environment(*, embedded: bool, development_key: str) -> None:
    """With DEBUG off, refuse to start unless every production variable is set, naming each one
    missing. ``embedded`` (GPUQUOTE_EMBEDDED=1, a single machine) allows SQLite and in-process
    tasks, so DATABASE_URL and REDIS_URL may then be absent."""
    problems = [
        secret_key_problem(env_str("SECRET_KEY"), development_key=development_key),
        *(
            f"{name} is not set"
            for name in ("DATABASE_URL", "REDIS_URL")
            if not embedded and not (env_str(name) or "").strip()
        ),
        None if env_list("ALLOWED_HOSTS", []) else "ALLOWED_HOSTS is not set",
    ]
    found = [problem for problem in problems if problem]
    if found:
        raise ImproperlyConfigured(
            "Production settings (DEBUG is off) are incomplete: "
            + "; ".join(found)
            + ". Set them, or DEBUG=true for development, or GPUQUOTE_EMBEDDED=1 for a "
            "single-machine deployment (SQLite, tasks in-process)."
        )
