#!/bin/sh
# Build the geno Python package into a virtual environment, offline:
#   scripts/python-venv.sh BUILD_DIR
# makes BUILD_DIR/venv (Debian's python3, --system-site-packages so that
# Debian's setuptools and pytest serve it) and pip-installs ./python there
# with --no-build-isolation --no-index, linking BUILD_DIR/libgeno.a.
# Used by `make python` and by the `python` CTest test.
set -e
BUILD=$(cd "${1:?usage: python-venv.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${GENO_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
VENV="$BUILD/venv"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv --system-site-packages "$VENV"
fi
# setup.py keeps its intermediate files in BUILD/python-build.
cd "$ROOT/python"
GENO_LIBGENO_DIR="$BUILD" "$VENV/bin/python" -m pip install --quiet --no-build-isolation --no-index \
  --disable-pip-version-check --no-warn-script-location --force-reinstall --no-deps .
cd "$BUILD"
"$VENV/bin/python" -c 'import geno, sys; sys.exit(0 if geno.run("func main() -> Int\n    return 1\nend func\n").value == 1 else 1)'
