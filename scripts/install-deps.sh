#!/bin/sh
# Install the Debian packages geno-c needs to build and test, if missing.
# Safe to run repeatedly: it only calls apt-get when something is absent.
set -e
PKGS="build-essential cmake pkg-config libgmp-dev libutf8proc-dev libpcre2-dev \
libseccomp-dev libcmocka-dev libcurl4-openssl-dev python3 \
libmicrohttpd-dev libjansson-dev python3-dev python3-pytest python3-venv python3-setuptools libedit-dev curl"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Optional extras for `make fuzz` / `make bench` are installed by those
# targets' own scripts, not here, to keep a fresh `make test` short.
[ -z "$missing" ] && exit 0
echo "Installing build dependencies:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing
