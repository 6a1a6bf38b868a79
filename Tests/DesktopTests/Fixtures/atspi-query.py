#!/usr/bin/python3
"""Reads the AT-SPI desktop for the desktop tests (run with /usr/bin/python3: python3-gi and
gir1.2-atspi-2.0). One command per run; results on stdout; exit status 1 with a reason on
stderr when something is not found in time.

    apps                                   application names, one a line
    wait-app NAME TIMEOUT                  polls until NAME is on the desktop; prints "found NAME MS"
    find APP ROLE NAME [TIMEOUT]           the first match (showing, then sensitive ones first) as one JSON object
    find-at APP ROLE X Y                   the showing ROLE whose extents hold the point (screen
                                           coordinates), as one JSON object: one of many
                                           widgets of the same name
    tree APP                               the whole tree of APP, one node a line
    action APP ROLE NAME ACTION            performs the action called ACTION; prints "done ACTION"
    set-value APP ROLE NAME VALUE          Value.set_current_value; prints "done VALUE"
    text APP ROLE NAME                     the Text interface's whole text, as JSON (a string)
    focused-text APP                       the same, of the focused node that has a Text interface
    watch-windows                          until killed: "watching" once listening, then one line
                                           "window:activate TITLE T" for each window activated
                                           (and window:create), T its arrival (CLOCK_MONOTONIC, s)
"""
import json
import sys
import time
import warnings

warnings.simplefilter("ignore")  # the interface getters are deprecated in 2.46, and work

import gi  # noqa: E402

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

Atspi.set_timeout(2000, 5000)  # a frozen application must not hold us for libatspi's 15 s


def desktop_apps():
    desktop = Atspi.get_desktop(0)
    apps = []
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None:
            apps.append(app)
    return apps


def names(apps):
    out = []
    for app in apps:
        try:
            out.append(app.get_name())
        except Exception as error:  # an application that is going away
            out.append(f"<{error}>")
    return out


def app_named(name):
    for app in desktop_apps():
        try:
            if app.get_name() == name:
                return app
        except Exception:
            pass
    return None


def states(node):
    return sorted(s.value_nick for s in node.get_state_set().get_states())


def extents(node):
    component = node.get_component_iface()
    if component is None:
        return None
    e = component.get_extents(Atspi.CoordType.SCREEN)
    return [e.x, e.y, e.width, e.height]


def action_names(node):
    action = node.get_action_iface()
    if action is None:
        return []
    return [action.get_action_name(i) for i in range(action.get_n_actions())]


def walk(node, depth=0):
    yield node, depth
    for i in range(node.get_child_count()):
        child = node.get_child_at_index(i)
        if child is not None:
            yield from walk(child, depth + 1)


def describe(node):
    frame = extents(node)
    info = {"role": node.get_role_name(), "name": node.get_name(), "states": states(node),
            "actions": action_names(node)}
    if frame is not None:
        info.update(x=frame[0], y=frame[1], width=frame[2], height=frame[3])
    value = node.get_value_iface()
    if value is not None:
        info.update(value=value.get_current_value(), minimum=value.get_minimum_value(),
                    maximum=value.get_maximum_value(), step=value.get_minimum_increment())
    return info


def find(app_name, role, name):
    app = app_named(app_name)
    if app is None:
        return None, f"no application {app_name!r} on the desktop; there are {names(desktop_apps())}"
    matches = [n for n, _ in walk(app) if n.get_role_name() == role and n.get_name() == name]
    matches = [n for n in matches if "defunct" not in states(n)]
    if not matches:
        return None, f"no {role} {name!r} in {app_name!r}"
    # Showing ones first, and of those the ones that can be used (an insensitive check box
    # takes the action and does nothing).
    matches.sort(key=lambda n: ("showing" not in states(n), "sensitive" not in states(n)))
    return matches[0], None


def find_at(app_name, role, x, y):
    app = app_named(app_name)
    if app is None:
        return None, f"no application {app_name!r} on the desktop; there are {names(desktop_apps())}"
    for node, _ in walk(app):
        if node.get_role_name() != role or "showing" not in states(node):
            continue
        frame = extents(node)
        if frame and frame[0] <= x < frame[0] + frame[2] and frame[1] <= y < frame[1] + frame[3]:
            return node, None
    return None, f"no showing {role} at {x},{y} in {app_name!r}"


def find_waiting(app_name, role, name, timeout):
    deadline = time.monotonic() + timeout
    while True:
        try:
            node, reason = find(app_name, role, name)
        except GLib.GError as error:  # an object went away mid-walk (an application starting up)
            node, reason = None, f"the walk of {app_name!r} failed: {error}"
        if node is not None or time.monotonic() >= deadline:
            return node, reason
        time.sleep(0.02)


