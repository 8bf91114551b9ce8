#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fails when a tracked file names a path that leaves the repository.

A user's clone has nothing beside it, so CMake files, tests, scripts, studies,
benchmarks and docs may only name paths inside the repository (data/ holds the
data). Checked in every tracked text file:
  - a relative path with ../ that, resolved from the file's own folder (or from
    the source root after ${PROJECT_SOURCE_DIR}/ or ${CMAKE_SOURCE_DIR}/ in CMake,
    or after $here/ in a script where here is the repository root), ends outside
    the repository;
  - the steering material's folders by name (shared/data, shared/bench,
    shared/research), wherever they appear.
A line that names such a path for another tree (a link inside a captured sysfs
tree) says so with "check-paths: not in this repository" on it or the line above.
Prints each finding as FILE:LINE: PATH and exits 1; exits 0 with a count when clean.
    scripts/check_paths.py            (from anywhere inside the repository)
"""
import os
import re
import subprocess
import sys

root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                      check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, check=True, cwd=root).stdout.decode().split("\0")

# ../ runs, with whatever prefix stands before them on the line.
relative = re.compile(r"(\$\{(?:PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR)\}/)?"
                      r"((?:\.\./)+[\w.+-]*)")
named = re.compile(r"\bshared/(?:data|bench|research)\b")
skip_dirs = ("data/", "fuzz/corpus/")  # third-party data; fuzz inputs are bytes, not paths
findings = []
checked = 0
for rel in files:
    if not rel or rel.startswith(skip_dirs) or rel == "scripts/check_paths.py":
        continue
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        continue
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except (UnicodeDecodeError, OSError):
        continue  # binary
    checked += 1
    here = os.path.dirname(path)
    for number, line in enumerate(lines, 1):
        marker = "check-paths: not in this repository"
        if marker in line or (number > 1 and marker in lines[number - 2]):
            continue
        for m in named.finditer(line):
            findings.append(f"{rel}:{number}: {m.group(0)} (outside the repository)")
        for m in relative.finditer(line):
            prefix, target = m.group(1), m.group(2)
            if prefix and "CURRENT" not in prefix:
                base = root
            else:
                base = here
            resolved = os.path.normpath(os.path.join(base, target))
            if os.path.relpath(resolved, root).startswith(".."):
                findings.append(f"{rel}:{number}: {m.group(0)} (resolves to {resolved})")

if findings:
    print("paths that leave the repository (a clone has nothing beside it):")
    print("\n".join(findings))
    sys.exit(1)
print(f"check_paths: {checked} files, no path leaves the repository")
