# The two commands of the README: `make demo` (the main job) and `make test` (every test suite).
# Both install what they need into a project-local virtual environment (.venv) first.
PYTHON ?= python3

.PHONY: demo test venv unit contract integration e2e lint sanity clean bench

venv:
	@PYTHON=$(PYTHON) scripts/venv.sh

demo: venv
	@scripts/demo.sh

test: venv
	@scripts/test.sh

unit contract integration e2e: venv
	@scripts/test.sh --only $@

lint: venv
	@scripts/lint.sh

sanity: venv
	@scripts/sanity.sh

# A few minutes against the local Engine; writes docs/benchmarks.md. Not part of `make test`.
bench: venv
	@.venv/bin/python tests/bench/benchmark.py

clean:
	rm -rf .venv .build tests/output
