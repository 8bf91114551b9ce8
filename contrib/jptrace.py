#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read a jouleprof trace (schema 1 or 2) with Python's standard library only.

A reference for docs/trace-format.md: it decodes the sample blocks of schema 2
exactly as described there, without jouleprof's code.

    python3 contrib/jptrace.py TRACE            # one line per sample:
    run_id channel t_ns value flags             # value as float.hex(), exact

    import jptrace; for run_id, channel, t_ns, value, flags in jptrace.samples("job.jptrace"): ...
"""
import sqlite3
import struct
import sys

MASK = (1 << 64) - 1


def _varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def decode_block(data, count):
    """The (t_ns, value, flags) of one block, in the order written."""
    out, pos = [], 0
    t = dt = bits = 0
    for _ in range(count):
        header = data[pos]
        pos += 1
        length, shift = header & 0x0F, (header >> 4) & 0x07
        flags = 0
        if header & 0x80:
            flags = data[pos]
            pos += 1
        zz, pos = _varint(data, pos)
        dod = (zz >> 1) ^ -(zz & 1)  # zigzag
        dt = (dt + dod) & MASK
        t = (t + dt) & MASK
        x = int.from_bytes(data[pos:pos + length], "little") << (8 * shift)
        pos += length
        bits ^= x
        t_signed = t - (1 << 64) if t >> 63 else t
        out.append((t_signed, struct.unpack("<d", bits.to_bytes(8, "little"))[0], flags))
    if pos != len(data):
        raise ValueError("corrupt block: bytes left over")
    return out


def samples(path):
    """Every sample of every run: (run_id, channel name, t_ns, value, flags), by time per channel."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    version = con.execute("PRAGMA user_version").fetchone()[0]
    names = dict(con.execute("SELECT id, name FROM channel"))
    if version == 1:
        rows = con.execute("SELECT run_id, channel_id, t_ns, value, flags FROM sample "
                           "ORDER BY run_id, channel_id, t_ns")
        for run_id, channel_id, t_ns, value, flags in rows:
            yield run_id, names[channel_id], t_ns, value, flags
        return
    if version != 2:
        raise ValueError(f"trace schema version {version} (this reads 1 and 2)")
    current, pending = None, []
    rows = con.execute("SELECT run_id, channel_id, count, data FROM block "
                       "ORDER BY run_id, channel_id, t_min_ns, id")
    for run_id, channel_id, count, data in rows:
        if (run_id, channel_id) != current:
            yield from _sorted(current, pending, names)
            current, pending = (run_id, channel_id), []
        pending.extend(decode_block(data, count))
    yield from _sorted(current, pending, names)


def _sorted(key, pending, names):
    if key is None:
        return
    run_id, channel_id = key
    for t_ns, value, flags in sorted(pending, key=lambda s: s[0]):  # stable: equal times keep order
        yield run_id, names[channel_id], t_ns, value, flags


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: jptrace.py TRACE")
    for run_id, channel, t_ns, value, flags in samples(sys.argv[1]):
        print(run_id, channel, t_ns, value.hex(), flags)
