#!/usr/bin/env python3
"""geno.run from Python: this repository's package against the reference's.

    bench/python_api.py [--ours PYTHON] [--ref DIR] [--runs N]

Times the same programs through `import geno` twice, each in its own
process (both packages are called `geno`): geno-c's package (the Python of
build/venv, made by `make python`) and the reference geno-lang 0.4.3 in its
default in-process interpreter mode (PYTHONPATH=DIR, default $GENO_REF or
/work/ref), with the same interpreter. Workloads:

  fib       geno.run of fib(20) (recursive, 21,891 calls)
  program   geno.check + geno.run of a 100-line program (ADTs, matches,
            records of lists, maps, folds, strings, examples)
  hello     geno.run of a one-line main (the fixed cost per call)

For each it prints the best wall time and the best CPU time of N timed
calls after one warm-up call, and the reference/geno-c ratios. The machine
is shared: compare only numbers from one run of this script.
"""
import argparse
import json
import os
import subprocess
import sys
import textwrap

FIB = textwrap.dedent("""
    func fib(n: Int) -> Int
        example 10 -> 55
        if n < 2 then
            return n
        end if
        return fib(n - 1) + fib(n - 2)
    end func

    func main() -> Int
        return fib(20)
    end func
""").lstrip()

PROGRAM = textwrap.dedent("""
    // An inventory report: ADTs, matches, list and map work, folds, strings.
    type Category = Tool | Food | Toy

    type Item = Item(name: String, category: Category, price: Int, count: Int)

    type Event = Restock(name: String, amount: Int) | Sale(name: String, amount: Int) | Audit

    func category_name(c: Category) -> String
        example Tool -> "tool"
        example Toy -> "toy"
        match c with
            | Tool -> return "tool"
            | Food -> return "food"
            | Toy -> return "toy"
        end match
    end func

    func value_of(item: Item) -> Int
        example Item("a", Tool, 3, 4) -> 12
        return item.price * item.count
    end func

    func apply_event(items: List[Item], e: Event) -> List[Item]
        example ([Item("a", Tool, 1, 1)], Audit) -> [Item("a", Tool, 1, 1)]
        match e with
            | Restock(name, amount) -> return adjust(items: items, name: name, delta: amount)
            | Sale(name, amount) -> return adjust(items: items, name: name, delta: 0 - amount)
            | Audit -> return items
        end match
    end func

    func adjust(items: List[Item], name: String, delta: Int) -> List[Item]
        example ([Item("a", Tool, 1, 1)], "a", 2) -> [Item("a", Tool, 1, 3)]
        var out: List[Item] = []
        for it: Item in items do
            if it.name == name then
                out = append(out, Item(it.name, it.category, it.price, max(0, it.count + delta)))
            else
                out = append(out, it)
            end if
        end for
        return out
    end func

    func total_value(items: List[Item]) -> Int
        example [Item("a", Tool, 2, 3), Item("b", Toy, 1, 1)] -> 7
        return fold(list: items, initial: 0, reducer: fn(acc: Int, it: Item) -> acc + value_of(it))
    end func

    func count_by_category(items: List[Item]) -> Map[String, Int]
        example [] -> map_from_list([])
        var counts: Map[String, Int] = map_from_list([])
        for it: Item in items do
            let key: String = category_name(it.category)
            match map_get(counts, key) with
                | Some(n) -> counts = map_insert(map: counts, key: key, value: n + it.count)
                | None -> counts = map_insert(map: counts, key: key, value: it.count)
            end match
        end for
        return counts
    end func

    func low_stock(items: List[Item], limit: Int) -> List[String]
        example ([Item("a", Tool, 1, 1), Item("b", Toy, 1, 9)], 2) -> ["a"]
        return [it.name for it: Item in items if it.count < limit]
    end func

    func describe(it: Item) -> String
        example Item("saw", Tool, 5, 2) -> "saw (tool): 2 x 5 = 10"
        return f"{it.name} ({category_name(it.category)}): {it.count} x {it.price} = {value_of(it)}"
    end func

    func make_items(n: Int) -> List[Item]
        example 1 -> [Item("item0", Tool, 1, 5)]
        var items: List[Item] = []
        var i = 0
        while i < n do
            var c: Category = Tool
            if i % 3 == 1 then
                c = Food
            else if i % 3 == 2 then
                c = Toy
            end if
            items = append(items, Item(f"item{i}", c, i % 7 + 1, (i * 5) % 11 + 5))
            i = i + 1
        end while
        return items
    end func

    func make_events(n: Int) -> List[Event]
        example 1 -> [Restock("item0", 3)]
        var events: List[Event] = []
        var i = 0
        while i < n do
            if i % 4 == 0 then
                events = append(events, Restock(f"item{i % 30}", 3))
            else if i % 4 == 3 then
                events = append(events, Audit)
            else
                events = append(events, Sale(f"item{(i * 7) % 30}", 2))
            end if
            i = i + 1
        end while
        return events
    end func

    func main() -> (Int, Int, List[String], String)
        var items: List[Item] = make_items(30)
        for e: Event in make_events(60) do
            items = apply_event(items, e)
        end for
        let counts: Map[String, Int] = count_by_category(items)
        let lines: List[String] = [describe(it) for it: Item in items if it.count > 8]
        return (total_value(items), length(lines), low_stock(items, 4), to_string(counts))
    end func
""").lstrip()

