#!/usr/bin/python3
"""SwitchScan's GTK3 test fixture: a real application for the desktop tests.

Run it with /usr/bin/python3 (Debian's python3-gi and gir1.2-gtk-3.0); the pyenv python
on PATH has no gi. Every state change is printed as one line on stdout, flushed at once,
so that a test can wait for it:

    ready                      the window is mapped (printed once)
    drawn                      its first frame is drawn and the X server has it (once)
    clicked Btn 1              Btn 1, Btn 2 or Btn 3 was clicked (the status label changes too)
    check True|False           "Check me" toggled
    toggled True|False         "Toggle" toggled
    scale 55.0                 "Volume" changed value
    dialog open                the modal "Confirm" dialog is shown
    dialog closed OK|Cancel|delete
    removed Btn 3              "Remove Btn 3" removed it (container.remove: children-changed:remove)
    removed nothing            ... clicked again
    expander True|False        the "Details" expander opened or closed (its action: activate)
    combo Green                the combo box's choice changed (its list is a popup menu)
    expanded Fruits            the tree row was expanded (table cell action "expand or contract")
    collapsed Fruits
    activated Apple            a tree row was activated (table cell action "activate", not the first)
    key Escape                 a key was pressed in the window (its GDK name)
    context menu Context Target   (--gestures) the button was right-clicked (button 3)
    double click Context Target   (--gestures) the button was double-clicked
    scrolled 160.0             (--gestures) the list "Rows" scrolled to this position
    text Message: Hello        (--typing) the text of an entry changed: "Message" or "Password"
                               (--dialog-entry: "Answer", in the Question dialog)
    run open                   (--menus) File > Run Dialog... or the "Run Dialog" button showed
                               the modal "Question" dialog through gtk_dialog_run
    run closed Yes|No|delete   ... and gtk_dialog_run returned
    popup Copy|Paste           (--menus) an item of the "Popup Menu" button's context menu
    terminated                 SIGTERM or SIGINT; the fixture then exits with status 0
    quit                       --quit-after elapsed, or the window was closed

Flags:
    --title T        window title (default "SwitchScan Fixture")
    --app-name N     the program name, which is the application's name on the AT-SPI desktop
                     (default "switchscan-fixture")
    --move X Y       ask for this window position (the window manager may adjust it)
    --quit-after S   quit after S seconds
    --typing         a window of text fields instead: "Message", "Password" and a "Send" button
    --ticker         a label first in the window whose text ("tick N") changes every millisecond
    --many N         N labels ("Item 1" … "Item N") in a grid bigger than the screen, with one
                     button ("Many 1" …) every hundred: a big application's window
    --gestures       a window for the Gestures page instead: a button "Context Target" that
                     logs right and double clicks, and a list "Rows" of 60 rows in a scrolled
                     window 200 pixels high
    --menus          a menu bar first in the window (File: "Run Dialog...", "Quit"), a "Run
                     Dialog" button (gtk_dialog_run from a click) and a "Popup Menu" button
                     whose click pops up a context menu ("Copy", "Paste")
    --dialog-entry   (with --menus) the Question dialog has a text field "Answer" too
    --fields         fields with text and values first in the window: entries "Short" ("Hello
                     there"), "Long" (300 digits), "Empty" and a password field "Secret"
                     ("hunter2"), a spin button "Count" (7 of 0 to 20, step 1) beside them,
                     and a slider "Level" (30 of 0 to 100, step 10) alone in a box of its own
    --slow MS        answer slowly but steadily: stopped for MS milliseconds after every 2 ms
                     it runs
    --stall MS       on each SIGUSR1, busy for MS milliseconds (working on the CPU, answering
                     nothing), as a big application is while it builds what it was asked for;
                     the busy time starts 0, 10, … 230 ms after the signal, in turn
"""
import argparse
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Atk", "1.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Atk, Gdk, GLib, Gtk  # noqa: E402


def log(message):
    print(message, flush=True)


