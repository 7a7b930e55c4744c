#!/bin/sh
# Time and peak memory of `geno check` on an import chain of N modules
# (module k imports module k-1 and exports a type and two functions),
# for each N given (default 50 100 150 200 250; the front end's module
# limit is 256 modules including main). Prints N, wall seconds, user
# seconds, peak RSS in KiB and KiB per module,
# so growth with N can be read off: linear keeps RSS/N flat. `geno
# check` has a 5 s deadline: a chain that passes it shows error[E501].
#   bench/import_chain.sh [GENO_BINARY] [N...]
set -eu
GENO=${1:-build/geno}
[ $# -gt 0 ] && shift
SIZES=${*:-50 100 150 200 250}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '%6s %8s %8s %10s %10s  %s\n' modules wall_s user_s peak_kib kib/module result
for n in $SIZES; do
  d="$TMP/c$n"
  mkdir -p "$d"
  python3 - "$n" "$d" <<'PY'
import sys
n, d = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    with open(f"{d}/M{i}.geno", "w") as f:
        if i > 0:
            f.write(f"import M{i-1}\n\n")
        f.write(f"export type T{i} = A{i}(v: Int) | B{i}\n\n")
        f.write(f"export func f{i}(x: Int) -> Int\n    example 1 -> {i+1}\n    return x + {i}\nend func\n\n")
        f.write(f"export func g{i}(t: T{i}) -> Int\n    example B{i} -> 0\n    match t with\n"
                f"    | A{i}(v) -> return f{i}(v)\n    | B{i} -> return 0\n    end match\nend func\n")
with open(f"{d}/main.geno", "w") as f:
    f.write(f"import M{n-1}\n\nfunc main() -> Int\n    return M{n-1}.f{n-1}(1)\nend func\n")
PY
  here=$(pwd)
  result=$(cd "$d" && /usr/bin/time -o "$TMP/time" -f '%e %U %M' "$here/$GENO" check main.geno 2>&1 | grep -o 'error\[E[0-9]*\]' | head -1 || true)
  set -- $(cat "$TMP/time" | tail -1)
  printf '%6s %8s %8s %10s %10s  %s\n' "$n" "$1" "$2" "$3" "$(( $3 / n ))" "${result:-ok}"
done
