#!/bin/sh
# Constrained decoding under real tokenizers: export OpenAI's cl100k_base
# and o200k_base vocabularies and the tokenization of every program of
# the corpus (tools/tokenizers, npm package js-tiktoken, installed by
# scripts/install-deps.sh), then decode each program token by token
# (token_check): the mask must contain every next token, and some masks
# must equal the slow path exactly.
# usage: run_token_check.sh TOKEN_CHECK SOURCE_DIR WORK_DIR
# Exit 77 (skipped) when node or js-tiktoken is missing.
set -e
check="$1"; src="$2"; work="$3"
tools="$src/tools/tokenizers"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$tools/node_modules/js-tiktoken" ]; then
  echo "skipped: node or tools/tokenizers/node_modules missing (scripts/install-deps.sh installs them)"
  exit 77
fi
mkdir -p "$work"
files=$(find "$src/tests" "$src/examples" "$src/bench" -name '*.geno' | sort)
# shellcheck disable=SC2086
NODE_PATH="$tools/node_modules" node "$tools/export.js" o200k_base "$work" $files
# shellcheck disable=SC2086
NODE_PATH="$tools/node_modules" node "$tools/export.js" cl100k_base "$work" $files
# and about 30 masks per vocabulary checked whole against the slow path
# (every token of the vocabulary fed to a copy of the session)
every() { awk -F'\t' '{ n += split($2, a, " ") } END { print int(n / 30) + 1 }' "$1"; }
"$check" "$work/o200k_base.vocab" "$work/o200k_base.tokens" --mask-every 7 --exact-every "$(every "$work/o200k_base.tokens")"
"$check" "$work/cl100k_base.vocab" "$work/cl100k_base.tokens" --mask-every 17 --exact-every "$(every "$work/cl100k_base.tokens")"
