"""Shared fixtures. Tests are hermetic: nothing leaves 127.0.0.1."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from django.db.models import Model

REDIS_DB_FIRST_WORKER = 10  # xdist worker gwN caches in Redis database 10 + N
# tests/ mirrors the code, and engine/build is a package: its tests live in a directory named
# ``build``, which pytest's default ``norecursedirs`` skips (it means build output).
ENGINE_BUILD_TESTS = Path(__file__).resolve().parent / "engine" / "build"


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Collect tests/engine/build although it is named ``build``, unless ``--ignore`` or
    ``--ignore-glob`` names it (pytest's own rules then decide)."""
    if collection_path != ENGINE_BUILD_TESTS:
        return None
    ignored = [Path(p).resolve() for p in config.getoption("ignore") or []]
    globs = config.getoption("ignore_glob") or []
    if collection_path in ignored or any(fnmatch.fnmatch(str(collection_path), g) for g in globs):
        return None
    return False


def pytest_configure(config):
    """Under pytest-xdist (``make test`` runs 2 workers) each worker caches in its own Redis
    database: throttle counters and ``cache.clear()`` must not reach the other worker's tests.
    Test databases are already per worker (pytest-django suffixes their names)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return
    from django.conf import settings

    database = REDIS_DB_FIRST_WORKER + int(worker[2:])
    for cache in settings.CACHES.values():  # "default" and the request limits' "limits"
        if cache["BACKEND"].endswith("RedisCache"):
            cache["LOCATION"] = urlsplit(cache["LOCATION"])._replace(path=f"/{database}").geturl()


@pytest.fixture(autouse=True)
def _language_reset():
    """A request through the test client leaves its language active in the thread (the locale
    middleware activates it and nothing deactivates it): each test starts in the default."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user(
        username="staff", password="not-a-real-password", is_staff=True, is_superuser=True
    )


@pytest.fixture(autouse=True)
def _fresh_catalog_snapshots(request):
    """Snapshots, price ages and assumptions are cached per data version in each process; each
    database test starts from its own catalog (SQLite reuses the ids a rolled-back test took)."""
    if request.node.get_closest_marker("django_db") is None:
        yield  # pure unit tests: no Django needed (they also run with -p no:django)
        return
    from catalog.selectors import versions_forget

    versions_forget()
    yield
    versions_forget()


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Throttle counters live in the cache (Redis in CI): each test starts with none."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    from django.core.cache import cache

    cache.clear()
    yield


@dataclass(frozen=True)
class _SeedTable:
    """The rows ``load_catalog`` wrote to one table, as the database returned them."""

    model: type[Model]
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


# Per process: what ``load_catalog`` writes into an empty catalog, in insertion order (None: not
# captured yet). Tests run one at a time per process (xdist workers are processes).
_SEED: list[_SeedTable] | None = None


@pytest.fixture
def seed_catalog() -> None:
    """The committed seed catalog, as ``manage.py load_catalog`` loads it into an empty catalog.

    The first test of a process that asks for it runs the command for real and keeps the rows it
    wrote; later tests get those rows copied back with a few INSERTs (milliseconds instead of the
    command's 1-1.5 s). Only the rows are copied: ids, values, ``created_at`` and ``updated_at``
    as the command wrote them in this process. A catalog already holding rows (the test made
    parts first) gets the real command, exactly as before. Tests of the loader itself call the
    command directly. Needs the test's database access (``django_db``, ``db`` or
    ``transactional_db``): runs inside the test's transaction, or commits in a transactional
    test, whose flush empties it afterwards as it empties everything else.
    """
    global _SEED
    from django.core.management import call_command

    if _SEED is None:
        before = _rows_of_every_table()
        call_command("load_catalog", stdout=StringIO())
        _SEED = _seed_capture(before, _rows_of_every_table())
    elif _seed_tables_hold_rows(_SEED):
        call_command("load_catalog", stdout=StringIO())
    else:
        _seed_copy(_SEED)


def _models_with_tables() -> list[type[Model]]:
    from django.apps import apps

    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def _rows_of_every_table() -> dict[type[Model], dict[Any, tuple[Any, ...]]]:
    """Every row of every model's table, by primary key (the columns in ``_columns`` order)."""
    from django.db import connection

    result = {}
    with connection.cursor() as cursor:
        for model in _models_with_tables():
            columns = _columns(model)
            cursor.execute(_select_sql(model, columns))
            pk_at = columns.index(model._meta.pk.column)
            result[model] = {row[pk_at]: tuple(row) for row in cursor.fetchall()}
    return result


