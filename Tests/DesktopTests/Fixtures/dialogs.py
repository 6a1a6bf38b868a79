#!/usr/bin/python3
"""A modal "Save As" dialog in GTK 4 or Qt 5, for the desktop tests of typing into dialogs.

Run it with /usr/bin/python3 (Debian's gir1.2-gtk-4.0 and python3-gi, or python3-pyqt5).
The window has a menu bar (File > Save As..., Quit), a "Save As..." button and a text
field "Document"; Ctrl+S opens the dialog too. The dialog has a "Name" text field, Cancel and Save; Enter in the
field saves. Every state change is one line on stdout, flushed at once:

    ready                  the window is shown (printed once)
    dialog open            the Save As dialog is shown
    text NAME              the Name field holds NAME (on every change)
    saved NAME             Save (or Enter) with NAME in the field; the dialog closes
    dialog closed          Cancel or the dialog's close button
    quit                   the window closed or SIGTERM

Qt's dialog runs with QDialog.exec_(), a modal loop nested in whatever opened it (a menu
action's D-Bus call included), as Qt's file dialogs do. GTK 4 has no such loop: its dialog
is a modal window.

    --toolkit gtk4|qt      which one (required)
    --app-name NAME        the application's name on the accessibility bus
"""
import argparse
import signal
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--toolkit", choices=["gtk4", "qt"], required=True)
parser.add_argument("--app-name", default=None)
args = parser.parse_args()
name = args.app_name or f"dialogs-{args.toolkit}"
title = "Dialogs (GTK 4)" if args.toolkit == "gtk4" else "Dialogs (Qt)"


def log(message):
    print(message, flush=True)


def run_gtk4():
    import gi
    gi.require_version("Gtk", "4.0")
    from gi.repository import Gio, GLib, Gtk

    GLib.set_prgname(name)
    GLib.set_application_name(name)
    # NON_UNIQUE: no name on the session bus to own, each test's fixture its own.
    app = Gtk.Application(application_id="org.switchscan.DialogFixture", flags=Gio.ApplicationFlags.NON_UNIQUE)

    def save_as(*_):
        dialog = Gtk.Window(title="Save As", modal=True, transient_for=window)
        dialog.set_default_size(360, 120)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        label = Gtk.Label(label="_Name:", use_underline=True, xalign=0)
        entry = Gtk.Entry()
        # The label names the field (GTK 4 relates a label to its mnemonic widget).
        label.set_mnemonic_widget(entry)
        entry.connect("changed", lambda e: log(f"text {e.get_text()}"))
        buttons = Gtk.Box(spacing=6)
        cancel = Gtk.Button(label="Cancel")
        save = Gtk.Button(label="Save")
        buttons.append(cancel)
        buttons.append(save)
        for child in (label, entry, buttons):
            box.append(child)
        dialog.set_child(box)
        done = {"saved": False}

        def do_save(*_):
            done["saved"] = True
            log(f"saved {entry.get_text()}")
            dialog.destroy()

        def closed(*_):
            if not done["saved"]:
                log("dialog closed")
            return False

        entry.connect("activate", do_save)
        save.connect("clicked", do_save)
        cancel.connect("clicked", lambda b: dialog.close())
        dialog.connect("close-request", closed)
        dialog.present()
        entry.grab_focus()
        log("dialog open")

    def activate(application):
        global window
        window = Gtk.ApplicationWindow(application=application, title=title)
        window.set_default_size(500, 300)
        action = Gio.SimpleAction.new("save-as", None)
        action.connect("activate", save_as)
        window.add_action(action)
        quit_action = Gio.SimpleAction.new("quit", None)
        quit_action.connect("activate", lambda *a: window.close())
        window.add_action(quit_action)
        application.set_accels_for_action("win.save-as", ["<Control>s"])
        menu = Gio.Menu()
        file_menu = Gio.Menu()
        file_menu.append("Save As...", "win.save-as")
        file_menu.append("Quit", "win.quit")
        menu.append_submenu("File", file_menu)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
        box.append(Gtk.PopoverMenuBar.new_from_model(menu))
        button = Gtk.Button(label="Save As...")
        button.connect("clicked", save_as)
        box.append(button)
        document_label = Gtk.Label(label="_Document", use_underline=True, xalign=0)
        document = Gtk.Entry()
        document_label.set_mnemonic_widget(document)
        box.append(document_label)
        box.append(document)
        window.set_child(box)
        window.connect("close-request", lambda w: (log("quit"), False)[1])
        window.present()
        log("ready")

    app.connect("activate", activate)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: (log("quit"), app.quit(), False)[2])
    app.run([sys.argv[0]])


def run_qt():
    from PyQt5 import QtCore, QtWidgets

    application = QtWidgets.QApplication([sys.argv[0]])
    application.setApplicationName(name)
    window = QtWidgets.QMainWindow()
    window.setWindowTitle(title)
    window.resize(500, 300)

    def save_as():
        dialog = QtWidgets.QDialog(window)
        dialog.setWindowTitle("Save As")
        layout = QtWidgets.QVBoxLayout(dialog)
        label = QtWidgets.QLabel("Name:")
        entry = QtWidgets.QLineEdit()
        label.setBuddy(entry)
        entry.setAccessibleName("Name")
        entry.textChanged.connect(lambda text: log(f"text {text}"))
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.Cancel | QtWidgets.QDialogButtonBox.Save)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        for widget in (label, entry, buttons):
            layout.addWidget(widget)
        log("dialog open")
        # The modal loop nested in the caller, as QFileDialog's.
        if dialog.exec_() == QtWidgets.QDialog.Accepted:
            log(f"saved {entry.text()}")
        else:
            log("dialog closed")

    file_menu = window.menuBar().addMenu("File")
    save_action = file_menu.addAction("Save As...")
    save_action.setShortcut("Ctrl+S")
    save_action.triggered.connect(save_as)
    file_menu.addAction("Quit").triggered.connect(window.close)
    central = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(central)
    button = QtWidgets.QPushButton("Save As...")
    button.clicked.connect(save_as)
    layout.addWidget(button)
    document = QtWidgets.QLineEdit()
    document.setAccessibleName("Document")
    layout.addWidget(QtWidgets.QLabel("Document"))
    layout.addWidget(document)
    window.setCentralWidget(central)
    application.aboutToQuit.connect(lambda: log("quit"))
    # SIGTERM ends the event loop (Python runs its handler once the loop wakes, hence the timer).
    signal.signal(signal.SIGTERM, lambda *a: application.quit())
    timer = QtCore.QTimer()
    timer.start(200)
    timer.timeout.connect(lambda: None)
    window.show()
    log("ready")
    application.exec_()


if args.toolkit == "gtk4":
    run_gtk4()
else:
    run_qt()
