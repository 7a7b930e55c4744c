#!/bin/sh
# The Python package's tests: build it into BUILD/venv, then run pytest.
#   python/tests/run.sh BUILD_DIR [pytest args]
set -e
BUILD=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
shift
HERE=$(cd "$(dirname "$0")" && pwd)
sh "$HERE/../../scripts/python-venv.sh" "$BUILD"
cd "$BUILD"
exec "$BUILD/venv/bin/python" -m pytest -q -p no:cacheprovider "$HERE" "$@"
