# Two commands on a fresh Debian or Ubuntu machine:
#   make run    installs what is missing, creates the demo database, serves http://127.0.0.1:8000
#   make test   installs what is missing (Debian's ODBC packages too), then runs every test
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The tests read SQLite through unixODBC and the SQLite ODBC driver (driver name "SQLite3"),
# and run every query's main text on a throwaway PostgreSQL server through its ODBC driver
# (driver name "PostgreSQL Unicode"). The report's tests read its PDF with poppler-utils'
# pdftotext and pdfinfo; LibreOffice Calc opens an Excel export (tests/test_xlsx.py);
# systemd-analyze verifies the shipped unit (tests/test_systemd.py).
# Microsoft's ODBC Driver 18 (msodbc18 below) links Kerberos' GSSAPI library.
# tests/test_nginx.py runs Debian's nginx (its own processes, not the system service).
TEST_DEBS := unixodbc libsqliteodbc postgresql odbc-postgresql chromium fonts-liberation systemd \
	poppler-utils libreoffice-calc-nogui libgssapi-krb5-2 nginx
# The generated-client checks' node tools (tests/test_clients.py), installed with npm ci.
CLIENTS := tests/clients
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: run test test-unit test-quick lint demo-db settings-files debs debs-test msodbc18 python-venv node clean

# `jembatan serve`: gunicorn with 2 workers x 4 threads (gthread) and the other settings of
# app/ops/gunicorn_hooks.py SETTINGS, measured by `make bench-shape` (bench/RESULTS.md,
# "Production shape"), the reasons in docs/deploy.md, section 2.
run: $(BIN)/.installed demo-db
	$(BIN)/jembatan serve --bind $(HOST):$(PORT)

# Each pytest run in TEST_WORKERS processes (pytest-xdist), a test file to a process: the
# suite waits on servers and subprocesses about half its time, so more processes than cores.
# With JEMBATAN_TEST_MSSQL set, the mssql engine runs through FreeTDS with everything else,
# and at the same time once more through Microsoft's ODBC Driver 18 in a run of its own
# (tests/conftest.py says why two runs), in MSODBC18_WORKERS processes; its output follows the
# first run's. Each worker of each run has a database of its own on that server (tests/mssql.py).
TEST_WORKERS ?= 4
MSODBC18_WORKERS ?= 2
XDIST = --dist loadfile -n
test: $(BIN)/.installed-test debs-test $(CLIENTS)/node_modules msodbc18
	$(BIN)/ruff check .
	@if [ -z "$${JEMBATAN_TEST_MSSQL:-}" ]; then \
	  set -x; exec $(BIN)/pytest $(XDIST) $(TEST_WORKERS); \
	fi; \
	second=$$(mktemp); \
	JEMBATAN_TEST_TDS_DRIVER=msodbc18 $(BIN)/pytest -m mssql $(XDIST) $(MSODBC18_WORKERS) \
	  >"$$second" 2>&1 & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; rm -f "$$second"' EXIT; \
	$(BIN)/pytest $(XDIST) $(TEST_WORKERS); first=$$?; \
	wait $$pid; driver18=$$?; \
	echo "The mssql engine again, through Microsoft's ODBC Driver 18" \
	  "(JEMBATAN_TEST_TDS_DRIVER=msodbc18 pytest -m mssql, run beside the first):"; \
	cat "$$second"; \
	exit $$(( first || driver18 ))

# The unit tier: the core, the database layer, the formats and the model called directly
# (tests/unit/), no server and no app; under a minute. `make test` runs it too.
test-unit: $(BIN)/.installed-test
	$(BIN)/pytest tests/unit

# A developer's inner loop: the embedded engines only, without the slow groups (the soaks,
# the faults, the browser, the fuzzing: tests/conftest.py SLOW_GROUPS) nor the server engines.
QUICK = not soak and not faults and not browser and not fuzz and not postgresql and not mssql
test-quick: $(BIN)/.installed-test debs-test
	$(BIN)/pytest -m "$(QUICK)" $(XDIST) $(TEST_WORKERS)

lint: $(BIN)/.installed-test
	$(BIN)/ruff check .

# Creates the demo database at database.sqlite (instance/demo.sqlite3) unless it exists.
demo-db: $(BIN)/.installed
	$(BIN)/jembatan demo-db

# config.example.toml and docs/api.md §12's table of keys, written from the settings'
# declarations (SETTINGS in app/ops/config.py); tests/test_config.py fails until they are.
settings-files: $(BIN)/.installed
	$(BIN)/python -m app.ops.settings_files

# apt-get only what is missing; a new machine has no package lists, so update first.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