parser = argparse.ArgumentParser()
parser.add_argument("--title", default="SwitchScan Fixture")
parser.add_argument("--app-name", default="switchscan-fixture")
parser.add_argument("--move", nargs=2, type=int, metavar=("X", "Y"))
parser.add_argument("--quit-after", type=float)
parser.add_argument("--typing", action="store_true")
parser.add_argument("--ticker", action="store_true")
parser.add_argument("--many", type=int)
parser.add_argument("--menus", action="store_true")
parser.add_argument("--dialog-entry", action="store_true")
parser.add_argument("--slow", type=float)
parser.add_argument("--stall", type=float)
parser.add_argument("--fields", action="store_true")
parser.add_argument("--gestures", action="store_true")
args = parser.parse_args()

GLib.set_prgname(args.app_name)
GLib.set_application_name(args.app_name)

# No animations, no blinking cursor: the same pixels and events every run.
settings = Gtk.Settings.get_default()
settings.set_property("gtk-enable-animations", False)
settings.set_property("gtk-cursor-blink", False)


def quit_app(message):
    log(message)
    Gtk.main_quit()
    return GLib.SOURCE_REMOVE


win = Gtk.Window(title=args.title)
win.set_default_size(600, 500)
win.connect("delete-event", lambda w, e: (quit_app("quit"), False)[1])
if args.move:
    win.move(*args.move)

box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
win.add(box)


def typing_window():
    """Text fields, at the top of the window (the keyboard opens below them)."""
    for name, visible in (("Message", True), ("Password", False)):
        entry = Gtk.Entry()
        entry.set_visibility(visible)
        entry.get_accessible().set_name(name)
        entry.connect("changed", lambda e, n=name: log(f"text {n}: {e.get_text()}"))
        box.pack_start(entry, False, False, 0)
    send = Gtk.Button(label="Send")
    send.connect("clicked", lambda b: log("clicked Send"))
    box.pack_start(send, False, False, 0)

