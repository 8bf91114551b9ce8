#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The man pages, generated from one source each so they cannot drift from it.

    man.py program BINARY SECTION OUT   jouleprof(1), jouleprofd(8): the program's own
                                        --help and every subcommand's, recursively
    man.py config NAME SECTION EXAMPLE OUT
                                        jouleprof.toml(5), jouleprofd.toml(5): the shipped,
                                        annotated example config (its comments are the text)
    man.py check PAGE BINARY            every option and subcommand --help shows is in PAGE

The fixed parts (ENVIRONMENT, FILES, SEE ALSO) are below, one entry per page.
"""
import datetime
import os
import re
import subprocess
import sys

VERSION_RE = re.compile(r"^\S+ (\S+)")
# Where the documentation is installed (cmake/ManPages.cmake passes CMAKE_INSTALL_FULL_DOCDIR).
DOCDIR = os.environ.get("JP_MAN_DOCDIR", "/usr/share/doc/jouleprof")

EXTRA = {
    "jouleprof": {
        "DESCRIPTION": "jouleprof runs a command and measures how much energy the node and its parts "
                       "(CPU packages, DRAM, GPUs, the rest of the node) use while it runs, into one "
                       "trace file; the other commands report, compare, study and sweep such traces. "
                       "Each figure says how it was obtained (measured, estimated, a lower bound) and, "
                       "where known, its bound and the job's share of a shared node. Counters a user "
                       "cannot read are read through the node daemon, jouleprofd(8), when it runs.",
        "EXIT STATUS": "run returns the command's exit status (128+N when it was killed by signal N, "
                       "127 when it could not be found, 126 when it cannot be executed). The other "
                       "commands: 0; 1 when a trace cannot be read or written or a measured command "
                       "failed; 2 for a bad option, argument or configuration, or a file named on "
                       "the command line that does not exist (one line on standard error).",
        "ENVIRONMENT": [
            ("JOULEPROF_SYSFS_ROOT", "Root under which /sys and /proc are read, as --sysfs-root."),
            ("JOULEPROF_SOCKET", "The node daemon's socket (default /run/jouleprof/jouleprofd.sock)."),
            ("JOULEPROF_MARKER_SOCKET", "Set by run for the job: the monitor's marker socket, which "
                                        "jouleprof mark and the C API send to (empty when it could "
                                        "not be made: marks are then ignored)."),
            ("JOULEPROF_TRACE_DIR", "Where run writes a trace without -o (before "
                                    "$XDG_STATE_HOME/jouleprof/traces and "
                                    "~/.local/state/jouleprof/traces)."),
            ("XDG_STATE_HOME", "Base of the default trace directory (default ~/.local/state)."),
            ("JOULEPROF_TRACE", "Set by run for the job: the absolute path of the trace file."),
            ("JOULEPROF_RUN_ID", "Set by run for the job: the run's id in the trace (changes with "
                                 "each repeat)."),
        ],
        "FILES": [
            ("~/.local/state/jouleprof/traces/", "Traces of run (and of the Python layer) given no "
                                                 "-o, made with mode 0700."),
            ("/run/jouleprof/jouleprofd.sock", "The node daemon's socket, used for every channel this "
                                               "user cannot read."),
        ],
        "SEE ALSO": "jouleprof.toml(5), jouleprofd(8), jouleprofd.toml(5); the guides in "
                    "DOCDIR/docs/ (reports.md, markers.md, study.md, attribution.md, "
                    "uncertainty.md).",
    },
    "jouleprofd": {
        "DESCRIPTION": "jouleprofd runs as root, samples every power sensor of the node and serves "
                       "each local user, over a Unix socket, what the site's rules in "
                       "jouleprofd.toml(5) allow: exact readings at a job's start and end and, in "
                       "between, windows no shorter than a floor (with jitter), or full resolution "
                       "for listed groups. It stops on SIGTERM or SIGINT and reloads its "
                       "configuration on SIGHUP.",
        "EXIT STATUS": "0 after SIGTERM or SIGINT; 2 for a bad option or configuration (one line on "
                       "standard error); 1 when it cannot serve (no readable sensor, the socket "
                       "taken by a running daemon).",
        "ENVIRONMENT": [
            ("JOULEPROF_SYSFS_ROOT", "Root under which /sys and /proc are read, as --sysfs-root."),
        ],
        "FILES": [
            ("/etc/jouleprof/jouleprofd.toml", "The configuration read when --config is not given; "
                                               "see jouleprofd.toml(5). It must be owned by root and "
                                               "not writable by group or others."),
            ("/run/jouleprof/jouleprofd.sock", "The socket every local user connects to."),
        ],
        "SEE ALSO": "jouleprofd.toml(5), jouleprof(1); DOCDIR/docs/daemon.md, "
                    "daemon-protocol.md and security.md (the threat model and every bound).",
    },
}

CONFIG_TEXT = {
    "jouleprof.toml": ("configuration of jouleprof",
                       "jouleprof reads a configuration only from the file given with -c (--config); "
                       "without one it uses built-in defaults. Every table and key is optional. "
                       "Unknown tables or keys, values of the wrong type, NaN and infinities are errors "
                       "naming the file, line and key. The annotated example below is the one shipped "
                       "with jouleprof; each comment says what its key does.",
                       "jouleprof(1), jouleprofd.toml(5)"),
    "jouleprofd.toml": ("configuration of the jouleprof node daemon",
                        "jouleprofd reads /etc/jouleprof/jouleprofd.toml, or the file given with "
                        "--config. It must be owned by root (or the daemon's user) and not writable by "
                        "group or others, nor may any folder above it be. SIGHUP reloads it. The "
                        "annotated example below is the one shipped with jouleprofd; each comment says "
                        "what its key does.",
                        "jouleprofd(8), jouleprof.toml(5)"),
}


def roff(text):
    """Text made safe for roff: backslashes, leading dots and quotes, hyphens of options."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def help_of(binary, path):
    r = subprocess.run([binary, *path, "--help"], capture_output=True, text=True, check=True,
                       env=dict(os.environ, COLUMNS="200"))
    return r.stdout


