#!/usr/bin/env python
"""Checks a built collection tarball: every file in it is a file of the checkout (tracked, or new and not
ignored by git, so no cache, virtualenv, database or build output), none is a development-only file, and
what a user needs is there. Usage: check-artifact.py anxcloud-lbaas-X.Y.Z.tar.gz"""
import fnmatch
import subprocess
import sys
import tarfile

# Files only a developer of the collection needs (galaxy.yml build_ignore leaves them out).
DEV_ONLY = ["Makefile", "scripts/*", ".ci/*", "requirements-dev.txt", "requirements-ansible-*.txt", "pytest.ini",
            ".ansible-lint", ".gitignore", "tests/bench/*", "tests/output/*"]
# What a user of the collection needs.
REQUIRED = ["README.md", "COPYING", "requirements.txt", "meta/runtime.yml", "meta/execution-environment.yml",
            "changelogs/changelog.yaml", "docs/user-guide.md", "docs/reference/README.md",
            "roles/service_loadbalancer/README.md", "roles/service_loadbalancer/meta/argument_specs.yml",
            "playbooks/service_loadbalancer.yml", "tests/engine/run"]


def main(path):
    with tarfile.open(path) as tar:
        shipped = {m.name for m in tar.getmembers() if m.isfile()} - {"MANIFEST.json", "FILES.json"}
    checkout = set(subprocess.check_output(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                                           text=True).splitlines())
    problems = ["not a file of the checkout (a cache or build output?): %s" % f for f in sorted(shipped - checkout)]
    problems += ["development-only file shipped: %s" % f for f in sorted(shipped)
                 if any(fnmatch.fnmatch(f, p) for p in DEV_ONLY)]
    problems += ["missing from the tarball: %s" % f for f in REQUIRED if f not in shipped]
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print("fix galaxy.yml build_ignore (or the checkout) and rebuild", file=sys.stderr)
        return 1
    print("%s: %d files, no cache or dev-only file" % (path, len(shipped)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
