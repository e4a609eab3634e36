#!/usr/bin/env python3
"""Runs the README's examples (fenced blocks whose first line is "# example" or "// example")
in a folder holding model.onnx (a copy of examples/dirty.onnx): Python with the package of the
build tree, C and C++ compiled against an installed prefix (pkg-config onnxtrim).

usage: readme_examples.py SOURCE_DIR PREFIX PYTHONPATH"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

src, prefix, pythonpath = sys.argv[1:4]
text = open(os.path.join(src, "README.md")).read()
blocks = re.findall(r"```(python|c|cpp)\n((?:#|//) example\n.*?)```", text, re.S)
kinds = sorted({k for k, _ in blocks})
if kinds != ["c", "cpp", "python"]:
    print(f"readme_examples: expected a python, a c and a cpp example in README.md, found {kinds}")
    sys.exit(1)
env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"), PYTHONPATH=pythonpath)
flags = subprocess.run(["pkg-config", "--cflags", "--libs", "onnxtrim"], env=env, capture_output=True, text=True,
                       check=True).stdout.split()
passed = failed = 0
for kind, code in blocks:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(src, "examples", "dirty.onnx"), os.path.join(tmp, "model.onnx"))
        try:
            if kind == "python":
                cmd = ["/usr/bin/python3", "-c", code]
            else:
                ext = ".c" if kind == "c" else ".cpp"
                with open(os.path.join(tmp, "example" + ext), "w") as f:
                    f.write(code)
                compiler = ["cc", "-std=c11"] if kind == "c" else ["c++", "-std=c++17"]
                subprocess.run([*compiler, "example" + ext, "-o", "example", *flags,
                                f"-Wl,-rpath,{os.path.join(prefix, 'lib')}"], cwd=tmp, check=True, env=env)
                cmd = ["./example"]
            r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
            if r.returncode != 0 or not os.path.exists(os.path.join(tmp, "model.simplified.onnx")):
                raise RuntimeError(f"exit {r.returncode}: {r.stderr.strip()[:400]}")
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL: the README's {kind} example: {e}")
print(f"readme_examples: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
