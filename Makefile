# `make run` and `make test` need only python3: the first run creates .venv and installs
# the project with its test extras (again only when pyproject.toml changes).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.cinderlike-installed
STATE_DIR ?= $(CURDIR)/state
RUN_ARGS ?=
TEMPEST_ARGS ?=
PYTEST_ARGS ?=
# NOTE(xdist): `make test` spreads test files over one worker per core (pytest-xdist; a file
# stays on one worker, so its module fixtures start once; tests/conftest.py keeps a package
# that shares a stack on one worker); TEST_WORKERS=0 runs in-process.
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
XDIST := -n $(TEST_WORKERS) --dist loadfile

.PHONY: help venv run test unit functional pep8 genconfig genpolicy openapi clean keystone-venv \
	tempest-venv tempest

help:
	@echo 'make run        cinderlike-all (API, scheduler, volume, backup) on 127.0.0.1:8776'
	@echo 'make test       unit and functional tests (real-service suites run when configured)'
	@echo 'make tempest    tempest + cinder-tempest-plugin volume API tests through a real Keystone'
	@echo 'make unit | functional | pep8 | genconfig | genpolicy | openapi | clean'
	@echo 'make keystone-venv | tempest-venv   (made on first use by the tests and make tempest)'

# NOTE(venv): Debian's python3 has no ensurepip without python3-venv; the bootstrap script
# then makes the venv without pip and installs pip from PyPI.
$(BIN)/python:
	$(PYTHON) tools/bootstrap_venv.py $(VENV)

# NOTE(stamp): pip runs again only when pyproject.toml (deps, scripts, entry points) changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[test]'
	touch $@

venv: $(STAMP)

# cinderlike-all defaults to noauth on 127.0.0.1:8776, SQLite under --state_path, the in-process
# transport and one file backend (over iSCSI through a private tgtd when tgt is installed, else
# the local connection); RUN_ARGS='--config-file my.conf' overrides any of it.
run: $(STAMP)
	exec $(BIN)/cinderlike-all --state_path $(STATE_DIR) $(RUN_ARGS)

test: $(STAMP)
	$(BIN)/python tools/run_pytest.py $(XDIST) $(PYTEST_ARGS) tests

unit: $(STAMP)
	$(BIN)/python tools/run_pytest.py $(PYTEST_ARGS) tests/unit

functional: $(STAMP)
	$(BIN)/python tools/run_pytest.py $(XDIST) $(PYTEST_ARGS) tests/functional

pep8: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python tools/check_style.py

genconfig: $(STAMP)
	$(BIN)/oslo-config-generator --config-file etc/cinderlike/cinderlike-config-generator.conf

genpolicy: $(STAMP)
	$(BIN)/oslopolicy-sample-generator --config-file etc/cinderlike/cinderlike-policy-generator.conf

openapi: $(STAMP)
	PYTHONPATH=. $(BIN)/python tools/gen_openapi.py

# NOTE(venvs): Keystone and tempest pin their own oslo.* and SQLAlchemy, so each gets a venv of
# its own; tools/service_venv.py installs again only when the requirements file changes.
keystone-venv:
	$(PYTHON) tools/service_venv.py .venv-keystone tools/keystone/requirements.txt

tempest-venv:
	$(PYTHON) tools/service_venv.py .venv-tempest tools/tempest/requirements.txt

# Needs PostgreSQL (or MariaDB) and RabbitMQ: CINDERLIKE_TEST_POSTGRESQL_URL and
# CINDERLIKE_TEST_RABBIT_URL, plus CINDERLIKE_TEST_MYSQL_URL for Keystone's database.
tempest: $(STAMP)
	$(BIN)/python tools/tempest/run.py $(TEMPEST_ARGS)

clean:
	rm -rf $(VENV) $(STATE_DIR) .pytest_cache .ruff_cache
