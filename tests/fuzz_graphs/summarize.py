#!/usr/bin/env python3
"""Totals of a campaign run in pieces (scripts/fuzz_graphs.sh): merges DIR/piece-*/summary.json
(each written by fuzz_graphs.py --out) into DIR/summary.json and prints them.

usage: summarize.py DIR [--start S --count N]

With --start/--count, the seeds of START..START+N-1 that no finished piece covers are listed as
missing (a piece stopped before its end leaves no summary.json: run the campaign again to redo it).
The last line reads `fuzz_graphs campaign: N passed, N failed` (cases; failed: a defect not in
known.py); the exit status is 1 when a case failed or a piece is missing.
"""
import argparse
import glob
import json
import os
import sys


def add(into, d):
    for k, v in (d or {}).items():
        into[k] = into.get(k, 0) + v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--start", type=int)
    ap.add_argument("--count", type=int)
    args = ap.parse_args()
    pieces = sorted(glob.glob(os.path.join(args.dir, "piece-*", "summary.json")),
                    key=lambda p: int(os.path.basename(os.path.dirname(p))[len("piece-"):]))
    tot = {"pieces": 0, "cases": 0, "nodes": 0, "dynamic": 0, "seconds": 0.0, "new_failures": 0, "unrunnable": 0,
           "failures_by_kind": {}, "new_failures_by_kind": {}, "known_failures": {}, "features": {}, "passes_fired": {},
           "failed_seeds": [], "failures": [], "opsets": set(), "seeds_covered": []}
    covered = set()
    for p in pieces:
        with open(p) as fh:
            data = json.load(fh)
        s, results = data["summary"], data.get("results", [])
        tot["pieces"] += 1
        for k in ("cases", "nodes", "dynamic", "new_failures", "unrunnable"):
            tot[k] += s.get(k, 0) or 0
        tot["seconds"] += s.get("seconds", 0.0)
        for k in ("failures_by_kind", "new_failures_by_kind", "known_failures", "features", "passes_fired"):
            add(tot[k], s.get(k))
        tot["opsets"] |= set(s.get("opsets", []))
        for r in results:
            covered.add(r["seed"])
            for v in r["verdicts"]:
                f = v["failure"]
                tot["failures"].append({"seed": r["seed"], "kind": f["kind"], "variant": f["variant"],
                                        "detail": f["detail"][:300], "known": v["known"],
                                        "reduced_ops": v.get("reduced_ops"), "saved": v.get("saved")})
            if any(not v["known"] for v in r["verdicts"]):
                tot["failed_seeds"].append(r["seed"])
    tot["opsets"] = sorted(tot["opsets"])
    for k in ("failures_by_kind", "new_failures_by_kind", "known_failures", "features"):
        tot[k] = dict(sorted(tot[k].items()))
    tot["passes_fired"] = dict(sorted(tot["passes_fired"].items(), key=lambda kv: -kv[1]))
    tot["seconds"] = round(tot["seconds"], 1)
    missing = []
    if args.start is not None and args.count is not None:
        missing = [s for s in range(args.start, args.start + args.count) if s not in covered]
    if covered:
        lo, hi = min(covered), max(covered)
        tot["seeds_covered"] = [lo, hi]
    tot["missing_seeds"] = len(missing)
    if missing:
        tot["first_missing_seed"] = missing[0]
    with open(os.path.join(args.dir, "summary.json"), "w") as fh:
        json.dump({"summary": tot}, fh, indent=1)
    for f in tot["failures"]:
        tag = f"known {f['known']}" if f["known"] else "NEW"
        ops = f" [{' '.join(f['reduced_ops'])}]" if f.get("reduced_ops") and len(f["reduced_ops"]) <= 16 else ""
        print(f"  seed {f['seed']}: {tag}: [{f['kind']}] {f['variant']}: {f['detail'][:160]}{ops}"
              + (f" ({f['saved']})" if f.get("saved") else ""))
    seeds = f"seeds {tot['seeds_covered'][0]}..{tot['seeds_covered'][1]}" if covered else "no seeds"
    print(f"fuzz_graphs campaign: {tot['cases']} cases ({seeds}, {tot['pieces']} pieces, {tot['dynamic']} dynamic, "
          f"opsets {tot['opsets'][0] if tot['opsets'] else '-'}-{tot['opsets'][-1] if tot['opsets'] else '-'}), "
          f"{tot['nodes']} nodes, {tot['seconds']} s in the pieces")
    print(f"fuzz_graphs campaign: failures by kind (cases): {tot['failures_by_kind'] or 'none'}; "
          f"not known: {tot['new_failures_by_kind'] or 'none'}; known defects: {tot['known_failures'] or 'none'}"
          + (f"; {len(missing)} seeds missing (from {missing[0]})" if missing else ""))
    print("fuzz_graphs campaign: features (cases): " + ", ".join(f"{k} {v}" for k, v in tot["features"].items()))
    failed = len(tot["failed_seeds"])
    print(f"fuzz_graphs campaign: {tot['cases'] - failed} passed, {failed} failed")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
