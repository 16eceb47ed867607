# tpr_nb: the two commands of the README are `make repro` and `make test`; both install what they need.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PROFILE ?= quick
# the torch to install first: this machine keeps a CPU wheel of 2.13.0; elsewhere see README, "Which torch"
TORCH ?= torch==2.13.0
ONLY ?=
# COMMIT_UNITS=1: git-commit each finished unit record of a long or full run as it lands (tpr-nb repro --commit-units)
COMMIT_UNITS ?=
# the shared data mirror, when it sits beside the project (as on CI); otherwise set TPR_NB_DATA yourself
TPR_NB_DATA ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export TPR_NB_DATA
export MPLBACKEND ?= Agg

.PHONY: install venv browser repro test check-clean nbtest pytest readme prepare export clean-nbs docs

install: $(VENV)/.installed browser
# one install at a time: a second make started beside the first (two queues on a fresh machine) waits for it, then
# finds the environment made, instead of using a half-made one (flock, where the system has it)
LOCK := $(if $(shell command -v flock),flock $(VENV).lock,)
$(VENV)/.installed: settings.ini setup.py
	$(LOCK) $(MAKE) --no-print-directory venv
venv:
	@if [ -f $(VENV)/.installed ] && [ $(VENV)/.installed -nt settings.ini ] && [ $(VENV)/.installed -nt setup.py ]; \
	then echo "$(VENV): made by another make meanwhile"; exit 0; fi; \
	set -ex; \
	test -x $(PY) || python3 -m venv $(VENV); \
	$(PY) -m pip install -q --upgrade pip; \
	$(PY) -m pip install -q $(TORCH); \
	: torch first, see README, "Which torch"; \
	$(PY) -m pip install -q -e ".[dev]"; \
	touch $(VENV)/.installed

## headless Chromium for the browser check of tests/test_docs.py: the Debian package, installed once where apt-get runs as
## root; elsewhere that check skips, naming the binary it looked for (the checks that need no browser always run)
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium (apt-get) for tests/test_docs.py"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }; } || \
	  echo "warning: could not install chromium: the browser check of tests/test_docs.py will skip"; \
	else echo "note: no chromium, and apt-get cannot run as root here: the browser check of tests/test_docs.py will skip"; fi

## the documentation site (nbdev_docs needs Quarto): nbs/ and the committed reports as static HTML in _docs/
docs: $(VENV)/.installed
	$(PY) -m tpr_nb.docs --out _docs

## the main job: the reproduction at PROFILE (default quick) into reports/$(PROFILE)/
repro: $(VENV)/.installed
	$(BIN)/tpr-nb repro --profile $(PROFILE) $(if $(ONLY),--only "$(ONLY)",) $(if $(COMMIT_UNITS),--commit-units,)

## the test suite: export/clean leave no diff, every notebook at the smoke profile, then pytest
test: install check-clean nbtest pytest

check-clean: install
	@before="$$(git status --porcelain; git diff | sha1sum)"; \
	$(BIN)/nbdev_export && $(BIN)/nbdev_clean; \
	after="$$(git status --porcelain; git diff | sha1sum)"; \
	if [ "$$before" != "$$after" ]; then echo "nbdev_export/nbdev_clean changed files: run 'make prepare' and commit"; git status --short; exit 1; fi; \
	echo "nbdev_export and nbdev_clean leave no diff"

nbtest: install
	$(BIN)/nbdev_test --n_workers 2 --timing

pytest: install
	$(BIN)/pytest tests -n 2 -q -p no:cacheprovider

## README.md from nbs/index.ipynb (nbdev_readme needs Quarto, which is not installable here)
readme: install
	$(BIN)/jupyter nbconvert --to markdown --log-level WARN --TagRemovePreprocessor.enabled=True \
	  --TagRemovePreprocessor.remove_cell_tags remove_cell nbs/index.ipynb --output-dir . --output README

export: install
	$(BIN)/nbdev_export
clean-nbs: install
	$(BIN)/nbdev_clean

## nbdev_prepare without its Quarto step: export, test, clean, readme
prepare: export nbtest clean-nbs readme