def many_window(n):
    """N labels in a grid of 100 columns (bigger than the screen, all of it showing), one
    button every hundred."""
    grid = Gtk.Grid(column_spacing=2, row_spacing=2)
    for i in range(n):
        if i % 100 == 0:
            widget = Gtk.Button(label=f"Many {i // 100 + 1}")
        else:
            widget = Gtk.Label(label=f"Item {i + 1}")
        grid.attach(widget, i % 100, i // 100, 1, 1)
    box.pack_start(grid, False, False, 0)


if args.typing:
    typing_window()


def fields_window():
    """Fields whose text and values a read must get right, one slider alone in its box."""
    for name, text, visible in (("Short", "Hello there", True), ("Long", "0123456789" * 30, True),
                                ("Empty", "", True), ("Secret", "hunter2", False)):
        entry = Gtk.Entry()
        entry.set_text(text)
        entry.set_visibility(visible)
        entry.get_accessible().set_name(name)
        box.pack_start(entry, False, False, 0)
    spin = Gtk.SpinButton(adjustment=Gtk.Adjustment(value=7, lower=0, upper=20, step_increment=1, page_increment=5))
    spin.get_accessible().set_name("Count")
    box.pack_start(spin, False, False, 0)
    alone = Gtk.Box()
    level = Gtk.Scale(orientation=Gtk.Orientation.HORIZONTAL,
                      adjustment=Gtk.Adjustment(value=30, lower=0, upper=100, step_increment=10, page_increment=20))
    level.get_accessible().set_name("Level")
    alone.pack_start(level, True, True, 0)
    box.pack_start(alone, False, False, 0)


if args.fields:
    fields_window()


def gestures_window():
    """A button that logs right and double clicks, and a list taller than its scrolled window."""
    target = Gtk.Button(label="Context Target")

    def pressed(button, event):
        if event.type == Gdk.EventType.BUTTON_PRESS and event.button == 3:
            log(f"context menu {button.get_label()}")
        elif event.type == Gdk.EventType._2BUTTON_PRESS and event.button == 1:
            log(f"double click {button.get_label()}")
        return False
    target.connect("button-press-event", pressed)
    box.pack_start(target, False, False, 0)
    rows = Gtk.ListBox()
    rows.get_accessible().set_name("Rows")
    for i in range(60):
        rows.add(Gtk.Label(label=f"Row {i + 1}"))
    scrolled = Gtk.ScrolledWindow()
    scrolled.set_min_content_height(200)
    scrolled.set_max_content_height(200)
    scrolled.set_policy(Gtk.PolicyType.NEVER, Gtk.PolicyType.ALWAYS)
    scrolled.add(rows)
    scrolled.get_vadjustment().connect("value-changed", lambda a: log(f"scrolled {a.get_value()}"))
    box.pack_start(scrolled, False, False, 0)


def ticker_label():
    """A label whose text changes every millisecond (as fast as GLib's loop goes)."""
    label = Gtk.Label(label="tick 0")
    box.pack_start(label, False, False, 0)
    count = [0]

    def tick():
        count[0] += 1
        label.set_text(f"tick {count[0]}")
        return GLib.SOURCE_CONTINUE
    GLib.timeout_add(1, tick)


if args.gestures:
    gestures_window()


def run_dialog(_widget):
    """A modal dialog run with gtk_dialog_run, as GTK 3 applications' file choosers are."""
    dialog = Gtk.Dialog(title="Question", transient_for=win, modal=True)
    dialog.add_button("No", Gtk.ResponseType.NO)
    dialog.add_button("Yes", Gtk.ResponseType.YES)
    dialog.get_content_area().pack_start(Gtk.Label(label="Go on?"), True, True, 8)
    if args.dialog_entry:
        entry = Gtk.Entry()
        entry.get_accessible().set_name("Answer")
        entry.connect("changed", lambda e: log(f"text Answer: {e.get_text()}"))
        dialog.get_content_area().pack_start(entry, False, False, 0)
    dialog.show_all()
    log("run open")
    response = dialog.run()
    dialog.destroy()
    names = {Gtk.ResponseType.YES: "Yes", Gtk.ResponseType.NO: "No"}
    log(f"run closed {names.get(response, 'delete')}")


def menus():
    """A menu bar (its File menu runs a modal dialog), and buttons that run one and that pop
    up a context menu."""
    bar = Gtk.MenuBar()
    file_item = Gtk.MenuItem(label="File")
    file_menu = Gtk.Menu()
    file_item.set_submenu(file_menu)
    run_item = Gtk.MenuItem(label="Run Dialog...")
    run_item.connect("activate", run_dialog)
    file_menu.append(run_item)
    quit_item = Gtk.MenuItem(label="Quit")
    quit_item.connect("activate", lambda i: quit_app("quit"))
    file_menu.append(quit_item)
    bar.append(file_item)
    box.pack_start(bar, False, False, 0)
    row = Gtk.Box(spacing=4)
    run_button = Gtk.Button(label="Run Dialog")
    run_button.connect("clicked", run_dialog)
    row.pack_start(run_button, False, False, 0)
    popup = Gtk.Menu()
    for name in ("Copy", "Paste"):
        item = Gtk.MenuItem(label=name)
        item.connect("activate", lambda i, n=name: log(f"popup {n}"))
        popup.append(item)
    popup.show_all()
    popup_button = Gtk.Button(label="Popup Menu")
    popup_button.connect("clicked", lambda b: popup.popup_at_widget(b, Gdk.Gravity.SOUTH_WEST, Gdk.Gravity.NORTH_WEST, None))
    row.pack_start(popup_button, False, False, 0)
    box.pack_start(row, False, False, 0)


if args.menus:
    menus()
if args.ticker:
    ticker_label()
if args.many:
    many_window(args.many)
heading = Gtk.Label(label="Fixture Heading")
heading.get_accessible().set_role(Atk.Role.HEADING)
box.pack_start(heading, False, False, 0)

status = Gtk.Label(label="status: idle")
box.pack_start(status, False, False, 0)


def clicked(button):
    status.set_text(f"status: clicked {button.get_label()}")
    log(f"clicked {button.get_label()}")


row = Gtk.Box(spacing=4)
box.pack_start(row, False, False, 0)
buttons = {}
for label in ("Btn 1", "Btn 2", "Btn 3"):
    b = Gtk.Button(label=label)
    b.connect("clicked", clicked)
    row.pack_start(b, False, False, 0)
    buttons[label] = b
disabled = Gtk.Button(label="Disabled Btn")
disabled.set_sensitive(False)
disabled.connect("clicked", clicked)
row.pack_start(disabled, False, False, 0)
hidden = Gtk.Button(label="Hidden Btn")
hidden.set_no_show_all(True)
hidden.connect("clicked", clicked)
row.pack_start(hidden, False, False, 0)

toggles = Gtk.Box(spacing=4)
box.pack_start(toggles, False, False, 0)
check = Gtk.CheckButton(label="Check me")
check.connect("toggled", lambda c: log(f"check {c.get_active()}"))
toggles.pack_start(check, False, False, 0)
toggle = Gtk.ToggleButton(label="Toggle")
toggle.connect("toggled", lambda t: log(f"toggled {t.get_active()}"))
toggles.pack_start(toggle, False, False, 0)

adjustment = Gtk.Adjustment(value=50, lower=0, upper=100, step_increment=5, page_increment=10)
scale = Gtk.Scale(orientation=Gtk.Orientation.HORIZONTAL, adjustment=adjustment)
scale.set_digits(0)
scale.get_accessible().set_name("Volume")
scale.connect("value-changed", lambda s: log(f"scale {s.get_value()}"))
box.pack_start(scale, False, False, 0)


def open_dialog(_button):
    dialog = Gtk.Dialog(title="Confirm", transient_for=win, modal=True)
    dialog.add_button("Cancel", Gtk.ResponseType.CANCEL)
    dialog.add_button("OK", Gtk.ResponseType.OK)
    dialog.get_content_area().pack_start(Gtk.Label(label="Are you sure?"), True, True, 8)
    names = {Gtk.ResponseType.OK: "OK", Gtk.ResponseType.CANCEL: "Cancel"}

    def response(d, response_id):
        log(f"dialog closed {names.get(response_id, 'delete')}")
        d.destroy()

    dialog.connect("response", response)
    dialog.show_all()
    log("dialog open")


actions = Gtk.Box(spacing=4)
box.pack_start(actions, False, False, 0)
open_button = Gtk.Button(label="Open Dialog")
open_button.connect("clicked", open_dialog)
actions.pack_start(open_button, False, False, 0)


def remove_btn3(_button):
    b = buttons.pop("Btn 3", None)
    if b is None:
        log("removed nothing")
        return
    row.remove(b)  # container.remove: GTK3 emits children-changed:remove (pack_start would not)
    log("removed Btn 3")


remove_button = Gtk.Button(label="Remove Btn 3")
remove_button.connect("clicked", remove_btn3)
actions.pack_start(remove_button, False, False, 0)

# An expander: its one AT-SPI action is "activate".
expander = Gtk.Expander(label="Details")
expander.add(Gtk.Label(label="More details"))
expander.connect("notify::expanded", lambda e, _p: log(f"expander {e.get_expanded()}"))
box.pack_start(expander, False, False, 0)

# A combo box: its list opens as a popup menu over the window.
combo = Gtk.ComboBoxText()
for colour in ("Red", "Green", "Blue"):
    combo.append_text(colour)
combo.set_active(0)
combo.connect("changed", lambda c: log(f"combo {c.get_active_text()}"))
box.pack_start(combo, False, False, 0)

# A small tree: its table cells have the AT-SPI actions "expand or contract", "edit" and
# "activate", so "activate" is a real named action that is not the first.
store = Gtk.TreeStore(str)
fruits = store.append(None, ["Fruits"])
store.append(fruits, ["Apple"])
store.append(fruits, ["Pear"])
store.append(None, ["Vegetables"])
tree = Gtk.TreeView(model=store)
tree.get_accessible().set_name("Food")
tree.append_column(Gtk.TreeViewColumn("Food", Gtk.CellRendererText(), text=0))
tree.connect("row-expanded", lambda t, it, p: log(f"expanded {store[it][0]}"))
tree.connect("row-collapsed", lambda t, it, p: log(f"collapsed {store[it][0]}"))
tree.connect("row-activated", lambda t, p, c: log(f"activated {store[p][0]}"))
box.pack_start(tree, False, False, 0)

# A notebook: each page tab holds its page (AT-SPI: page tab > the page's widgets).
notebook = Gtk.Notebook()
inside = Gtk.Button(label="Inside Tab")
inside.connect("clicked", clicked)
notebook.append_page(inside, Gtk.Label(label="First"))
notebook.append_page(Gtk.Label(label="Second page"), Gtk.Label(label="Second"))
box.pack_start(notebook, False, False, 0)


def on_map(_widget, _event):
    if not getattr(on_map, "done", False):
        on_map.done = True
        log("ready")
    return False


def on_paint(_clock):
    # Once, after the first frame is painted; the round trip makes the X server hold its
    # pixels. (The window's own "draw" signal would need python3-gi-cairo.)
    if not getattr(on_paint, "done", False):
        on_paint.done = True

        def drawn():
            Gdk.Display.get_default().sync()
            log("drawn")
            return GLib.SOURCE_REMOVE
        GLib.idle_add(drawn)


def on_key(_widget, event):
    log(f"key {Gdk.keyval_name(event.keyval)}")
    return False


win.connect("map-event", on_map)
win.connect("realize", lambda w: w.get_frame_clock().connect("after-paint", on_paint))
win.connect("key-press-event", on_key)
for signum in (signal.SIGTERM, signal.SIGINT):
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, quit_app, "terminated")
if args.quit_after is not None:
    GLib.timeout_add(int(args.quit_after * 1000), quit_app, "quit")

