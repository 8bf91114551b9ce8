# SPDX-License-Identifier: BSD-3-Clause
# nbconvert config (--config): before each cell tagged "idle-before", wait as a
# person reading the notebook would, so the headless run has idle time between cells.
import os
import time


def pause(cell, cell_index, **kwargs):
    if "idle-before" in cell.get("metadata", {}).get("tags", []):
        time.sleep(float(os.environ.get("JP_NOTEBOOK_IDLE_S", "1.5")))


c = get_config()  # noqa: F821 (defined by traitlets when it loads this file)
c.ExecutePreprocessor.on_cell_execute = pause