def parse_help(text):
    """(description, usage, {section: [(name, description)]}) of CLI11's --help."""
    lines = text.splitlines()
    description = lines[0].strip() if lines else ""
    usage = ""
    sections = {}
    current = None
    pending = None
    for line in lines[1:]:
        if line.startswith("Usage:"):
            usage = line[len("Usage:"):].strip()
        elif re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = line[:-1]
            sections[current] = []
        elif current and line.startswith("  ") and line.strip():
            m = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", line)
            if pending is not None and line.startswith(" " * 10):
                sections[current].append((pending, line.strip()))
                pending = None
            elif m and m.group(2):
                sections[current].append((m.group(1).strip(), m.group(2).strip()))
            elif m:
                pending = m.group(1).strip()
    return description, usage, sections


def option_names(name):
    """The option names of a help entry: "-i,--interval TEXT" -> ["-i", "--interval"]."""
    head = name.split(" ")[0]
    head = re.sub(r"\{[^}]*\}", "", head)
    return [n for n in head.split(",") if n.startswith("-")]


def commands(binary, path=()):
    """[(path, description, usage, sections)] for the program and every subcommand."""
    description, usage, sections = parse_help(help_of(binary, list(path)))
    out = [(path, description, usage, sections)]
    for sub, _ in sections.get("Subcommands", []):
        out += commands(binary, (*path, sub.split()[0]))
    return out


def entries(sections, skip=("Subcommands",)):
    body = []
    for section, items in sections.items():
        if section in skip or not items:
            continue
        for name, text in items:
            if name.startswith("-h,--help"):
                continue
            shown = roff(re.sub(r"{[^}]*}", "", name))
            body += [".TP", f"\\fB{shown}\\fR", roff(text)]
    return body