# Microsoft's ODBC Driver 18 for SQL Server, as most plants' hosts reach SQL Server: the
# library of PyPI's mssql-python-odbc (the test extra), registered with unixODBC under its usual
# name unless the machine has that driver already (Microsoft's msodbcsql18 package, say).
MSODBC18 := ODBC Driver 18 for SQL Server
msodbc18: $(BIN)/.installed-test debs-test
	@registered=$$(odbcinst -q -d -n "$(MSODBC18)" 2>/dev/null | sed -n 's/^Driver=//p'); \
	if [ -z "$$registered" ] || [ ! -e "$$registered" ]; then \
	  lib=$$($(BIN)/python -c 'import glob, platform, mssql_python_odbc as m; \
	    print(*glob.glob(f"{m.get_libs_dir()}/linux/debian_ubuntu/{platform.machine()}/lib/libmsodbcsql-18.*.so*"))'); \
	  test -n "$$lib" || { echo "no libmsodbcsql-18 in mssql-python-odbc for this machine"; exit 1; }; \
	  printf '[%s]\nDescription=%s (PyPI mssql-python-odbc)\nDriver=%s\n' \
	    "$(MSODBC18)" "$(MSODBC18)" "$$lib" > $(VENV)/msodbc18.ini; \
	  $(SUDO) odbcinst -i -d -f $(VENV)/msodbc18.ini; \
	fi

debs-test:
	$(call apt_install,$(TEST_DEBS))

debs:
	$(call apt_install,$(DEBS))

# tests/test_clients.py runs node tools (redocly, openapi-typescript, tsc) pinned in
# tests/clients/package-lock.json. Node.js and npm are the machine's own when it has them
# (this kind of machine comes with NodeSource's nodejs, which carries npm, so Debian's npm
# package would conflict with it); else Debian's. @redocly/cli 2 needs Node.js 20.19 or
# newer: Debian 13's nodejs is, Debian 12's (18) is not.
node:
	@command -v node >/dev/null && command -v npm >/dev/null || \
	  $(MAKE) --no-print-directory debs DEBS="nodejs npm"

# Exactly the locked versions; again whenever the lock changes.
$(CLIENTS)/node_modules: $(CLIENTS)/package.json $(CLIENTS)/package-lock.json | node
	cd $(CLIENTS) && npm ci --no-audit --no-fund
	touch $@

# Debian's python3 lacks ensurepip (so venv) until python3-venv is installed.
python-venv:
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || $(MAKE) --no-print-directory debs DEBS=python3-venv

$(BIN)/python: | python-venv
	$(PYTHON) -m venv $(VENV)

$(BIN)/.installed: setup.cfg pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

$(BIN)/.installed-test: setup.cfg pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(BIN)/.installed $@

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache

# --- make bench: Jembatan against Datasette, the no-HTTP limit and the bare-Flask floor
# (bench/floor.py); CONTRIBUTING.md, Benchmark ---
# `make bench BENCH_ROWS=100000 BENCH_SECONDS=3` is a quick run, on a database of its own.
BENCH_ROWS ?= 1000000
BENCH_SECONDS ?= 4
BENCH_DB := bench/data/$(if $(filter 1000000,$(BENCH_ROWS)),,rows-$(BENCH_ROWS)/)bench.sqlite3
# wrk drives the HTTP runs; the ODBC contender reads through unixODBC's SQLite driver.
BENCH_DEBS := wrk unixodbc libsqliteodbc
DATASETTE_VENV := bench/.venv-datasette

.PHONY: bench bench-shape debs-bench

bench: $(BIN)/.installed-bench $(DATASETTE_VENV)/.installed debs-bench $(BENCH_DB)
	BENCH_DB=$(BENCH_DB) BENCH_SECONDS=$(BENCH_SECONDS) $(BIN)/python bench/run.py

# Only the production shape (bench/shape.py, BENCH_ONLY=shape): each gunicorn shape on
# sqlite3 and on pyodbc at 1, 4, 16 and 64 clients; about 17 minutes with the default 4 s.
# On the default database it rewrites bench/RESULTS.md's "Production shape" section only.
bench-shape: $(BIN)/.installed-bench debs-bench $(BENCH_DB)
	BENCH_DB=$(BENCH_DB) BENCH_SECONDS=$(BENCH_SECONDS) BENCH_ONLY=shape $(BIN)/python bench/run.py

debs-bench:
	$(call apt_install,$(BENCH_DEBS))

$(BIN)/.installed-bench: setup.cfg pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[bench]'
	touch $(BIN)/.installed $@

