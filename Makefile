# The two commands of the README: `make demo` (the main job) and `make test` (every test suite).
# Both install what they need into a project-local virtual environment (.venv) first.
PYTHON ?= python3

.PHONY: demo test venv unit contract integration e2e lint sanity docs galaxy clean bench

venv:
	@PYTHON=$(PYTHON) scripts/venv.sh

demo: venv
	@scripts/demo.sh

# test.sh sets up .venv itself, while it installs the Debian packages
test:
	@PYTHON=$(PYTHON) scripts/test.sh

unit contract integration e2e: venv
	@scripts/test.sh --only $@

lint: venv
	@scripts/lint.sh

sanity: venv
	@scripts/sanity.sh

# the reference in docs/reference (antsibull-docs) and the pictures in docs/images; commit what changes
docs: venv
	@scripts/docs.sh

# the Galaxy tarball in .build/dist, checked by galaxy-importer
galaxy: venv
	@scripts/galaxy.sh

# A few minutes against the local Engine; writes docs/benchmarks.md. Not part of `make test`.
bench: venv
	@.venv/bin/python tests/bench/benchmark.py

clean:
	rm -rf .venv .venv-2.16 .build tests/output