if args.stall:
    import time
    stalls = [0]

    def stall():
        log(f"busy {stalls[0] - 1}")
        end = time.monotonic() + args.stall / 1000
        while time.monotonic() < end:
            pass
        return False

    def stall_soon():
        GLib.timeout_add(10 * (stalls[0] % 24), stall)
        stalls[0] += 1
        return True
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR1, stall_soon)

if args.slow:
    # Slow but steady: a helper process stops this one for the given time after every 2 ms
    # it runs (SIGSTOP, SIGCONT), so every answer comes, but late. It ends with this one.
    import os
    import time
    parent = os.getpid()
    if os.fork() == 0:
        os.setsid()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        def ran_ns():
            # The main thread's time on a CPU: a busy machine must not starve it for good.
            try:
                with open(f"/proc/{parent}/schedstat") as f:
                    return int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                return None

        def waiting():
            try:
                with open(f"/proc/{parent}/stat") as f:
                    return f.read().rsplit(")", 1)[1].split()[0] == "S"
            except (OSError, IndexError):
                return True

        while os.getppid() == parent:
            os.kill(parent, signal.SIGSTOP)
            time.sleep(args.slow / 1000)
            os.kill(parent, signal.SIGCONT)
            # Until it has run 2 ms (or waits for something to do, or half a second passed).
            start, began = ran_ns(), time.monotonic()
            while True:
                time.sleep(0.001)
                now = ran_ns()
                if start is None or now is None or now - start >= 2_000_000:
                    break
                if (now > start and waiting()) or time.monotonic() - began > 0.5:
                    break
        os._exit(0)

win.show_all()
Gtk.main()
sys.exit(0)
