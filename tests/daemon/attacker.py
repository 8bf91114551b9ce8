#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile local user against jouleprofd (tests/daemon/attack_test.cpp).

Run as an unprivileged user; prints one JSON line of what it got, then exits.
    attacker.py SOCKET connections N SECONDS   open N connections, pipeline requests on
                                              each without ever reading a reply
    attacker.py SOCKET markers SECONDS         open sessions and fill them with markers
                                              until the daemon refuses
    attacker.py SOCKET windows SECONDS         gather every reading the daemon gives (a 1 ms
                                              stream, latest polled, exact reads at once
                                              after each new publication and in between)
                                              and print the shortest window between two
    attacker.py SOCKET scrapes PORT N SECONDS  keep N half-sent requests open to /metrics
                                              on 127.0.0.1:PORT, reopening each one the
                                              daemon closes or refuses
Every loop is bounded by SECONDS; only the given Unix socket (and, for scrapes,
127.0.0.1:PORT) is touched.
"""
import json
import os
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def client(path):
    """A connection and a call(request) -> reply on it, after hello."""
    s = connect(path)
    f = s.makefile("rwb", buffering=0)

    def call(req):
        f.write((json.dumps(req) + "\n").encode())
        return json.loads(f.readline())

    return s, call, call({"op": "hello", "versions": [1]})


def refusal(s, wait=0.5):
    """The daemon's line, if it refused the connection at once."""
    s.settimeout(wait)
    try:
        data = s.recv(4096)
    except (socket.timeout, BlockingIOError):
        return None
    except OSError:
        return None
    if not data:
        return None
    try:
        line = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return None
    return line if line.get("ok") is False and line.get("id") is None else None


def flood(path, count, seconds):
    kept, refused, words = [], 0, ""
    for _ in range(count):
        try:
            s = connect(path)
        except OSError as e:
            refused += 1
            words = str(e)
            continue
        r = refusal(s, 0.2)
        if r is not None:
            refused += 1
            words = r.get("message", "")
            s.close()
            continue
        kept.append(s)
    # Pipelined requests with large replies, never a reply read.
    burst = (b'{"op":"hello","versions":[1]}\n' +
             b'{"op":"channels"}\n{"op":"status"}\n{"op":"sessions"}\n' * 200)
    sent = 0
    deadline = time.monotonic() + seconds
    for s in kept:
        s.setblocking(False)
    while time.monotonic() < deadline:
        progress = False
        for s in kept:
            try:
                sent += s.send(burst)
                progress = True
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                pass  # the daemon closed it: fine, it is bounded
        if not progress:
            time.sleep(0.01)
    print(json.dumps({"kept": len(kept), "refused": refused, "refusal": words,
                      "bytes_sent": sent}), flush=True)
    # Hold the connections (and their unread replies) until told to go.
    sys.stdin.readline()


def markers(path, seconds):
    _, call, _ = client(path)
    name = "m" * 250
    accepted, sessions, refusal_words = 0, 0, ""
    deadline = time.monotonic() + seconds
    while not refusal_words and time.monotonic() < deadline:
        opened = call({"op": "open", "label": "attack"})
        if not opened.get("ok"):
            refusal_words = opened.get("message", "")
            break
        sessions += 1
        for _ in range(100000):
            r = call({"op": "mark", "session": opened["session"], "name": name})
            if not r.get("ok"):
                if "at most" not in r.get("message", "") or "markers" not in r.get("message", ""):
                    refusal_words = r.get("message", "")
                break
            accepted += 1
            if time.monotonic() >= deadline:
                break
    print(json.dumps({"accepted": accepted, "sessions": sessions, "refusal": refusal_words}),
          flush=True)
    sys.stdin.readline()


