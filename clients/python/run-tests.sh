#!/usr/bin/env bash
# Installs mnemo-client into a virtualenv and runs its tests against a real mnemo, which the
# test session starts itself (scripts/with-node 24; dist/main.js when built, else tsx).
# Callable from anywhere, e.g. the repo root:
#
#   clients/python/run-tests.sh            # all tests
#   clients/python/run-tests.sh -k retry   # extra arguments go to pytest
#
# No network: the venv sees the system's packages (--system-site-packages) and pip installs
# with --no-index --no-build-isolation, so httpx, pytest and setuptools must be installed
# already, e.g. on Debian/Ubuntu:
#   apt-get install -y python3-httpx python3-pytest python3-setuptools python3-venv python3-pip
# PYTHON picks the interpreter (default /usr/bin/python3, the one apt installs into);
# MNEMO_PY_VENV where the venv goes (default clients/python/.venv).
# MNEMO_TEST_URL / MNEMO_TEST_TOKEN test a running mnemo instead of starting one.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
venv=${MNEMO_PY_VENV:-$here/.venv}

if ! "$python" -c 'import httpx, pytest, setuptools, venv' 2>/dev/null; then
  echo "run-tests.sh: $python lacks httpx, pytest, setuptools or venv;" \
    "install them (apt-get install -y python3-httpx python3-pytest python3-setuptools python3-venv python3-pip)" >&2
  exit 1
fi

if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import httpx, pytest' 2>/dev/null; then
  rm -rf "$venv"
  "$python" -m venv --system-site-packages "$venv"
fi

# Build and install from the source tree, never fetching: a missing dependency fails here.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-build-isolation "$here"

# Run from the tests folder's parent so pytest finds pyproject.toml's settings, and import
# the installed package (src/ is not on the path): the test checks what pip installed.
cd "$here"
exec "$venv/bin/python" -m pytest -p no:cacheprovider "$@"
