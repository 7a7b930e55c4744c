"""What the node-driven JavaScript tests share: their command line.

    geno, node = js_common.geno_and_node()   # None: node is missing

Each test is run as `python3 tests/js_X.py --geno PATH [--node node]`; it
exits 77 (CTest's "skipped") when node is not installed."""
import argparse
import os
import shutil


def geno_and_node(description=None):
    """Parse --geno and --node. Returns (absolute geno path, node path), or
    None after printing SKIP when node cannot be found."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--geno", required=True)
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    node = shutil.which(args.node)
    if not node:
        print("SKIP: node is not installed")
        return None
    return os.path.abspath(args.geno), node
