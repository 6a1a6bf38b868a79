#!/usr/bin/env python3
"""Types keys into the guest's qemu USB keyboard over QMP, once the guest asks for them.

usage: qmp-keys.py QMP_SOCKET READY_FILE KEY... (qemu qcodes: ret, spc, tab, esc, a, ...)
Waits (up to 300 s) for READY_FILE, which the guest scenario creates when its reader runs,
then presses and releases each key with a pause, and writes READY_FILE + '.done'."""
import json
import os
import socket
import sys
import time


def main():
    sock_path, ready, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    deadline = time.time() + 300
    while not os.path.exists(ready):
        if time.time() > deadline:
            sys.exit("qmp-keys: the guest never became ready")
        time.sleep(0.2)
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    f = s.makefile("rw")

    def command(name, arguments=None):
        message = {"execute": name}
        if arguments is not None:
            message["arguments"] = arguments
        f.write(json.dumps(message) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                return reply

    json.loads(f.readline())  # the greeting
    command("qmp_capabilities")
    for key in keys:
        for down in (True, False):
            event = {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": key}}}
            reply = command("input-send-event", {"events": [event]})
            if "error" in reply:
                sys.exit("qmp-keys: %s" % reply["error"])
            time.sleep(0.08)
        time.sleep(0.6)
    open(ready + ".done", "w").close()


main()