def header(name, section, title):
    date = datetime.datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or
                                           datetime.datetime.now().timestamp(), datetime.timezone.utc)
    upper = name.upper()
    return [f'.TH {upper} {section} "{date:%Y-%m-%d}" "jouleprof" "{title}"']


def program_page(binary, section, out):
    name = os.path.basename(binary)
    version = VERSION_RE.match(subprocess.run([binary, "--version"], capture_output=True, text=True,
                                              check=True).stdout).group(1)
    tree = commands(binary)
    (_, description, usage, sections) = tree[0]
    description = description.removeprefix(name + ":").strip()
    extra = EXTRA.get(name, {})
    page = header(name, section, f"jouleprof {version}")
    page += [".SH NAME", f"{name} \\- {roff(description)}", ".SH SYNOPSIS", f"\\fB{roff(usage)}\\fR"]
    page += [".SH DESCRIPTION", roff(extra.get("DESCRIPTION", description))]
    page += [".SH OPTIONS"] + entries(sections)
    if len(tree) > 1:
        page += [".SH COMMANDS"]
        for path, desc, use, secs in tree[1:]:
            page += [f'.SS "{" ".join(path)}"', roff(desc) + ".", ".PP", f"\\fB{roff(use)}\\fR"]
            page += entries(secs)
            subs = secs.get("Subcommands", [])
            if subs:
                page += [".PP", "Subcommands: " + ", ".join(s.split()[0] for s, _ in subs) + "."]
    for title in ("ENVIRONMENT", "FILES"):
        if extra.get(title):
            page += [f".SH {title}"]
            for key, text in extra[title]:
                page += [".TP", f"\\fB{key}\\fR", roff(text)]
    if extra.get("EXIT STATUS"):
        page += [".SH EXIT STATUS", roff(extra["EXIT STATUS"])]
    if extra.get("SEE ALSO"):
        page += [".SH SEE ALSO", roff(extra["SEE ALSO"].replace("DOCDIR", DOCDIR))]
    write(out, page)


def config_page(name, section, example, out):
    title, text, see_also = CONFIG_TEXT[name]
    page = header(name, section, "jouleprof")
    page += [".SH NAME", f"{name} \\- {title}", ".SH DESCRIPTION", roff(text), ".SH EXAMPLE", ".nf"]
    with open(example, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# SPDX-License-Identifier"):
                continue
            page.append(roff(line) if line else "")
    page += [".fi", ".SH SEE ALSO", roff(see_also)]
    write(out, page)


def write(out, page):
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")


def check(page_path, binary):
    """Every option and subcommand of every --help is in the page, and no option's name in
    --help carries an artefact such as "--no-live{false}": exit 1 naming each."""
    with open(page_path, encoding="utf-8") as f:
        page = f.read().replace("\\-", "-")
    missing = []
    for path, _, _, sections in commands(binary):
        where = " ".join((os.path.basename(binary), *path))
        for section, items in sections.items():
            for name, _ in items:
                if section == "Subcommands":
                    sub = " ".join((*path, name.split()[0]))
                    if f'.SS "{sub}"' not in page:
                        missing.append(f"{where}: subcommand {name.split()[0]} not in the page")
                    continue
                if "{" in name.split(" ")[0]:
                    missing.append(f"{where}: {name.split(' ')[0]} shows CLI11's default in its name")
                for opt in option_names(name):
                    if opt != "-h" and opt != "--help" and opt not in page:
                        missing.append(f"{where}: {opt} not in the page")
    if missing:
        print(f"{page_path}: " + "; ".join(missing), file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "program":
        program_page(argv[2], argv[3], argv[4])
    elif len(argv) == 6 and argv[1] == "config":
        config_page(argv[2], argv[3], argv[4], argv[5])
    elif len(argv) == 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
