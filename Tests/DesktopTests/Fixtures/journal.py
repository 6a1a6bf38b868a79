#!/usr/bin/python3
"""Stands in for journald in the user-manager tests, where none runs: it listens on
journald's two sockets in FOLDER (normally /run/systemd/journal) and appends one line an
entry to LOG, so a test reads what the journal would have kept.

    journal.py FOLDER LOG

- `stdout`: the stream socket systemd connects a unit's stdout and stderr to. Seven header
  lines (identifier, unit, priority, level prefix, forward to syslog, kmsg, console), then
  the output, an entry a line; logged as "UNIT: line", the unit found from the writer's
  cgroup where the header leaves it out.
- `socket`: datagrams of the native protocol (the manager's own messages with
  --log-target=journal): KEY=value lines, or KEY, a newline, a 64-bit little-endian length
  and the value; logged as "systemd: MESSAGE" with " (UNIT)" when it names a unit.
"""
import os
import socket
import struct
import sys
import threading

folder, log_path = sys.argv[1], sys.argv[2]
log = open(log_path, "a", buffering=1)
lock = threading.Lock()


def write(line):
    with lock:
        log.write(line + "\n")


def unit_of(conn):
    """The unit of the process at the other end, from its cgroup (as journald finds it: a
    user manager leaves the header's unit empty)."""
    pid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[0]
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            for line in f:
                name = line.rstrip("\n").rsplit("/", 1)[-1]
                if name.endswith(".service"):
                    return name
    except OSError:
        pass
    return ""


def serve_stream(conn, owner):
    with conn, conn.makefile("r", encoding="utf-8", errors="replace") as stream:
        header = [stream.readline().rstrip("\n") for _ in range(7)]
        unit = header[1] or owner or header[0]
        for line in stream:
            write(f"{unit}: {line.rstrip(chr(10))}")


def fields(data):
    found = {}
    i = 0
    while i < len(data):
        end = data.find(b"\n", i)
        if end < 0:
            end = len(data)
        line = data[i:end]
        if b"=" in line:
            key, value = line.split(b"=", 1)
            i = end + 1
        else:
            size = struct.unpack("<Q", data[end + 1:end + 9])[0]
            key, value = line, data[end + 9:end + 9 + size]
            i = end + 9 + size + 1
        found[key.decode(errors="replace")] = value.decode(errors="replace")
    return found


def serve_datagrams(sock):
    while True:
        entry = fields(sock.recv(1 << 20))
        unit = entry.get("USER_UNIT") or entry.get("UNIT")
        write("systemd: " + entry.get("MESSAGE", "").replace("\n", " ") + (f" ({unit})" if unit else ""))


def bind(kind, name):
    path = os.path.join(folder, name)
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, kind)
    s.bind(path)
    return s


datagrams = bind(socket.SOCK_DGRAM, "socket")
threading.Thread(target=serve_datagrams, args=(datagrams,), daemon=True).start()
stream = bind(socket.SOCK_STREAM, "stdout")  # last: its being there says both are ready
stream.listen(16)
while True:
    conn, _ = stream.accept()
    threading.Thread(target=serve_stream, args=(conn, unit_of(conn)), daemon=True).start()
