"""Builds the extension module onnxtrim._onnxtrim with CMake (offline: Debian's pybind11).

ONNXTRIM_CMAKE_BUILD_DIR reuses a configured build tree (the test suite passes its own);
otherwise a Release tree in build/python is configured and only the module is built."""
import os
import re
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        return re.search(r"project\(onnxtrim VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("ONNXTRIM_CMAKE_BUILD_DIR") or os.path.join(HERE, "build", "python")
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DONNXTRIM_BUILD_TESTS=OFF", "-DONNXTRIM_BUILD_BENCH=OFF",
                                   f"-DPython3_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("JOBS", "2")
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_onnxtrim", "-j", jobs])
        built = None
        folder = os.path.join(build_dir, "python", "onnxtrim")
        for name in os.listdir(folder):
            if name.startswith("_onnxtrim") and name.endswith(".so"):
                built = os.path.join(folder, name)
        if not built:
            raise RuntimeError(f"the CMake build left no _onnxtrim module in {folder}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        self.copy_file(built, dest)


setup(version=version(), ext_modules=[Extension("onnxtrim._onnxtrim", sources=[])], cmdclass={"build_ext": CMakeBuild})
