#!/usr/bin/python3
"""ONNX Runtime latency of model variants side by side, in one process, interleaved.

    /usr/bin/python3 bench/ort_latency.py ORIGINAL.onnx [OTHER.onnx ...] --dims batch=1,seq=1,past_seq=1024

Variants: the original at graph optimization level `disabled` and `all`, and every other file
at `all` and `disabled` (--levels picks the levels), each with one intra-op thread, ORT's
default threads, or both (--threads 1|default|both). Before any timing, the outputs of every
variant must equal (numpy.allclose, --rtol/--atol) those of the original at level `disabled`;
otherwise nothing is timed and the exit status is 2.

Inputs are random, from each graph input's element type and shape: symbolic dims take their
value from --dims NAME=V[,NAME=V...] (a dim of 0 works: an empty KV cache), floats are standard
normal, integers uniform in [0, 100) unless --int NAME=LO:HI says otherwise (e.g. for token ids
over a small vocabulary), bools fair coins. Every variant gets the same inputs.

Timing: a warm-up run per variant, then --rounds rounds; each round runs every variant K times
in turn, starting at a different variant each round (K from --runs, or from --seconds, the
wall-clock budget of the timed part). The table gives per variant the median run in ms, the
spread as the 10th-90th percentile, the median's speedup over the original at level `all`
(above 1: faster), the session's creation time and the node count of the file. --json writes
all samples. --cpu N pins the runtime process to core N (taskset), so that a run uses one core.

Needs /usr/bin/python3 (numpy, onnx) and node with tests/e2e/ort/node_modules (onnxruntime-node).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {
    TensorProto.FLOAT: ("float32", np.float32), TensorProto.DOUBLE: ("float64", np.float64),
    TensorProto.FLOAT16: ("float16", np.float16),
    TensorProto.INT64: ("int64", np.int64), TensorProto.INT32: ("int32", np.int32),
    TensorProto.INT16: ("int16", np.int16), TensorProto.INT8: ("int8", np.int8),
    TensorProto.UINT8: ("uint8", np.uint8), TensorProto.UINT16: ("uint16", np.uint16),
    TensorProto.UINT32: ("uint32", np.uint32), TensorProto.UINT64: ("uint64", np.uint64),
    TensorProto.BOOL: ("bool", np.bool_),
}


def parse_pairs(text, what):
    out = {}
    for item in filter(None, (text or "").split(",")):
        if "=" not in item:
            sys.exit(f"ort_latency: {what} wants NAME=VALUE, got '{item}'")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def model_inputs(path):
    """(name, onnx elem type, [dim or dim_param]) of each graph input that is not an initializer."""
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    res = []
    for i in m.graph.input:
        if i.name in inits:
            continue
        tt = i.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]
        res.append((i.name, tt.elem_type, dims))
    return res, len(m.graph.node)


def make_inputs(spec, dims, int_ranges, rng, folder):
    feeds = {}
    for name, elem, shape in spec:
        if elem not in DTYPES:
            sys.exit(f"ort_latency: input '{name}' has element type {elem}, which this tool does not generate")
        concrete = []
        for d in shape:
            if isinstance(d, int):
                concrete.append(d)
            elif d in dims:
                concrete.append(int(dims[d]))
            else:
                sys.exit(f"ort_latency: input '{name}' has dim {d!r}: give its value with --dims {d or 'NAME'}=V")
        dtype_name, np_type = DTYPES[elem]
        if np_type in (np.float16, np.float32, np.float64):
            a = rng.standard_normal(concrete).astype(np_type)
        elif np_type == np.bool_:
            a = rng.random(concrete) < 0.5
        else:
            lo, hi = int_ranges.get(name, (0, 100))
            a = rng.integers(lo, hi, size=concrete).astype(np_type)
        f = os.path.join(folder, f"in{len(feeds)}.bin")
        np.ascontiguousarray(a).tofile(f)
        feeds[name] = {"dtype": dtype_name, "dims": concrete, "file": f}
    return feeds


def pct(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("original")
    ap.add_argument("others", nargs="*", help="other files of the same model (e.g. onnxtrim outputs); "
                    "LABEL=PATH names one in the table")
    ap.add_argument("--dims", default="", help="symbolic dims, e.g. batch=1,seq=1,past_seq=1024")
    ap.add_argument("--int", action="append", default=[], metavar="NAME=LO:HI",
                    help="range of a random integer input (default 0:100)")
    ap.add_argument("--levels", default="disabled,all", help="ORT graph optimization levels for every file")
    ap.add_argument("--threads", choices=["1", "default", "both"], default="1")
    ap.add_argument("--no-spin", action="store_true",
                    help="ORT's intra-op threads do not spin after a run (with default threads a spinning "
                         "pool of one session would steal the core from the next one)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--runs", type=int, default=0, help="runs per variant per round (0: from --seconds)")
    ap.add_argument("--seconds", type=float, default=20.0, help="budget of the timed part when --runs is 0")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cpu", type=int, default=None, help="pin the runtime to this core (taskset)")
    ap.add_argument("--json", help="write the result (every sample) here")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    dims = parse_pairs(args.dims, "--dims")
    int_ranges = {}
    for item in args.int:
        name, rng_text = item.split("=", 1)
        lo, hi = rng_text.split(":")
        int_ranges[name] = (int(lo), int(hi))
    levels = [lvl for lvl in args.levels.split(",") if lvl]
    for lvl in levels:
        if lvl not in ("disabled", "basic", "extended", "layout", "all"):
            sys.exit(f"ort_latency: unknown level '{lvl}'")
    threads = {"1": [1], "default": [0], "both": [1, 0]}[args.threads]

    files = [("original", args.original)]
    for k, item in enumerate(args.others):
        label, p = item.split("=", 1) if ("=" in item and not os.path.exists(item)) else (os.path.basename(item), item)
        files.append((label, p))
    spec, _ = model_inputs(args.original)
    nodes = {}
    for label, p in files:
        s, nodes[label] = model_inputs(p)
        if {n for n, _, _ in s} != {n for n, _, _ in spec}:
            sys.exit(f"ort_latency: {p} has inputs {[n for n, _, _ in s]}, the original {[n for n, _, _ in spec]}")

    # The original at `disabled` first: it is the reference of the check.
    variants = []
    order = [("original", "disabled"), ("original", "all")] + [(lbl, lvl) for lbl, _ in files[1:] for lvl in
                                                                 sorted(levels, key=lambda x: x != "all")]
    order = [(lbl, lvl) for lbl, lvl in order if lvl in levels or (lbl == "original" and lvl == "all")]
    if ("original", "disabled") not in order:
        order.insert(0, ("original", "disabled"))
    paths = dict(files)
    for t in threads:
        for lbl, lvl in order:
            variants.append({"name": f"{lbl}@{lvl}" + (f"/{'1t' if t == 1 else 'def'}" if len(threads) > 1 else ""),
                             "label": lbl, "model": os.path.abspath(paths[lbl]), "level": lvl, "threads": t,
                             "spin": not args.no_spin})

    tmp = tempfile.mkdtemp(prefix="ort_latency_")
    try:
        feeds = make_inputs(spec, dims, int_ranges, np.random.default_rng(args.seed), tmp)
        job = {"variants": variants, "inputs": feeds, "reference": 0, "rtol": args.rtol, "atol": args.atol,
               "warmup": args.warmup, "rounds": args.rounds, "runs": args.runs, "seconds": args.seconds}
        job_file = os.path.join(tmp, "job.json")
        with open(job_file, "w") as f:
            json.dump(job, f)
        cmd = ["node", os.path.join(HERE, "ort_latency.js"), job_file]
        if args.cpu is not None:
            cmd = ["taskset", "-c", str(args.cpu)] + cmd
        proc = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if proc.returncode not in (0, 2):
        sys.stderr.write(proc.stderr)
        sys.exit(f"ort_latency: the runtime failed (exit {proc.returncode})")
    res = json.loads(proc.stdout)

    title = args.title or f"{os.path.basename(args.original)}  {args.dims}"
    print(title)
    if proc.returncode == 2:
        print("outputs differ from the original's at level disabled; nothing was timed:")
        for v in res["variants"]:
            for c in v["check"]["outputs"]:
                if c.get("ok"):
                    continue
                why = c.get("why") or f"{c['bad']} of {c['size']} elements off, max |diff| {c['max_abs']:.3g}"
                print(f"  {v['name']}: {c['name']}: {why}")
        sys.exit(2)

    base, base_rounds = {}, {}
    k = res["runs_per_round"]
    for v, r in zip(variants, res["variants"]):
        r["median_ms"] = statistics.median(r["samples_ms"])
        r["p10_ms"], r["p90_ms"] = pct(r["samples_ms"], 0.1), pct(r["samples_ms"], 0.9)
        r["round_medians_ms"] = [statistics.median(r["samples_ms"][i:i + k]) for i in range(0, len(r["samples_ms"]), k)]
        if v["label"] == "original" and v["level"] == "all":
            base[v["threads"]] = r["median_ms"]
            base_rounds[v["threads"]] = r["round_medians_ms"]
    # Paired: per round, the original@all's median over the variant's (both ran in that round,
    # one right after the other), so that a machine whose load drifts between rounds still
    # compares like with like.
    for v, r in zip(variants, res["variants"]):
        ratios = [b / m for b, m in zip(base_rounds[v["threads"]], r["round_medians_ms"])]
        r["paired_speedup"] = statistics.median(ratios)
        r["paired_q1"], r["paired_q3"] = pct(ratios, 0.25), pct(ratios, 0.75)
    print(f"threads: {args.threads}   rounds: {res['rounds']} x {res['runs_per_round']} runs per variant"
          f"   check: allclose(rtol={args.rtol:g}, atol={args.atol:g}) vs original@disabled")
    head = (f"{'variant':<26} {'nodes':>6} {'median ms':>10} {'p10-p90 ms':>15} {'speedup':>8} "
            f"{'paired (q1-q3)':>19} {'create ms':>10} {'max|diff|':>10}")
    print(head)
    print("-" * len(head))
    for v, r in zip(variants, res["variants"]):
        diff = max((c.get("max_abs", 0.0) for c in r["check"]["outputs"]), default=0.0)
        speed = base[v["threads"]] / r["median_ms"]
        paired = f"{r['paired_speedup']:.2f}x ({r['paired_q1']:.2f}-{r['paired_q3']:.2f})"
        print(f"{r['name']:<26} {nodes[v['label']]:>6} {r['median_ms']:>10.3f} "
              f"{r['p10_ms']:>7.3f}-{r['p90_ms']:<7.3f} {speed:>7.2f}x {paired:>19} {r['create_ms']:>10.1f} {diff:>10.2g}")
    print("speedup: original@all's median (same threads) over the variant's, above 1 faster; paired: the same per "
          "round, its median and quartiles over the rounds")
    if args.json:
        out = {"title": title, "dims": dims, "threads": args.threads, "rounds": res["rounds"],
               "runs_per_round": res["runs_per_round"], "variants": []}
        for v, r in zip(variants, res["variants"]):
            out["variants"].append({"name": r["name"], "model": v["model"], "level": v["level"],
                                    "threads": v["threads"], "nodes": nodes[v["label"]],
                                    "median_ms": r["median_ms"], "p10_ms": r["p10_ms"], "p90_ms": r["p90_ms"],
                                    "speedup_vs_original_all": base[v["threads"]] / r["median_ms"],
                                    "paired_speedup": r["paired_speedup"], "paired_q1": r["paired_q1"],
                                    "paired_q3": r["paired_q3"], "round_medians_ms": r["round_medians_ms"],
                                    "create_ms": r["create_ms"], "check": r["check"], "samples_ms": r["samples_ms"]})
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
