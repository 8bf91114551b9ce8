# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures: a fake node (powercap tree + profile writer) for every measuring test."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

import jouleprof
from fake_node import FakeNode


@pytest.fixture()
def node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeNode]:
    fake = FakeNode(tmp_path / "node")
    monkeypatch.setenv("JOULEPROF_SYSFS_ROOT", str(fake.root))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # default traces land there
    monkeypatch.delenv("JOULEPROF_TRACE_DIR", raising=False)
    jouleprof.close()
    jouleprof.configure(config=str(fake.config), interval=0.1)
    try:
        yield fake
    finally:
        jouleprof.close()
        fake.stop()


def jouleprof_binary() -> str:
    """The CLI built with the package (CTest passes its path)."""
    path = os.environ.get("JP_BINARY", "")
    if not path:
        pytest.skip("JP_BINARY is not set (run through ctest)")
    return path