def windows(path, seconds):
    import threading
    _, call, hello = client(path)
    floored = [c["index"] for c in call({"op": "channels"})["channels"] if c["floored"]]
    watched = floored or [0]  # root sees nothing floored: every channel is fine-grained
    session = call({"op": "open", "label": "windows"})["session"]
    times = {i: set() for i in watched}
    lock = threading.Lock()

    def keep(values):
        with lock:
            for i, t, _ in values:
                if i in times:
                    times[i].add(t)

    deadline = time.monotonic() + seconds

    def stream():
        s = connect(path)
        g = s.makefile("rwb", buffering=0)
        g.write(b'{"op":"hello","versions":[1]}\n')
        g.readline()
        g.write((json.dumps({"op": "stream", "session": session, "interval_ms": 1}) +
                 "\n").encode())
        s.settimeout(0.5)
        while time.monotonic() < deadline:
            try:
                line = g.readline()
            except (socket.timeout, OSError):
                continue
            if not line:
                return
            event = json.loads(line)
            for row in event.get("data", []):  # [channel, first, t0, v0, t1, v1, ...]
                keep([(row[0], t, v) for t, v in zip(row[2::2], row[3::2])])

    streamer = threading.Thread(target=stream, daemon=True)
    streamer.start()
    counts = {"fresh": 0, "reused": 0, "too_soon": 0, "rate_limited": 0, "latest": 0}
    newest = 0
    edge = "start"
    while time.monotonic() < deadline:
        latest = call({"op": "latest", "session": session})
        counts["latest"] += 1
        keep(latest.get("values", []))
        seen = max([t for _, t, _ in latest.get("values", [])] or [0])
        # A new publication: read at once (the attack the floor must hold against);
        # otherwise start and end edges in turn.
        if seen > newest:
            newest, edge = seen, "end"
        r = call({"op": "read", "session": session, "edge": edge})
        edge = "start" if edge == "end" else "end"
        if r.get("ok"):
            counts["reused" if "reused_ns" in r else "fresh"] += 1
            keep(r["values"])
        else:
            counts[r.get("error", "other")] = counts.get(r.get("error", "other"), 0) + 1
    streamer.join(2)
    shortest = None
    readings = 0
    for ts in times.values():
        ordered = sorted(ts)
        readings += len(ordered)
        for a, b in zip(ordered, ordered[1:]):
            shortest = b - a if shortest is None else min(shortest, b - a)
    print(json.dumps({"access": hello.get("access"), "channels": len(watched),
                      "readings": readings, "shortest_ms": None if shortest is None
                      else shortest / 1e6, **counts}), flush=True)


def scrape_socket(port, n):
    """The n-th connection, from one of several sources: plain, another loopback address,
    and a v6 socket sent to a v4-mapped address (plain, and from another address)."""
    kind = n % 4
    if kind < 2:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if kind == 1:
            s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        if kind == 3:
            s.bind(("::ffff:127.0.0.3", 0))
        s.connect(("::ffff:127.0.0.1", port))
    return s


def scrapes(port, count, seconds):
    """The hostile reviews of 2026-11-29: every /metrics slot held by half-sent requests,
    from sources that might each count as another peer."""
    held, refused, words, most_kept, n = [], 0, "", 0, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while len(held) < count and time.monotonic() < deadline:
            s = scrape_socket(port, n)
            n += 1
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
            held.append((s, time.monotonic()))
        time.sleep(0.05)
        for s, since in list(held):  # what the daemon answered (a refusal) or closed goes
            s.setblocking(False)
            try:
                data = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if b" 503 " in data:
                refused += 1
                words = data.split(b"\r\n\r\n", 1)[-1].decode(errors="replace").strip()
            held.remove((s, since))
            s.close()
        # Held by the daemon: open, unanswered, for a second (it had ample time to refuse).
        now = time.monotonic()
        most_kept = max(most_kept, sum(1 for _, since in held if now - since > 1.0))
    print(json.dumps({"most_kept": most_kept, "refused": refused, "refusal": words}),
          flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "connections":
        flood(path, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "markers":
        markers(path, float(sys.argv[3]))
    elif mode == "windows":
        windows(path, float(sys.argv[3]))
    elif mode == "scrapes":
        scrapes(int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
