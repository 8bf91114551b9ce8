# SPDX-License-Identifier: BSD-3-Clause
"""The example notebook executed headless by Debian's jupyter nbconvert, with the magics."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from fake_node import FakeNode

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent.parent / "examples" / "notebook_energy.ipynb"
JUPYTER = "/usr/bin/jupyter"
IDLE_S = 1.5


def run_notebook(notebook: Path, node: FakeNode) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JOULEPROF_SYSFS_ROOT=str(node.root),
               XDG_STATE_HOME=str(notebook.parent / "state"),
               JOULEPROF_CONFIG=str(node.config), JP_NOTEBOOK_IDLE_S=str(IDLE_S),
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    return subprocess.run([JUPYTER, "nbconvert", "--to", "notebook", "--execute",
                           "--config", str(HERE / "nbconvert_idle.py"),
                           "--output", notebook.stem + ".out.ipynb", str(notebook)],
                          env=env, capture_output=True, text=True, timeout=240,
                          cwd=notebook.parent)


def text_of(cell: nbformat.NotebookNode) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", "") or o.get("data", {}).get("text/plain", ""))
    return "".join(out)


@pytest.fixture()
def node(tmp_path: Path) -> FakeNode:
    if not Path(JUPYTER).exists():
        pytest.skip("no /usr/bin/jupyter (apt install jupyter-nbconvert python3-ipykernel)")
    fake = FakeNode(tmp_path / "node")
    yield fake
    fake.stop()


def test_example_notebook_shows_cells_and_idle_energy(node: FakeNode, tmp_path: Path) -> None:
    notebook = tmp_path / EXAMPLE.name
    shutil.copy(EXAMPLE, notebook)
    r = run_notebook(notebook, node)
    assert r.returncode == 0, r.stderr
    out = nbformat.read(tmp_path / (notebook.stem + ".out.ipynb"), as_version=4)
    cells = {c.source.splitlines()[0]: c for c in out.cells if c.cell_type == "code"}
    train = cells["%%jouleprof --label train"]
    assert "'train'" in text_of(train)
    html = "".join(o.get("data", {}).get("text/html", "") for o in train.outputs)
    assert "cpu0.package" in html and "<svg" in html and "<table" in html
    for magic in ("%jouleprof report", "%jouleprof stop"):
        report = text_of(cells[magic])
        m = re.search(r"cells ([\d.]+) J, idle ([\d.]+) J of node ([\d.]+) J", report)
        assert m, report
        cells_j, idle_j, node_j = map(float, m.groups())
        assert cells_j > 0 and idle_j > 0 and cells_j + idle_j <= node_j * 1.001
        assert "# load the data" in report and "idle" in report
    stop = text_of(cells["%jouleprof stop"])
    idle_row = re.search(r"^idle\s+(\d+)\s+([\d.]+)", stop, re.M)
    assert idle_row, stop
    # Four pauses before tagged cells while measured (the last after `report`'s cell).
    assert int(idle_row.group(1)) >= 4 and float(idle_row.group(2)) >= 3 * IDLE_S
    # The default trace goes to the XDG state directory, not beside the notebook.
    traces = list((tmp_path / "state" / "jouleprof" / "traces").glob("jouleprof-*.jptrace"))
    assert len(traces) == 1
    assert not list(tmp_path.glob("*.jptrace"))


def test_a_failing_measured_cell_fails_the_notebook(node: FakeNode, tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext jouleprof"),
                nbformat.v4.new_code_cell("%%jouleprof --label bad\n"
                                          "raise ValueError('boom in a measured cell')"),
                nbformat.v4.new_code_cell("open('reached', 'w').close()")]
    notebook = tmp_path / "failing.ipynb"
    nbformat.write(nb, notebook)
    r = run_notebook(notebook, node)
    assert r.returncode != 0
    assert "boom in a measured cell" in r.stderr
    assert not (tmp_path / "reached").exists()
