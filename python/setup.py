# SPDX-License-Identifier: BSD-3-Clause
"""Builds jouleprof._core with the project's CMake (the repository is this folder's parent).

$JOULEPROF_BUILD_DIR reuses a configured build directory instead of a new one;
$CMAKE_BUILD_PARALLEL_LEVEL limits the jobs (default 2). Everything setuptools makes
(build/, jouleprof.egg-info/) goes to a temporary directory removed at the end, so
`pip install ./python` leaves the source tree as it was.
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build = Path(os.environ.get("JOULEPROF_BUILD_DIR") or Path(self.build_temp) / "cmake")
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release", "-DJP_BUILD_TESTS=OFF",
                                   "-DJP_BUILD_BENCH=OFF", "-DJP_BUILD_PYTHON=ON",
                                   f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(["cmake", "--build", str(build), "--target", "jp_python_core",
                               "-j", jobs])
        built = sorted((build / "python" / "jouleprof").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"the build in {build} made no jouleprof/_core*.so")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


OUT = Path(tempfile.mkdtemp(prefix="jouleprof-setup-"))
atexit.register(shutil.rmtree, OUT, ignore_errors=True)

setup(ext_modules=[Extension("jouleprof._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": str(OUT / "build")}, "egg_info": {"egg_base": str(OUT)}})