def focused_text(app_name):
    """The Text interface of what has the focus in the application (or the run fails)."""
    app = app_named(app_name)
    if app is None:
        fail(f"no application {app_name!r} on the desktop; there are {names(desktop_apps())}")
    for node, _ in walk(app):
        text = node.get_text_iface()
        if text is not None and "focused" in states(node):
            return text
    fail(f"nothing focused in {app_name!r} has text")


def fail(reason):
    print(reason, file=sys.stderr)
    sys.exit(1)


def main(argv):
    command, rest = argv[0], argv[1:]
    if command == "apps":
        for name in names(desktop_apps()):
            print(name)
    elif command == "wait-app":
        name, timeout = rest[0], float(rest[1])
        start = time.monotonic()
        seen = []
        while time.monotonic() - start < timeout:
            seen = names(desktop_apps())
            if name in seen:
                print(f"found {name} {(time.monotonic() - start) * 1000:.0f}")
                return
            time.sleep(0.01)
        fail(f"{name!r} did not register on the accessibility bus within {timeout} s; the desktop lists {seen}")
    elif command == "find":
        timeout = float(rest[3]) if len(rest) > 3 else 0
        node, reason = find_waiting(rest[0], rest[1], rest[2], timeout)
        if node is None:
            fail(reason)
        print(json.dumps(describe(node)))
    elif command == "find-at":
        node, reason = find_at(rest[0], rest[1], float(rest[2]), float(rest[3]))
        if node is None:
            fail(reason)
        print(json.dumps(describe(node)))
    elif command == "tree":
        app = app_named(rest[0])
        if app is None:
            fail(f"no application {rest[0]!r} on the desktop; there are {names(desktop_apps())}")
        for node, depth in walk(app):
            frame = extents(node)
            where = f" [{frame[0]},{frame[1]} {frame[2]}x{frame[3]}]" if frame else ""
            acts = action_names(node)
            print(f"{'  ' * depth}{node.get_role_name()} {node.get_name()!r} {{{','.join(states(node))}}}{where}"
                  + (f" actions={'|'.join(acts)}" if acts else ""))
    elif command == "action":
        node, reason = find(rest[0], rest[1], rest[2])
        if node is None:
            fail(reason)
        available = action_names(node)
        if rest[3] not in available:
            fail(f"{rest[1]} {rest[2]!r} has no action {rest[3]!r}; it has {available}")
        if not node.get_action_iface().do_action(available.index(rest[3])):
            fail(f"do_action({rest[3]!r}) on {rest[1]} {rest[2]!r} returned False")
        print(f"done {rest[3]}")
    elif command == "set-value":
        node, reason = find(rest[0], rest[1], rest[2])
        if node is None:
            fail(reason)
        value = node.get_value_iface()
        if value is None:
            fail(f"{rest[1]} {rest[2]!r} has no Value interface")
        if not value.set_current_value(float(rest[3])):
            fail(f"set_current_value({rest[3]}) on {rest[1]} {rest[2]!r} returned False")
        print(f"done {rest[3]}")
    elif command == "text":
        node, reason = find(rest[0], rest[1], rest[2])
        if node is None:
            fail(reason)
        text = node.get_text_iface()
        if text is None:
            fail(f"{rest[1]} {rest[2]!r} has no Text interface")
        print(json.dumps(text.get_text(0, text.get_character_count())))
    elif command == "focused-text":
        text = focused_text(rest[0])
        print(json.dumps(text.get_text(0, text.get_character_count())))
    elif command == "focused-weights":
        # The focused text's runs of font weight: [[text, weight], ...].
        text = focused_text(rest[0])
        count = text.get_character_count()
        runs, offset = [], 0
        while offset < count:
            attributes, start, end = text.get_attribute_run(offset, True)
            end = max(end, offset + 1)
            runs.append([text.get_text(offset, end), attributes.get("weight", "")])
            offset = end
        print(json.dumps(runs))
    elif command == "watch-windows":
        from gi.repository import GLib

        def on_event(event):
            arrived = time.monotonic()
            try:
                title = event.source.get_name() if event.source else ""
            except Exception:
                title = "?"
            print(f"{event.type} {title} {arrived:.6f}", flush=True)
        listener = Atspi.EventListener.new(on_event)
        listener.register("window:activate")
        listener.register("window:create")
        print("watching", flush=True)
        GLib.MainLoop().run()
    else:
        fail(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
