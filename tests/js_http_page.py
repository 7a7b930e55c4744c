#!/usr/bin/env python3
"""The HTTP client builtins of the JavaScript runtime outside Node.

`geno build` output runs in a fresh node `vm` context standing for a page
(no `require`, no `process`, capabilities from `globalThis.__GENO_CAPS`):
with `http` granted, http_request returns Err and http_fetch ends the run
with E499, both saying a browser cannot make the request; without `http`
granted, the first call is denied with E412. (Under Node the builtins are
compared with `geno run` by js_diff.py on tests/lang/host/http_*.geno
against a local server.)

Usage: js_http_page.py --geno PATH [--node node]
Exit status 77 (skipped) when node is not installed.
"""
import json
import os
import subprocess
import sys
import tempfile

import js_common

PROGRAM = """func main() -> Unit with io, http
    print(http_request(method: "GET", url: "http://example.com/", headers: [], body: ""))
    print(http_fetch("http://example.com/"))
    print("not reached")
end func
"""

# A page without require or process: the script's console output, in order.
RUNNER = """
const vm = require("vm"), fs = require("fs");
const out = [];
const ctx = { console: { log: (s) => out.push(String(s)), error: (s) => out.push("stderr: " + String(s)) },
              __GENO_CAPS: JSON.parse(process.argv[3]) };
ctx.globalThis = ctx;
try { vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), ctx); } catch (e) { out.push("thrown: " + e.message); }
setTimeout(() => console.log(JSON.stringify(out)), 200);
"""

CASES = [
    (["http", "print"], [
        'Err(error: "http_request: HTTP requests are not available in a browser")',
        "stderr: error[E499]: http_fetch: HTTP requests are not available in a browser",
    ]),
    (["print"], [
        "stderr: error[E412]: Capability denied: 'http_request' requires the 'http' capability, which was not granted",
    ]),
]


def main():
    tools = js_common.geno_and_node()
    if tools is None:
        return 77
    geno, node = tools
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "app.geno")
        with open(src, "w") as f:
            f.write(PROGRAM)
        dist = os.path.join(tmp, "dist")
        subprocess.run([geno, "build", src, "-o", dist], check=True, capture_output=True)
        runner = os.path.join(tmp, "runner.js")
        with open(runner, "w") as f:
            f.write(RUNNER)
        for caps, want in CASES:
            p = subprocess.run([node, runner, os.path.join(dist, "app.js"), json.dumps(caps)],
                               capture_output=True, text=True, timeout=60)
            got = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else p.stderr
            ok = got == want
            failures += not ok
            print("%s caps=%s" % ("ok  " if ok else "FAIL", caps))
            if not ok:
                print("  want %r\n  got  %r" % (want, got))
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