HELLO = "func main() -> Int\n    return 1\nend func\n"

WORKER = r"""
import json, sys, time
import geno
runs = int(sys.argv[1])
progs = json.loads(sys.stdin.read())
cfg = geno.RunConfig(max_steps=None, timeout=None)
out = {"geno_file": geno.__file__}
def one(name, src):
    if name == "program":
        c = geno.check(src)
        assert c.ok, c.diagnostics
    r = geno.run(src, config=cfg)
    assert r.ok, r.diagnostics
    return r.value
for name, src in progs.items():
    value = one(name, src)  # warm-up (imports, caches)
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        one(name, src)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    out[name] = {"wall": min(wall), "cpu": min(cpu), "value": json.dumps(value)[:80]}
print(json.dumps(out))
"""


def measure(python, env_extra, runs, progs):
    env = dict(os.environ, **env_extra)
    p = subprocess.run([python, "-c", WORKER, str(runs)], input=json.dumps(progs), capture_output=True,
                       text=True, env=env, cwd="/")
    if p.returncode != 0:
        sys.exit(f"worker failed ({python}):\n{p.stderr}")
    return json.loads(p.stdout)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours", default=os.path.join(root, "build", "venv", "bin", "python"),
                    help="a Python with geno-c's package installed (default build/venv, from `make python`)")
    ap.add_argument("--ref", default=os.environ.get("GENO_REF", "/work/ref"), help="the reference's source tree")
    ap.add_argument("--runs", type=int, default=5, help="timed calls per workload and engine")
    args = ap.parse_args()
    progs = {"fib": FIB, "program": PROGRAM, "hello": HELLO}
    ours = measure(args.ours, {"PYTHONPATH": ""}, args.runs, progs)
    ref = measure(args.ours, {"PYTHONPATH": args.ref}, args.runs, progs)
    assert ours["geno_file"] != ref["geno_file"], "both runs imported the same package"
    print(f"geno-c package: {ours['geno_file']}\nreference:      {ref['geno_file']}\n")
    print("| workload | geno-c wall ms | reference wall ms | wall ratio | geno-c CPU ms | reference CPU ms | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in progs:
        o, r = ours[name], ref[name]
        if o["value"] != r["value"]:
            print(f"note: {name} values differ: geno-c {o['value']} / reference {r['value']}")
        print(f"| {name} | {o['wall'] * 1e3:.3f} | {r['wall'] * 1e3:.1f} | {r['wall'] / o['wall']:.0f}x "
              f"| {o['cpu'] * 1e3:.3f} | {r['cpu'] * 1e3:.1f} | {r['cpu'] / max(o['cpu'], 1e-9):.0f}x |")


if __name__ == "__main__":
    main()
