# Two commands do all set-up on a fresh machine (Python 3.11, nothing else):
#   make run   create the venv, install, migrate, seed the demo plan, serve on 127.0.0.1:$PORT
#   make test  create the venv, install the test tools, lint, run the test suite
# PORT (default 8000) comes from the command line, the environment or .env: make sets no default
# of its own, which would hide the one in .env from the commands that read it.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run token stdio test check lint lock dist mutation bench bundle clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "avenir-mcp needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Installs come only from the lock files, every file checked against its hash (see `lock`).
$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.txt
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py bootstrap
	exec $(BIN)/python manage.py runserver

# make token NAME="Claude Code" [READ_ONLY=1]: a new MCP token, printed once with the client set-ups.
token: $(VENV)/.installed
	$(if $(NAME),,$(error Name the token: make token NAME="Claude Code" [READ_ONLY=1]))
	$(BIN)/python manage.py migrate --noinput --verbosity 0
	$(BIN)/python manage.py create_mcp_token '$(subst ','\'',$(NAME))'$(if $(filter 1,$(READ_ONLY)), --read-only)

# make stdio [READ_ONLY=1]: the MCP server over stdio, from this checkout (stdout is the protocol's,
# so nothing is echoed; a client's own configuration starts .venv/bin/python manage.py mcp_stdio).
stdio: $(VENV)/.installed
	@$(BIN)/python manage.py migrate --noinput --verbosity 0
	@exec $(BIN)/python manage.py mcp_stdio$(if $(filter 1,$(READ_ONLY)), --read-only)

# PYTEST_ARGS: extra pytest arguments (e.g. `make test PYTEST_ARGS="tests/oplog -x"`).
# TEST_WORKERS: pytest-xdist processes, each with its own test database and served service; by
# default one more than the machine's cores, because tests also wait (on a process they started,
# on a request the sandbox holds) and another worker uses the core meanwhile (2 cores: 3 workers
# ran the suite in 5 min 10 s, 2 in 5 min 46 s, 4 in 5 min 29 s). Workers steal tests from each
# other (`--dist worksteal`) so none idles at the end while another runs a long queue: 4 min 42 s.
# The suite runs under coverage.py (lines and branches, in every process: the xdist workers and
# the processes tests start; see [tool.coverage.*] in pyproject.toml); the whole suite fails
# under the gate there (fail_under), a subset (PYTEST_ARGS given) only prints its figures. The
# figures are combined and printed whether or not a test failed; the target then fails with
# pytest's status, or with the report's when every test passed.
# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE): every
# process the tests start (stdio, runserver, a killed writer) would otherwise compile the project
# again, and collecting the suite costs twice the CPU without the cache.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')
test: $(VENV)/.installed-dev
	$(BIN)/ruff check --output-format concise .
	$(BIN)/mypy
	rm -f .coverage .coverage.*
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m coverage run -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS); \
	tests=$$?; \
	$(BIN)/python -m coverage combine --quiet; \
	$(BIN)/python -m coverage report $(if $(PYTEST_ARGS),--fail-under=0); \
	report=$$?; \
	if [ $$tests -ne 0 ]; then exit $$tests; fi; \
	exit $$report

# The inner loop: lint and format check, then the tests that start no process and are no sweep
# (markers `subprocesses` and `matrix`, pyproject.toml), without coverage, on the same workers:
# about 1,960 of 2,580 tests, 3 min 32 s of CPU (about 2 minutes on 2 idle cores; 5 min 2 s measured
# at a load average of 11). `make test` runs everything, under coverage.
check: $(VENV)/.installed-dev
	$(BIN)/ruff check --output-format concise .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -m "not subprocesses and not matrix" -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# Mutation testing of the confirmation contract and the write flow ([tool.mutmut] in
# pyproject.toml; docs/mutation.md lists what survives and why). A developer's tool, not CI's:
# two mutants at a time. Starts afresh (mutmut copies the code).
mutation: $(VENV)/.installed-dev
	rm -rf mutants
	nice -n 10 $(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut results

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check --output-format concise .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The lock files, from the ranges in pyproject.toml: requirements.txt (runtime) and
# requirements-dev.txt (runtime and the `dev` group, the runtime pins kept as a constraint, so
# both install the same versions). Every package exact, with the hashes of all its files, for
# Python 3.11 on Linux x86_64. A version already locked stays unless the ranges exclude it;
# LOCK_ARGS moves on: `make lock LOCK_ARGS=--upgrade`, or `LOCK_ARGS="--upgrade-package mcp"`.
# uv does the resolving (it is in the dev group, so locked too): it resolves for the Python and
# platform named here, whatever Python runs it, where pip-compile resolves for its own interpreter.
UV_COMPILE = $(BIN)/uv pip compile --quiet pyproject.toml --generate-hashes --python-version 3.11 \
	--python-platform x86_64-unknown-linux-gnu $(LOCK_ARGS)
lock: $(VENV)/.installed-dev
	$(UV_COMPILE) --output-file requirements.txt
	$(UV_COMPILE) --extra dev --constraint requirements.txt --output-file requirements-dev.txt

# The distribution: dist/avenir_mcp-<version>.tar.gz and the wheel built from it (hatchling, the
# backend pyproject.toml names, from the locked dev tools: no isolated build environment fetched),
# then the .mcpb bundle of that wheel (`bundle`).
# `pip install dist/avenir_mcp-*.whl` (or `uvx --from dist/avenir_mcp-*.whl avenir-mcp stdio`) then
# gives the `avenir-mcp` command (avenir_mcp/avenir_site/cli.py).
dist: $(VENV)/.installed-dev
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(MAKE) --no-print-directory bundle

# dist/avenir-mcp.mcpb (README: Publishing), of the newest wheel in dist/: manage.py mcp_bundle
# lays out its files in a temporary folder, the official CLI (npm @anthropic-ai/mcpb, the version
# the tests use; node and npm needed) validates the manifest and packs them.
MCPB ?= npx --yes @anthropic-ai/mcpb@2.1.2
bundle: $(VENV)/.installed
	@wheel=$$(ls dist/avenir_mcp-*.whl 2>/dev/null | sort -V | tail -n 1); \
	test -n "$$wheel" || { echo "No wheel in dist/: make dist builds one, and the bundle."; exit 1; }; \
	staging=$$(mktemp -d); \
	$(BIN)/python manage.py mcp_bundle "$$wheel" "$$staging/avenir-mcp" \
		&& $(MCPB) pack "$$staging/avenir-mcp" dist/avenir-mcp.mcpb; \
	status=$$?; rm -rf "$$staging"; exit $$status

clean:
	rm -rf $(VENV) dist .pytest_cache .ruff_cache .hypothesis .coverage .coverage.* htmlcov mutants
