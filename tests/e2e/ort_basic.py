#!/usr/bin/env python3
"""onnxtrim against ONNX Runtime's basic graph optimization level (issue 16): on every model
given, onnxtrim's default pipeline (`onnxtrim IN OUT`) must leave at most as many nodes as ONNX
Runtime does when it loads the model with graphOptimizationLevel 'basic' (the graph it would
run, written through optimizedModelFilePath by tests/e2e/ort/run.js --optimize basic).

Nodes are counted the same way in both graphs: every node of the main graph and of every
subgraph (If branches, Loop and Scan bodies), at any depth. A call of a model-local function is
one node (ONNX Runtime inlines such calls; onnxtrim keeps them). Each model's three counts are
printed: original, onnxtrim, ONNX Runtime basic.

usage: ort_basic.py ONNXTRIM MODEL.onnx ...
"""
import os
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "ort", "run.js")


def count_nodes(graph):
    n = 0
    for node in graph.node:
        n += 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n += count_nodes(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                n += sum(count_nodes(g) for g in a.graphs)
    return n


def nodes_in(path):
    return count_nodes(onnx.load(path, load_external_data=False).graph)


def run(*cmd):
    r = subprocess.run(list(cmd), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")


binary, models = sys.argv[1], sys.argv[2:]
if not models:
    sys.exit("ort_basic: no model given")
failures = []
print(f"{'model':32} {'original':>9} {'onnxtrim':>9} {'ORT basic':>10}")
for model in models:
    name = os.path.basename(model)
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = os.path.join(tmp, "onnxtrim.onnx"), os.path.join(tmp, "ort_basic.onnx")
        try:
            run(binary, model, ours, "--quiet")
            run("node", RUNNER, "--optimize", "basic", model, theirs)
            n_orig, n_ours, n_theirs = nodes_in(model), nodes_in(ours), nodes_in(theirs)
        except Exception as e:  # a failure to run is a failure
            failures.append(f"{name}: {e}")
            continue
    print(f"{name:32} {n_orig:9} {n_ours:9} {n_theirs:10}")
    if n_ours > n_theirs:
        failures.append(f"{name}: onnxtrim leaves {n_ours} nodes, ONNX Runtime's basic level {n_theirs}")
for f in failures:
    print("FAIL:", f)
print(f"ort_basic: {len(models) - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
