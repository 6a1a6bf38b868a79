"""Mutter's monitor layout, read and changed through org.gnome.Mutter.DisplayConfig.

    mutter-monitors.py                      prints [[x, y, connector], ...] as JSON
    mutter-monitors.py C1 X1 Y1 S1 [C2 X2 Y2 S2]  lays the monitors out there at scale S
                                                  (C1 primary), each in its current mode,
                                                  until GNOME Shell ends
"""
import json
import sys

from gi.repository import Gio, GLib

bus = Gio.bus_get_sync(Gio.BusType.SESSION)


def call(method, args=None):
    return bus.call_sync("org.gnome.Mutter.DisplayConfig", "/org/gnome/Mutter/DisplayConfig",
                         "org.gnome.Mutter.DisplayConfig", method, args, None, 0, -1, None)


serial, monitors, logical, _ = call("GetCurrentState").unpack()
if len(sys.argv) == 1:
    print(json.dumps([[m[0], m[1], m[5][0][0]] for m in logical]))
    sys.exit(0)
mode = {m[0][0]: next(md[0] for md in m[1] if md[6].get("is-current")) for m in monitors}
a = sys.argv[1:]
layout = [(int(a[i + 1]), int(a[i + 2]), float(a[i + 3]), 0, i == 0, [(a[i], mode[a[i]], {})]) for i in range(0, len(a), 4)]
# Method 1: temporary (no confirmation dialog, nothing written to monitors.xml).
call("ApplyMonitorsConfig", GLib.Variant("(uua(iiduba(ssa{sv}))a{sv})", (serial, 1, layout, {})))