def _columns(model: type[Model]) -> tuple[str, ...]:
    return tuple(field.column for field in model._meta.local_concrete_fields if field.column)


def _select_sql(model: type[Model], columns: tuple[str, ...]) -> str:
    from django.db import connection

    quote = connection.ops.quote_name  # names from the models' metadata, quoted: no user input
    return f"SELECT {', '.join(map(quote, columns))} FROM {quote(model._meta.db_table)}"  # noqa: S608


def _seed_capture(
    before: dict[type[Model], dict[Any, tuple[Any, ...]]],
    after: dict[type[Model], dict[Any, tuple[Any, ...]]],
) -> list[_SeedTable] | None:
    """The rows the command added, table by table, parents before children; None when the
    catalog was not empty before it ran (then what it wrote is not what an empty catalog gets)."""
    added: dict[type[Model], tuple[tuple[Any, ...], ...]] = {}
    for model, rows in after.items():
        old = before[model]
        if any(rows.get(pk) != row for pk, row in old.items()):
            raise AssertionError(
                f"load_catalog changed or deleted rows of {model._meta.db_table}: seed_catalog "
                "copies only the rows it adds (tests/conftest.py)"
            )
        new = tuple(row for pk, row in sorted(rows.items()) if pk not in old)
        if new and old:
            return None
        if new:
            added[model] = new
    return [
        _SeedTable(model=model, columns=_columns(model), rows=added[model])
        for model in _parents_first(list(added))
    ]


def _parents_first(models: list[type[Model]]) -> list[type[Model]]:
    """The models ordered so that a table comes after every table its foreign keys point to."""
    ordered: list[type[Model]] = []
    seen: set[type[Model]] = set()

    def visit(model: type[Model]) -> None:
        if model in seen:
            return
        seen.add(model)
        for field in model._meta.local_concrete_fields:
            target = field.related_model if field.is_relation else None
            if target in models and target is not model:
                visit(target)
        ordered.append(model)

    for model in models:
        visit(model)
    return ordered


def _seed_tables_hold_rows(seed: list[_SeedTable]) -> bool:
    return any(table.model._base_manager.exists() for table in seed)


def _seed_copy(seed: list[_SeedTable]) -> None:
    """Insert the captured rows as they were, then move the id sequences past them (as
    ``loaddata`` does; SQLite's AUTOINCREMENT follows by itself)."""
    from django.core.management.color import no_style
    from django.db import connection, transaction

    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        for table in seed:
            columns = ", ".join(map(quote, table.columns))
            values = ", ".join(["%s"] * len(table.columns))
            into = quote(table.model._meta.db_table)
            sql = f"INSERT INTO {into} ({columns}) VALUES ({values})"  # noqa: S608 (model names)
            cursor.executemany(sql, table.rows)
        for sql in connection.ops.sequence_reset_sql(no_style(), [t.model for t in seed]):
            cursor.execute(sql)


@pytest.fixture
def eager_celery():
    """For tests that mean in-process tasks even when REDIS_URL points at a real broker (CI):
    the task runs at once, its errors propagate. The real-worker tests are in tests/integration."""
    from gpuquote.celery import app

    saved = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def outbound_allows_loopback(settings):
    """Test receivers and feed servers listen on 127.0.0.1: allow that address, and only it, as
    an operator allows an internal supplier (the SSRF guard refuses it otherwise)."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]


PUBLIC_TEST_ADDRESS = "93.184.215.14"  # what example.com resolved to; nothing connects to it


@pytest.fixture
def example_dns(monkeypatch):
    """Hermetic DNS for URLs registered (and resolved) but not called: ``*.example`` and
    ``*.test`` names (RFC 2606) resolve to a public address, ``localhost`` to 127.0.0.1, other
    names to nothing."""
    import socket

    real = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        try:  # an address literal: no DNS involved
            return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        name = str(host).lower().rstrip(".")
        if name == "localhost":
            address = "127.0.0.1"
        elif name.endswith((".example", ".test")):
            address = PUBLIC_TEST_ADDRESS
        else:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
