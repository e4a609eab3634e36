#!/usr/bin/env python3
"""Differential testing of onnxtrim on random exporter-like graphs (see graphgen.py, harness.py).

usage: fuzz_graphs.py ONNXTRIM [--seeds A:B | --count N [--start S] | --case DIR ...] [--out DIR] [--jobs J]
                      [--reduce-budget SECONDS] [--no-reduce] [--strict-known] [--keep]

Each seed makes one case (a model, its dim settings and inputs) that goes through every check of
harness.Runner.run_case. A failing case is reduced (reducer.py) to a minimal model that still
fails the same way; the minimal model is compared with the known defects (known.py). With --out,
each failure is saved to DIR/<seed>-<kind>-<variant>/ (the case, the reduced case, the failure).

Exit status 1 if a case fails with a defect that is not known (with --strict-known: any defect).
The last line reads `fuzz_graphs: N passed, N failed` (cases).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnx  # noqa: E402

import graphgen  # noqa: E402
import harness  # noqa: E402
import known  # noqa: E402
import reducer  # noqa: E402

PRIORITY = ["generator", "simplify_error", "structure", "checker", "ort_error", "ours_error", "eval_error", "ort_mismatch",
            "ours_mismatch", "eval_mismatch", "check_refused", "grew"]


def printable(graph):
    """onnx.helper.printable_graph, or a plainer listing where it fails (python3-onnx 1.12 cannot
    print a uint8 tensor attribute, nor a name that is not UTF-8)."""
    try:
        return onnx.helper.printable_graph(graph)
    except Exception:  # noqa: BLE001
        return "\n".join(f"{nd.output} = {nd.domain + '.' if nd.domain else ''}{nd.op_type}({list(nd.input)})" for nd in graph.node)


def op_list(graph):
    return [f"{nd.domain}.{nd.op_type}" if nd.domain else nd.op_type for nd in graph.node]


def representatives(fails):
    """One failure per kind, most telling kinds first (a wrong fold fails several variants)."""
    seen, reps = set(), []
    for kind in PRIORITY:
        for f in fails:
            if f.kind == kind and kind not in seen:
                seen.add(kind)
                reps.append(f)
    return reps


def repro_line(binary, f, meta):
    args = dict(harness.variants_for(meta)).get(f.variant, [])
    return f"{binary} original.onnx out.onnx {' '.join(args)}".strip()


class Campaign:
    def __init__(self, args):
        self.args = args
        self.binary = os.path.abspath(args.onnxtrim)
        self.tmp = tempfile.mkdtemp(prefix="fuzz_graphs_")
        self.local = threading.local()
        self.lock = threading.Lock()
        self.results = {}
        self.runners = []

    def runner(self):
        r = getattr(self.local, "runner", None)
        if r is None:
            r = harness.Runner(self.binary, os.path.join(self.tmp, f"worker{threading.get_ident()}"))
            self.local.runner = r
            with self.lock:
                self.runners.append(r)
        return r

    def run_seed(self, seed):
        t0 = time.time()
        if isinstance(seed, str):  # a saved case: DIR with original.onnx and meta.json
            with open(os.path.join(seed, "meta.json")) as fh:
                meta = json.load(fh)
            case = graphgen.Case(onnx.load(os.path.join(seed, "original.onnx")), meta)
            seed = meta["seed"]
        else:
            case = graphgen.generate(seed)
        r = self.runner()
        cdir = os.path.join(r.scratch, f"case{seed}")
        os.makedirs(cdir, exist_ok=True)
        path = os.path.join(cdir, "original.onnx")
        onnx.save(case.model, path)
        fails, info = r.run_case(path, case.meta)
        verdicts = []
        for f in representatives(fails):
            verdicts.append(self.judge(r, seed, case, path, f, fails))
        if os.path.isdir(cdir):
            shutil.rmtree(cdir, ignore_errors=True)
        return {"seed": seed, "opset": case.meta["opset"], "dynamic": case.meta["dynamic"], "nodes": info.get("nodes"),
                "nodes_default": info.get("nodes_default"), "passes": info.get("passes", []),
                "fails": [f.to_json() for f in fails], "verdicts": verdicts, "notes": case.meta["notes"],
                "unrunnable": bool(info.get("unrunnable")),
                "seconds": round(time.time() - t0, 2)}

    def judge(self, r, seed, case, path, f, all_fails):
        """Reduce failure f, recognise known defects, save the evidence."""
        model, meta = case.model, case.meta
        red_model, red_meta = model, meta
        if f.kind != "generator" and not self.args.no_reduce:
            sub = harness.Runner(self.binary, os.path.join(r.scratch, f"reduce{seed}"))
            sub.ort = r.ort  # share the ONNX Runtime process

            def predicate(m, mt):
                p = os.path.join(sub.scratch, "candidate.onnx")
                os.makedirs(sub.scratch, exist_ok=True)
                onnx.save(m, p)
                fs, _ = sub.run_case(p, mt, only=[(f.variant, f.setting)], stop_early=True)
                if any(x.kind == "generator" for x in fs):
                    return False
                return any(x.kind == f.kind and x.variant == f.variant for x in fs)

            red = reducer.Reducer(predicate, budget_s=self.args.reduce_budget)
            red_model, red_meta = red.reduce(model, meta)
        k = known.classify(red_model, harness.Failure(f.kind, f.variant, f.setting, f.detail)) if f.kind != "generator" else None
        verdict = {"failure": f.to_json(), "known": k[0] if k else None, "known_what": k[1] if k else None,
                   "reduced_nodes": len(red_model.graph.node), "reduced_ops": op_list(red_model.graph)}
        if not k:
            verdict["reduced_graph"] = printable(red_model.graph)[:4000]
        if self.args.out:
            d = os.path.join(self.args.out, f"{seed}-{f.kind}-{f.variant}")
            os.makedirs(d, exist_ok=True)
            onnx.save(model, os.path.join(d, "original.onnx"))
            onnx.save(red_model, os.path.join(d, "reduced.onnx"))
            with open(os.path.join(d, "meta.json"), "w") as fh:
                json.dump(meta, fh, indent=1)
            with open(os.path.join(d, "reduced_meta.json"), "w") as fh:
                json.dump(red_meta, fh, indent=1)
            with open(os.path.join(d, "failure.txt"), "w") as fh:
                fh.write(f"seed {seed}, opset {meta['opset']}, settings {meta['settings']}\n")
                fh.write(f"failure: {f!r}\n")
                if k:
                    fh.write(f"known defect {k[0]}: {k[1]}\n")
                fh.write(f"reproduce: {repro_line(self.binary, f, meta)}\n")
                fh.write("all failures of the case:\n")
                for x in all_fails:
                    fh.write(f"  {x!r}\n")
                fh.write(f"reduced to {len(red_model.graph.node)} nodes (from {len(model.graph.node)}):\n")
                fh.write(printable(red_model.graph) + "\n")
            verdict["saved"] = d
        return verdict

    def close(self):
        for r in self.runners:
            r.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("onnxtrim")
    ap.add_argument("--seeds", help="A:B, the seeds A..B-1")
    ap.add_argument("--count", type=int)
    ap.add_argument("--case", action="append", help="a saved case folder (original.onnx, meta.json) to check again")
    ap.add_argument("--start", type=int, default=None)
    ap.add_argument("--out", help="folder for failures and the summary")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reduce-budget", type=float, default=120.0, help="seconds per failure")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--strict-known", action="store_true", help="known defects fail too")
    ap.add_argument("--quiet", action="store_true", help="no line for failures of known defects")
    args = ap.parse_args()
    if args.case:
        seeds = args.case
    elif args.seeds:
        a, b = (int(x) for x in args.seeds.split(":"))
        seeds = list(range(a, b))
    else:
        start = args.start if args.start is not None else int(time.time()) % 1_000_000 * 1000
        seeds = list(range(start, start + (args.count or 100)))
    c = Campaign(args)
    t0 = time.time()
    results = []
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for res in ex.map(c.run_seed, seeds):
                results.append(res)
                for v in res["verdicts"]:
                    f = v["failure"]
                    if not args.quiet or not v["known"]:
                        tag = f"known {v['known']}" if v["known"] else "NEW"
                        where = f" (saved in {v['saved']})" if v.get("saved") else ""
                        ops = f": {' '.join(v['reduced_ops'])}" if not v["known"] and v["reduced_nodes"] <= 16 else ""
                        print(f"seed {res['seed']} (opset {res['opset']}): {tag}: [{f['kind']}] {f['variant']}: "
                              f"{f['detail']} (reduced to {v['reduced_nodes']} nodes{ops}){where}", flush=True)
                        if not v["known"] and not v.get("saved"):
                            print(v["reduced_graph"], flush=True)
    finally:
        c.close()
    new = [r for r in results if any(not v["known"] for v in r["verdicts"])]
    known_only = [r for r in results if r["verdicts"] and all(v["known"] for v in r["verdicts"])]
    failed = len(new) + (len(known_only) if args.strict_known else 0)
    by_known = {}
    for r in known_only:
        for v in r["verdicts"]:
            by_known[v["known"]] = by_known.get(v["known"], 0) + 1
    fired = {}
    for r in results:
        for p in r["passes"]:
            fired[p] = fired.get(p, 0) + 1
    by_kind, new_by_kind, features = {}, {}, {}
    for r in results:
        for kind in sorted({f["kind"] for f in r["fails"]}):
            by_kind[kind] = by_kind.get(kind, 0) + 1
        for kind in sorted({v["failure"]["kind"] for v in r["verdicts"] if not v["known"]}):
            new_by_kind[kind] = new_by_kind.get(kind, 0) + 1
        for n in r["notes"]:
            features[n] = features.get(n, 0) + 1
    summary = {"passes_fired": dict(sorted(fired.items(), key=lambda kv: -kv[1])), "cases": len(results), "seconds": round(time.time() - t0, 1), "new_failures": len(new),
               "known_failures": by_known, "nodes": sum(r["nodes"] or 0 for r in results),
               "opsets": sorted({r["opset"] for r in results}), "dynamic": sum(r["dynamic"] for r in results),
               # cases with a failure of each kind (any variant; a case may count under several kinds)
               "failures_by_kind": dict(sorted(by_kind.items())), "new_failures_by_kind": dict(sorted(new_by_kind.items())),
               "failed_seeds": [r["seed"] for r in new] + ([r["seed"] for r in known_only] if args.strict_known else []),
               "features": dict(sorted(features.items())), "unrunnable": sum(r.get("unrunnable", False) for r in results),
               "seeds": [seeds[0], seeds[-1]] if seeds and isinstance(seeds[0], int) else None}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "summary.json"), "w") as fh:
            json.dump({"summary": summary, "results": results}, fh, indent=1)
    print(f"fuzz_graphs: {summary['cases']} cases ({summary['dynamic']} dynamic, {summary['nodes']} nodes, opsets "
          f"{summary['opsets'][0] if results else '-'}-{summary['opsets'][-1] if results else '-'}) in {summary['seconds']} s; "
          f"known defects: {by_known or 'none'}")
    before = sum(r["nodes"] or 0 for r in results if r["nodes_default"] is not None)
    after = sum(r["nodes_default"] for r in results if r["nodes_default"] is not None)
    print(f"fuzz_graphs: default pipeline {before} -> {after} nodes; cases where each pass changed something: "
          + ", ".join(f"{k} {v}" for k, v in summary["passes_fired"].items()))
    print(f"fuzz_graphs: failures by kind (cases): {summary['failures_by_kind'] or 'none'}; features: "
          + ", ".join(f"{k} {v}" for k, v in summary["features"].items()))
    print(f"fuzz_graphs: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
