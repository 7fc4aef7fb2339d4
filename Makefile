# GPUQuote's front door: `make run` serves the app, `make test` runs the whole suite.
# Both create .venv, install requirements-dev.txt (runtime + tools) and prepare the app;
# both are idempotent.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
MANAGE := $(PY) manage.py

.PHONY: run test setup prepare lint format bench worker beat web messages clean

$(STAMP): requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11+ is required (set PYTHON=python3.x)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

setup: $(STAMP)
	@bash scripts/system-deps.sh

# Settings profiles: DEBUG unset means production, which refuses to start without SECRET_KEY,
# ALLOWED_HOSTS, DATABASE_URL and REDIS_URL (README, "Settings"). The development targets set
# DEBUG=true themselves (a DEBUG in the environment wins), so they need no variables; pytest gets
# its own profile (gpuquote.settings_test). `make web` is production-style: it needs them.
DEV_TARGETS := run prepare lint test bench worker beat messages
$(DEV_TARGETS): export DEBUG ?= true

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
	$(MANAGE) runserver $(HOST):$(PORT)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(MANAGE) makemigrations --check --dry-run -v 0

# The suite runs on TEST_WORKERS processes (pytest-xdist), one test database each.
TEST_WORKERS ?= 2

test: prepare lint
	$(VENV)/bin/pytest -n $(TEST_WORKERS)

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

messages: setup
	$(MANAGE) makemessages -l fr -l en --ignore=.venv --ignore=var

bench: prepare
	$(PY) -m benchmarks

# Celery: `make worker` and `make beat` need REDIS_URL (without it tasks run in-process).
worker: prepare
	$(VENV)/bin/celery -A gpuquote worker --loglevel=info --concurrency=2

beat: prepare
	$(VENV)/bin/celery -A gpuquote beat --loglevel=info

# Production-style web process (what the Procfile runs), prepared and served on the production
# profile: set SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL and REDIS_URL (or GPUQUOTE_EMBEDDED=1).
web: setup
	$(PREPARE_APP)
	$(VENV)/bin/gunicorn gpuquote.wsgi --bind $(HOST):$(PORT) --workers 3

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
