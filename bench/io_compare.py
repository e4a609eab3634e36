#!/usr/bin/env python3
"""Load and save at the speed of the disk: onnxtrim against a plain copy of the files and
against python3-onnx, side by side in one run, with the peak memory of each.

For each model (bench/models/swin_t.onnx and the LLM-sized bench/models/gpt/gpt.onnx, made by
bench/make_models.py), each of these runs as its own process, writing into a scratch folder
beside the model (same file system), and is timed wall-clock:
  cp      `cp -r` of the model's files (the file, or the folder with its external data)
  nopass  `onnxtrim IN OUT --no-passes`
  default `onnxtrim IN OUT` (the default pipeline; `--no-verify` when the CLI verifies by default)
  onnx    python3-onnx: onnx.load (external data included) + onnx.save (external data in one
          file when the model had some)
Peak RSS is the process's own (/usr/bin/time's %M). The page cache is warm for every run (the
first run of each round warms it) and dirty pages are flushed (`sync`) between runs, so that
no run pays for the writeback of the one before. Rounds are interleaved (machines are shared
and noisy); the median of each is printed, with ratios to cp.

Optionally, --verify checks the default pipeline's output against the original on a short
sequence with `onnxtrim verify` (the LLM: batch 1, seq 8).

    io_compare.py [--onnxtrim build/onnxtrim] [--rounds 3 | --rounds swin_t=7,gpt=3] [--models swin_t,gpt]
                  [--skip onnx] [--verify]
Not part of the test suite (the LLM export takes 5.4 GB of disk, and as much again per copy).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = {
    "swin_t": os.path.join(HERE, "models", "swin_t.onnx"),
    "gpt": os.path.join(HERE, "models", "gpt", "gpt.onnx"),
}
VERIFY_DIMS = {"swin_t": ["--dim", "batch=1"], "gpt": ["--dim", "batch=1", "--dim", "seq=8"]}

ONNX_SNIPPET = r"""
import os, sys, onnx
src, dst = sys.argv[1], sys.argv[2]
m = onnx.load(src)
ext = any(t.data_location == onnx.TensorProto.EXTERNAL for t in onnx.load(src, load_external_data=False).graph.initializer)
if ext:
    onnx.save(m, dst, save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(dst) + ".data", size_threshold=1024)
else:
    onnx.save(m, dst)
"""


def run(cmd):
    """Runs cmd; returns (seconds, peak RSS in bytes). Fails loudly on a non-zero exit.
    The peak is measured by /usr/bin/time around the command: a child forked from this
    interpreter would start with the interpreter's pages counted in its own peak."""
    with tempfile.NamedTemporaryFile(prefix="io_compare-rss-") as rss:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            err = p.stderr.decode(errors="replace")
            sys.exit(f"io_compare: {' '.join(cmd)} failed with exit {p.returncode}: {err.strip()[:500]}")
        kb = int(open(rss.name).read().split()[-1])
    return dt, kb * 1024


def model_files(path):
    """The model file and, when it has external data, its whole folder."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    ext = [t for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    size = os.path.getsize(path)
    locations = set()
    for t in ext:
        for kv in t.external_data:
            if kv.key == "location":
                locations.add(kv.value)
    folder = os.path.dirname(path)
    size += sum(os.path.getsize(os.path.join(folder, loc)) for loc in locations)
    import numpy as np
    largest = 0
    for t in m.graph.initializer:
        n = int(np.prod(t.dims))
        largest = max(largest, n * np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]).itemsize)
    return bool(ext), size, largest


def supports(binary, flag):
    r = subprocess.run([binary, "--help"], capture_output=True, text=True)
    return flag in r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxtrim", default=os.path.join(ROOT, "build", "onnxtrim"))
    ap.add_argument("--rounds", default="3", help="N for every model, or per model: swin_t=7,gpt=3")
    ap.add_argument("--models", default="swin_t,gpt")
    ap.add_argument("--skip", default="", help="comma-separated runs to leave out (cp, nopass, default, onnx)")
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    rounds_of = {}
    for part in args.rounds.split(","):
        name, _, n = part.rpartition("=")
        rounds_of[name or "*"] = int(n)
    no_verify = ["--no-verify"] if supports(args.onnxtrim, "--no-verify") else []

    for name in args.models.split(","):
        path = MODELS[name]
        rounds = rounds_of.get(name, rounds_of.get("*", 3))
        if not os.path.exists(path):
            print(f"{name}: {path} is missing (run bench/make_models.py {name})")
            continue
        external, size, largest = model_files(path)
        src_dir = os.path.dirname(path)
        base = os.path.basename(path)
        results = {}
        default_out = None
        with tempfile.TemporaryDirectory(dir=os.path.dirname(src_dir) if external else src_dir,
                                         prefix=".io_compare-") as tmp:
            def fresh():
                out_dir = os.path.join(tmp, "out")
                shutil.rmtree(out_dir, ignore_errors=True)
                subprocess.run(["sync"], check=True)
                return out_dir

            runs = {
                "cp": lambda o: ["cp", "-r", src_dir if external else path, o if external else o + ".onnx"],
                "nopass": lambda o: [args.onnxtrim, path, os.path.join(o, base), "--no-passes", "--quiet"],
                "default": lambda o: [args.onnxtrim, path, os.path.join(o, base), "--quiet"] + no_verify,
                "onnx": lambda o: ["/usr/bin/python3", "-c", ONNX_SNIPPET, path, os.path.join(o, base)],
            }
            for r in range(rounds):
                for key, make in runs.items():
                    if key in skip:
                        continue
                    out_dir = fresh()
                    if key != "cp" or not external:
                        os.makedirs(out_dir)
                    cmd = make(out_dir if key != "cp" or external else os.path.join(out_dir, "copy"))
                    results.setdefault(key, []).append(run(cmd))
                    if key == "default" and args.verify and r == rounds - 1:
                        default_out = os.path.join(tmp, "verified")
                        shutil.rmtree(default_out, ignore_errors=True)
                        os.rename(out_dir, default_out)
            shutil.rmtree(os.path.join(tmp, "out"), ignore_errors=True)
            label = {"cp": "cp -r" if external else "cp", "nopass": "onnxtrim --no-passes",
                     "default": "onnxtrim" + (" --no-verify" if no_verify else ""),
                     "onnx": "onnx.load+onnx.save"}
            print(f"{name}: {size / 1e6:,.0f} MB{' (external data)' if external else ''}, "
                  f"largest tensor {largest / 1e6:,.0f} MB; median of {rounds} rounds")
            cp_time = sorted(t for t, _ in results["cp"])[len(results["cp"]) // 2] if "cp" in results else None
            for key in runs:
                if key not in results:
                    continue
                times = sorted(t for t, _ in results[key])
                t = times[len(times) // 2]
                rss = max(m for _, m in results[key])
                ratio = f"{t / cp_time:5.1f}x cp" if cp_time else ""
                print(f"  {label[key]:<26} {t:7.2f} s  {ratio:>10}   peak RSS {rss / 1e6:8,.0f} MB"
                      f"  (= {rss / 1e6 - largest / 1e6:+,.0f} MB over the largest tensor)")
            if default_out:
                cmd = [args.onnxtrim, "verify", path, os.path.join(default_out, base)] + VERIFY_DIMS[name] + ["--samples", "1"]
                r = subprocess.run(cmd, capture_output=True, text=True)
                print(f"  verify ({' '.join(VERIFY_DIMS[name][1::2])}): exit {r.returncode}")
                for line in r.stdout.strip().splitlines():
                    print("    " + line)


if __name__ == "__main__":
    main()
