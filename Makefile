# GPUQuote's front door: `make run` serves the app, `make test` runs the suite (slow tests in CI).
# Both create .venv, install the hashed lock file requirements-dev.txt (runtime + tools; `make lock`
# refreshes it from requirements*.in) and prepare the app;
# both are idempotent.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
MANAGE := $(PY) manage.py

.PHONY: run test setup prepare lint migrations-check screenshots format lock bench worker beat web messages clean

$(STAMP): requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11+ is required (set PYTHON=python3.x)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# --no-deps: the lock already pins every package; resolving extras (fonttools[woff]) with
	# the venv's bundled pip in hash mode fails intermittently.
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements-dev.txt
	touch $(STAMP)

setup: $(STAMP)
	@bash scripts/system-deps.sh

# Settings profiles (README, "Settings"): with DJANGO_SETTINGS_MODULE and DEBUG unset, manage.py,
# gunicorn and Celery run production, which refuses to start without SECRET_KEY, ALLOWED_HOSTS,
# DATABASE_URL, REDIS_URL and the seller's legal details (SELLER_NAME, SELLER_ADDRESS,
# SELLER_SIREN, SELLER_VAT_NUMBER, SELLER_IBAN: they are printed on every quote). The
# development targets name the development profile themselves (a DJANGO_SETTINGS_MODULE in the
# environment wins), so they need no variables; pytest runs on its own profile (gpuquote.settings.test, pyproject.toml). `make web` runs production: it needs them.
DEV_TARGETS := run prepare lint migrations-check bench worker beat messages
$(DEV_TARGETS): export DJANGO_SETTINGS_MODULE ?= gpuquote.settings.dev
web: export DJANGO_SETTINGS_MODULE ?= gpuquote.settings.prod

# Everything the app needs before it serves: translations, static files, schema, catalog.
define PREPARE_APP
	$(MANAGE) compilemessages --ignore=.venv -v 0
	$(MANAGE) collectstatic --noinput -v 0
	$(MANAGE) migrate --noinput -v 0
	$(MANAGE) load_catalog
	$(MANAGE) load_assumptions
endef

prepare: setup
	$(PREPARE_APP)

run: prepare
	@echo "GPUQuote is serving on http://$(HOST):$(PORT)/ (admin: http://$(HOST):$(PORT)/admin/, API docs: http://$(HOST):$(PORT)/api/v1/docs/)"
	@# Embedded mode's drain process (webhook deliveries outside the requests, docs/operations.md)
	@# runs beside the server and stops with it (and by itself if this shell dies).
	$(MANAGE) drain_outbox & drain=$$!; trap 'kill $$drain 2>/dev/null' EXIT INT TERM; \
		$(MANAGE) runserver $(HOST):$(PORT)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(MANAGE) makemigrations --check --dry-run -v 0
	$(VENV)/bin/mypy
	$(PY) scripts/check_doc_links.py

# Every model change has its migration (also the pre-commit hook, .pre-commit-config.yaml).
migrations-check:
	$(MANAGE) makemigrations --check --dry-run -v 0

# Lock files: requirements.in (runtime, what production installs), requirements-dev.in (tests,
# lint, types) and requirements-bench.in (Locust, for `make bench` only) are compiled into
# requirements.txt, requirements-dev.txt and requirements-bench.txt, every package pinned with its
# hashes. Edit a *.in file, then `make lock`; existing pins are kept unless asked:
# `make lock LOCK_FLAGS=--upgrade` (everything) or `LOCK_FLAGS="--upgrade-package django"`.
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes \
	--allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links $(LOCK_FLAGS)

lock: setup
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	$(PIP_COMPILE) --output-file requirements-dev.txt requirements-dev.in
	$(PIP_COMPILE) --output-file requirements-bench.txt requirements-bench.in

# The suite runs on TEST_WORKERS processes (pytest-xdist), one test database each, and measures
# branch coverage (pyproject.toml, [tool.coverage.*]: it fails under `fail_under`). Tests marked
# `slow` (a brute force) run in CI (CI=1 or CI=true, as .ci/run sets) and are skipped locally.
TEST_WORKERS ?= 2
ifeq ($(filter 1 true yes,$(CI)),)
TEST_SELECT := -m "not slow"
endif

test: prepare lint
	$(VENV)/bin/pytest -n $(TEST_WORKERS) $(TEST_SELECT) --cov

# The README's screenshots (docs/screenshots/): the browser tests write them only when
# GPUQUOTE_SCREENSHOTS=1, so an ordinary `make test` leaves them alone.
screenshots: prepare
	GPUQUOTE_SCREENSHOTS=1 GPUQUOTE_REQUIRE_BROWSER=1 $(VENV)/bin/pytest -m browser tests/browser

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

messages: setup
	$(PY) -c 'import django; django.setup(); from django.core.management.commands import makemessages as m; m.Command.xgettext_options += ["--keyword=ngettext_noop:1,2"]; m.Command().run_from_argv(["manage.py", "makemessages", "-l", "fr", "--ignore=.venv", "--ignore=var", "--ignore=test-artifacts", "--ignore=tests"])'

# The benchmarks need Locust (bench_load), which only this target installs: requirements-bench.txt
# is the development lock plus Locust, hashed like the others.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP) requirements-bench.txt
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements-bench.txt
	touch $(BENCH_STAMP)

bench: prepare $(BENCH_STAMP)
	$(PY) -m benchmarks

# Celery: `make worker` and `make beat` need REDIS_URL (without it tasks run in-process).
worker: prepare
	$(VENV)/bin/celery -A gpuquote worker -Q celery,webhooks --loglevel=info --concurrency=2

beat: prepare
	$(VENV)/bin/celery -A gpuquote beat --loglevel=info

# Production-style web process (what the Procfile runs), prepared and served on the production
# profile: set SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL and REDIS_URL (or GPUQUOTE_EMBEDDED=1)
# and the SELLER_* details. gunicorn's hooks (gpuquote.ops.gunicorn_conf) start the embedded
# mode's drain process beside the workers.
web: setup
	$(PREPARE_APP)
	$(VENV)/bin/gunicorn gpuquote.wsgi -c python:gpuquote.ops.gunicorn_conf --bind $(HOST):$(PORT) --workers 3

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache .hypothesis .coverage htmlcov
