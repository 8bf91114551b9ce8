#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""clang-tidy over the given files, skipping those already found clean.

A file is checked again only when something clang-tidy sees has changed: the
key of a file is the SHA-256 of its preprocessed text (every header it
includes, without line markers, so the folder it was built in does not count),
its compile flags (the source folder's path taken out), the .clang-tidy file and
clang-tidy's version. A clean result is remembered under that key in the cache
folder ($JP_TIDY_CACHE, default ~/.cache/jouleprof-tidy); a finding never is.

The keys of the files last found clean are also committed, in .ci/tidy-clean.txt
("KEY PATH" a line): a fresh clone (CI's machine, with an empty cache) checks
only the files whose key is not there, the ones changed since. --record writes
that file: each file of this run found clean gets its key, the lines of files
not in this run are kept while the file exists. Keys come only from clean runs
of clang-tidy; a file whose key cannot be made is always checked.
Files run in parallel (-j). Exits 1 on any finding, printing clang-tidy's output.
    scripts/tidy.py -p BUILD_DIR [-j N] [--tidy clang-tidy-19] [--record] FILE...
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys


def compile_commands(build_dir):
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    return {os.path.realpath(os.path.join(e["directory"], e["file"])): e for e in entries}


def key_of(entry, source_root, fixed):
    """The cache key, or None when the file cannot be preprocessed (then tidy runs)."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    # Preprocess only: drop the output, keep every flag that changes what is parsed.
    pre, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a in ("-c",) or a.startswith(("-MF", "-MT", "-MQ")) or a in ("-MD", "-MMD"):
            if a in ("-MF", "-MT", "-MQ"):
                skip = True
            continue
        pre.append(a)
    try:
        out = subprocess.run(pre + ["-E", "-P"], cwd=entry["directory"],
                             capture_output=True, check=True).stdout
    except (subprocess.CalledProcessError, OSError):
        return None
    h = hashlib.sha256()
    h.update(fixed)
    h.update(" ".join(pre).replace(source_root, "<src>").encode())
    h.update(out.replace(source_root.encode(), b"<src>"))  # __FILE__ names the clone's folder
    return h.hexdigest()


def read_manifest(path):
    """{relative path: key} from the committed manifest; empty when there is none."""
    entries = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    entries[parts[1]] = parts[0]
    except FileNotFoundError:
        pass
    return entries


def write_manifest(path, manifest, clean_keys, files, source_root):
    """The manifest with this run's clean files' keys; a file of this run with a finding
    (or no key) loses its line, lines of files outside this run stay while they exist."""
    entries = dict(manifest)
    for file in files:
        rel = os.path.relpath(os.path.realpath(file), source_root)
        if file in clean_keys:
            entries[rel] = clean_keys[file]
        else:
            entries.pop(rel, None)
    entries = {p: k for p, k in entries.items() if os.path.exists(os.path.join(source_root, p))}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("# clang-tidy keys of the files last found clean: scripts/tidy.sh --record\n")
        for p in sorted(entries):
            f.write(f"{entries[p]} {p}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-p", dest="build", required=True)
    ap.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--tidy", default="clang-tidy-19")
    ap.add_argument("--record", action="store_true",
                    help="write the clean files' keys to the committed manifest")
    ap.add_argument("files", nargs="+")
    opt = ap.parse_args()

    source_root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=True).stdout.strip()
    cache = os.environ.get("JP_TIDY_CACHE") or os.path.expanduser("~/.cache/jouleprof-tidy")
    os.makedirs(cache, exist_ok=True)
    version = subprocess.run([opt.tidy, "--version"], capture_output=True, check=True).stdout
    with open(os.path.join(source_root, ".clang-tidy"), "rb") as f:
        fixed = version + f.read()
    db = compile_commands(opt.build)
    manifest_path = os.environ.get("JP_TIDY_MANIFEST") or os.path.join(source_root, ".ci",
                                                                       "tidy-clean.txt")
    manifest = read_manifest(manifest_path)
    committed = set(manifest.values())
    clean_keys = {}

    def one(file):
        entry = db.get(os.path.realpath(file))
        if entry is None:
            return file, 1, f"{file}: not in {opt.build}/compile_commands.json\n", False
        key = key_of(entry, source_root, fixed)
        if key and (key in committed or os.path.exists(os.path.join(cache, key))):
            clean_keys[file] = key
            return file, 0, "", True
        r = subprocess.run([opt.tidy, "-p", opt.build, "--quiet", file], capture_output=True,
                           text=True)
        text = r.stdout + r.stderr
        # clang-tidy counts suppressed warnings on stderr even when clean.
        clean = r.returncode == 0 and "warning:" not in r.stdout and "error:" not in r.stdout
        if clean and key:
            open(os.path.join(cache, key), "w").close()
            clean_keys[file] = key
        return file, 0 if clean else 1, text if not clean else "", False

    failed = reused = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opt.jobs) as pool:
        for file, rc, text, cached in pool.map(one, opt.files):
            reused += cached
            if rc:
                failed += 1
                sys.stdout.write(text)
    if opt.record:
        write_manifest(manifest_path, manifest, clean_keys, opt.files, source_root)
    print(f"tidy: {len(opt.files)} files, {reused} unchanged since a clean check, "
          f"{len(opt.files) - reused - failed} checked clean, {failed} with findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
