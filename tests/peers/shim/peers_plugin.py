"""pytest plugin of the peers' harness (run.py loads it with -p peers_plugin): records, for every
test, its outcome, the phase and the error that decided it, and the OnnxSlim internals it touched
(_peers_internal.py), one JSON line each in $PEERS_RESULTS. A module that fails to import is one
line with the number of tests it holds (counted from its source)."""
import json
import os
import re
import time

import pytest

import _peers_internal


DROP_IN_CALLS = [0]  # calls into onnxtrim by the current test (through the drop-ins or the CLI)


def pytest_configure(config):
    _torch_export_takes_dynamo()
    _count_onnxtrim_calls()


def _count_onnxtrim_calls():
    """Counts the current test's calls of onnxtrim's entry points (what the drop-ins and the
    command shims call), so that a test that touched internals and never reached onnxtrim is told
    apart from one whose verdict came from onnxtrim."""
    import onnxtrim
    from onnxtrim import _cli

    def counted(fn):
        def call(*args, **kwargs):
            DROP_IN_CALLS[0] += 1
            return fn(*args, **kwargs)
        return call

    for mod, name in ((onnxtrim, "simplify"), (onnxtrim, "simplify_file"), (onnxtrim, "inspect"), (_cli, "main")):
        setattr(mod, name, counted(getattr(mod, name)))


def _torch_export_takes_dynamo():
    """OnnxSlim's tests call torch.onnx.export(..., dynamo=False): newer torch's switch for the
    TorchScript exporter, the only one torch 1.13 (Debian's) has. dynamo=False is dropped;
    dynamo=True is refused."""
    try:
        import torch.onnx
    except ImportError:
        return
    export = torch.onnx.export
    if getattr(export, "_peers", False):
        return

    def export_without_dynamo(*args, dynamo=False, **kwargs):
        if dynamo:
            raise NotImplementedError("torch.onnx.export(dynamo=True): not in this torch")
        return export(*args, **kwargs)

    export_without_dynamo._peers = True
    torch.onnx.export = export_without_dynamo


def _forget_placeholder_patterns():
    """A test that registers one of OnnxSlim's own matchers (a placeholder here) with
    register_fusion_pattern leaves it in the drop-in's registry, where it would fail every later
    slim(): it is dropped after the test (patterns the tests define themselves stay registered,
    as in OnnxSlim)."""
    from onnxtrim.compat import onnxslim_pattern as reg
    for name in list(reg.DEFAULT_FUSION_PATTERNS):
        if isinstance(name, _peers_internal.Internal) or any(
                isinstance(m, _peers_internal.Internal) for m in reg.DEFAULT_FUSION_PATTERNS[name]):
            del reg.DEFAULT_FUSION_PATTERNS[name]


def _write(rec):
    path = os.environ.get("PEERS_RESULTS")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def _error_of(report):
    """(exception type, its message's first useful line) from a failing report."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    m = re.match(r"^([A-Za-z_][\w.]*(?:Error|Exception|Internal|Failed|Exit|Interrupt)):?\s*(.*)", text, re.S)
    if m:
        return m.group(1), m.group(2).strip()
    if text.startswith("assert") or "AssertionError" in text:
        return "AssertionError", text.strip()
    return "", text.strip()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    del _peers_internal.TOUCHED[:]
    DROP_IN_CALLS[0] = 0
    item._peers = {"nodeid": item.nodeid, "outcome": "passed", "phase": "", "error_type": "", "message": "",
                   "start": time.time()}
    yield
    _forget_placeholder_patterns()
    rec = item._peers
    rec["seconds"] = round(time.time() - rec.pop("start"), 2)
    rec["internals"] = list(_peers_internal.TOUCHED)
    rec["onnxtrim_calls"] = DROP_IN_CALLS[0]
    rec["longrepr_tail"] = rec.get("longrepr_tail", "")
    _write(rec)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    out = yield
    report = out.get_result()
    rec = getattr(item, "_peers", None)
    if rec is None or rec["outcome"] != "passed":
        return
    if report.skipped:
        rec.update(outcome="skipped", phase=report.when,
                   message=str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else "")
    elif report.failed:
        etype, msg = _error_of(report)
        text = str(report.longrepr)
        rec.update(outcome="failed", phase=report.when, error_type=etype, message=msg[:2000],
                   longrepr_tail="\n".join(text.splitlines()[-40:]))


def pytest_collectstart(collector):
    del _peers_internal.TOUCHED[:]  # what a module touches while it is imported, for its report


def pytest_collectreport(report):
    if report.failed:
        path = str(report.fspath)
        try:
            tests = len(re.findall(r"^\s*def test_\w+", open(path).read(), re.M))
        except OSError:
            tests = 1
        etype, msg = _error_of(report)
        _write({"nodeid": report.nodeid, "outcome": "error", "phase": "collect", "error_type": etype,
                "message": msg[:2000], "tests": tests, "internals": list(_peers_internal.TOUCHED),
                "longrepr_tail": "\n".join(str(report.longrepr).splitlines()[-40:])})