# Datasette in a venv of its own, so that its dependencies never touch Jembatan's.
$(DATASETTE_VENV)/.installed: bench/requirements-datasette.txt | python-venv
	$(PYTHON) -m venv $(DATASETTE_VENV)
	$(DATASETTE_VENV)/bin/pip install --quiet --disable-pip-version-check -r $<
	touch $@

# Built once (about a minute for a million rows) and reused until the tables' description
# (app/model/tables.py, from the record shapes of app/model/schemas.py) or the demo's data changes.
$(BENCH_DB): app/model/tables.py app/model/schemas.py app/commands/demo.py | $(BIN)/.installed
	$(BIN)/jembatan demo-db --force --path $@ --rows $(BENCH_ROWS)

# --- make bench-tsql: the TDS path, Jembatan against its limit on the T-SQL server ---
# Starts ../shared/tsql's server (Babelfish over TDS, not SQL Server) on ports of its own,
# loads BENCH_TSQL_ROWS demo rows of `transactions`, and measures each driver (FreeTDS, and
# Driver 18 as `make msodbc18` registers it) against pyodbc's own execute + fetch + encode of
# the same SQL text (bench/tsql.py); stops the server however the run ends. About 9 minutes.
TSQL ?= $(or $(JEMBATAN_TSQL),../shared/tsql)
TSQL_PORT ?= 1533
TSQL_PG_PORT ?= 15533
BENCH_TSQL_ROWS ?= 100000
BENCH_TSQL_SECONDS ?= 3
BENCH_TSQL_DB := bench/data/rows-$(BENCH_TSQL_ROWS)/bench.sqlite3

.PHONY: bench-tsql

bench-tsql: $(BIN)/.installed-bench debs-bench msodbc18 $(BENCH_TSQL_DB)
	@export TSQL_PORT=$(TSQL_PORT) TSQL_PG_PORT=$(TSQL_PG_PORT); \
	trap '$(TSQL)/stop >/dev/null' EXIT; trap 'exit 130' INT TERM; \
	odbc="$$($(TSQL)/start)" && [ -n "$$odbc" ] || { echo "$(TSQL)/start failed"; exit 1; }; \
	BENCH_TSQL_ODBC="$$odbc" BENCH_DB=$(BENCH_TSQL_DB) BENCH_SECONDS=$(BENCH_TSQL_SECONDS) \
	  $(BIN)/python bench/tsql.py

# A demo database of another size for bench-tsql (the default one is the rule above).
bench/data/rows-%/bench.sqlite3: app/model/tables.py app/model/schemas.py app/commands/demo.py | $(BIN)/.installed
	$(BIN)/jembatan demo-db --force --path $@ --rows $*

# --- make fault-soak: the database stopped and started under load ---
# Jembatan as `make run` serves it (2 workers x 4 threads), 16 clients reading lists, pages,
# keys and ranges, while the database server is stopped and started 3 times; prints the
# counts per status and each recovery, exits 1 on a 500, a recovery slower than
# connect_timeout + 1 s, or a worker restarted (bench/faults.py --help). A plant, against a
# copy of its database (the start command must return once the server takes logins):
#   make fault-soak FAULT_ARGS='--odbc "Driver=...;Database=copy" \
#     --stop-cmd "systemctl stop mssql-server" --start-cmd "systemctl start mssql-server"'
FAULT_ARGS ?=

.PHONY: fault-soak soak-feed

fault-soak: $(BIN)/.installed
	@$(BIN)/python -c 'import requests, pyodbc' 2>/dev/null || $(BIN)/pip install --quiet \
	  --disable-pip-version-check 'requests>=2.32,<3' 'pyodbc>=5.2,<6'
	$(BIN)/python bench/faults.py $(FAULT_ARGS)

# --- make soak-feed: /transactions/changes under a real writer ---
# A writer process plays three weighbridge PCs (stamps up to 90 s behind the database clock,
# 30 s ahead, transactions held open up to 20 s) while a poller follows the bookmark every
# 0.5 s against gunicorn as deployed; exits 1 when the poller's copy differs from the table or
# a record came twice, and prints the lateness histogram (bench/feed_soak.py --help). The real
# windows by default, 10 minutes on a scratch SQLite file. A plant, against a copy of its
# database (the soak DROPs and CREATEs "transactions" there):
#   make soak-feed FEED_SOAK_ARGS='--odbc "Driver=...;Database=copy" --dialect mssql \
#     --drop-and-create-transactions --grant jembatan_ro --read-odbc "...;UID=jembatan_ro;..."'
FEED_SOAK_ARGS ?=

soak-feed: $(BIN)/.installed-test
	$(BIN)/python bench/feed_soak.py $(FEED_SOAK_ARGS)
