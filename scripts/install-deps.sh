#!/bin/sh
# Install the Debian packages geno-c needs to build and test, if missing.
# Safe to run repeatedly: it only calls apt-get when something is absent.
set -e
PKGS="build-essential cmake pkg-config libgmp-dev libutf8proc-dev libpcre2-dev \
libseccomp-dev libcmocka-dev libcurl4-openssl-dev python3 \
libmicrohttpd-dev libjansson-dev python3-dev python3-pytest python3-venv python3-setuptools libedit-dev curl \
nodejs"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Optional extras for `make fuzz` / `make bench` are installed by those
# targets' own scripts, not here, to keep a fresh `make test` short.
# Node and npm (the tokenizer tests of constrained decoding export real
# model vocabularies with the npm package js-tiktoken, tools/tokenizers):
# Debian's packages unless a node with npm is already there.
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
tokenizers_deps() {
  dir="$(dirname "$0")/../tools/tokenizers"
  if [ -d "$dir" ] && [ ! -d "$dir/node_modules/js-tiktoken" ] && command -v npm >/dev/null 2>&1; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || echo "warning: npm ci failed in tools/tokenizers"
  fi
}
if [ -z "$missing" ]; then
  tokenizers_deps
  exit 0
fi
echo "Installing build dependencies:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing
tokenizers_deps
