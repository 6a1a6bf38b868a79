"""The screen as KWin draws it, written to a PPM file: KWin's ScreenShot2 interface over the
session bus (OpenGL compositing only; the test session lets any caller ask).

usage: kwin-shot.py WIDTH HEIGHT OUT.ppm
"""
import os
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

width, height, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
r, w = os.pipe()
fds = Gio.UnixFDList.new()
fds.append(w)
os.close(w)
reply, _ = bus.call_with_unix_fd_list_sync(
    "org.kde.KWin", "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2", "CaptureArea",
    GLib.Variant("(iiuua{sv}h)", (0, 0, width, height, {}, 0)), GLib.VariantType("(a{sv})"),
    Gio.DBusCallFlags.NONE, 10000, fds, None)
info = reply.unpack()[0]
# The file list keeps a copy of the write end: read exactly the image, never to the end.
del fds
size = info["height"] * info["stride"]
data = bytearray()
while len(data) < size:
    chunk = os.read(r, size - len(data))
    if not chunk:
        sys.exit("KWin's screenshot ended after %d of %d bytes" % (len(data), size))
    data += chunk
# QImage's ARGB32 (premultiplied for an area; opaque on screen): B, G, R, A in memory.
w, h, stride = info["width"], info["height"], info["stride"]
if stride != w * 4:
    data = b"".join(data[y * stride:y * stride + w * 4] for y in range(h))
rgb = bytearray(w * h * 3)
rgb[0::3], rgb[1::3], rgb[2::3] = data[2::4], data[1::4], data[0::4]
with open(out + ".new", "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (w, h))
    f.write(rgb)
os.rename(out + ".new", out)
