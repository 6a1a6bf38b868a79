// SwitchScan's part inside GNOME Shell, shared by both entry points (extension-43.js for
// GNOME 43–44, extension-45.js for 45 and later). GNOME offers an ordinary program no way to
// learn where windows are or to draw above them; this does both, for SwitchScan alone, on
// the session bus as org.switchscan.Shell (interface org.switchscan.Shell1, below):
//
// - the windows, with their frame and buffer rectangles (stage pixels), pushed as a signal
//   whenever one comes, goes, moves, is resized, retitled, minimised or focused;
// - a window activated, closed, minimised, maximised or restored (the Windows page);
// - text committed to the focused field through the input method (any character);
// - the scene SwitchScan asks for (its highlight, point mode's lines, its menu and keyboard
//   panels) drawn above every window, fullscreen ones too, never taking a click.
//
// Callers are told apart by their executable: only a process running a program named
// `switchscan` (or its benchmark, `switchscan-bench`) is answered; the bus gives the
// caller's process id, /proc its executable. Signals go to the callers that asked for them
// (Listen) alone. When the
// caller that drew a scene leaves the bus (it ended, it crashed), the scene is taken down.
//
// Shell modules differ between 43 (imports) and 45+ (ES modules): the entry point hands
// them in, so nothing here imports anything.

export const PROTOCOL = 1;

const BUS_NAME = 'org.switchscan.Shell';
const OBJECT_PATH = '/org/switchscan/Shell';
const ALLOWED = ['switchscan', 'switchscan-bench'];

const INTERFACE = `<node>
  <interface name="org.switchscan.Shell1">
    <method name="Hello">
      <arg type="s" name="version" direction="out"/>
      <arg type="u" name="protocol" direction="out"/>
    </method>
    <method name="Listen"/>
    <method name="GetWindows">
      <arg type="s" name="windows" direction="out"/>
    </method>
    <method name="Perform">
      <arg type="s" name="command" direction="in"/>
      <arg type="s" name="id" direction="in"/>
      <arg type="b" name="done" direction="out"/>
    </method>
    <method name="CommitText">
      <arg type="s" name="text" direction="in"/>
      <arg type="b" name="committed" direction="out"/>
    </method>
    <method name="Show">
      <arg type="s" name="scene" direction="in"/>
      <arg type="u" name="serial" direction="in"/>
    </method>
    <method name="Hide"/>
    <signal name="WindowsChanged">
      <arg type="s" name="windows"/>
    </signal>
    <signal name="Painted">
      <arg type="u" name="serial"/>
    </signal>
  </interface>
</node>`;

/// Starts the service; returns what stops it.
export function start(deps) {
    const service = new Service(deps);
    return { stop: () => service.stop() };
}

class Service {
    constructor(deps) {
        this.d = deps;
        const { Gio } = deps;
        this.bus = Gio.DBus.session;
        this.allowed = new Map();     // unique name → true/false (its executable checked)
        this.callers = new Set();     // allowed names that said Hello: the signals' listeners
        this.windowSignals = new Map(); // Meta.Window → [signal ids]
        this.otherSignals = [];       // [object, id]
        this.lastWindows = null;
        this.changePending = 0;
        this.painter = new Painter(deps);
        this.sceneOwner = null;

        this.exported = Gio.DBusExportedObject.wrapJSObject(INTERFACE, this.methods());
        this.exported.export(this.bus, OBJECT_PATH);
        this.nameId = Gio.bus_own_name_on_connection(this.bus, BUS_NAME, Gio.BusNameOwnerFlags.NONE, null, null);
        // A caller gone: forgotten, and its scene taken down.
        this.ownerSub = this.bus.signal_subscribe('org.freedesktop.DBus', 'org.freedesktop.DBus', 'NameOwnerChanged',
            '/org/freedesktop/DBus', null, Gio.DBusSignalFlags.NONE, (c, s, p, i, sig, params) => {
                const [name, , owner] = params.deepUnpack();
                if (owner === '' && name.startsWith(':')) this.forget(name);
            });

        const { global } = deps;
        for (const actor of global.get_window_actors()) this.track(actor.meta_window);
        this.connect(global.display, 'window-created', (d, w) => { this.track(w); this.changed(); });
        this.connect(global.display, 'notify::focus-window', () => this.changed());
        this.connect(global.workspace_manager, 'active-workspace-changed', () => this.changed());
        this.connect(deps.Main.layoutManager, 'monitors-changed', () => { this.changed(); this.painter.restack(); });
    }

    connect(object, signal, fn) {
        this.otherSignals.push([object, object.connect(signal, fn)]);
    }

    methods() {
        const self = this;
        const refused = (invocation) => invocation.return_dbus_error('org.switchscan.Shell1.Error.Refused',
            `only SwitchScan (a program named ${ALLOWED.join(' or ')}) may use this`);
        // Every method checks its caller first (once per caller: the answer is kept).
        const guarded = (fn) => (params, invocation) => self.check(invocation.get_sender(), ok => {
            if (!ok) { refused(invocation); return; }
            try { fn(params, invocation); } catch (e) {
                invocation.return_dbus_error('org.switchscan.Shell1.Error.Failed', String(e));
            }
        });
        const { GLib } = this.d;
        return {
            HelloAsync: guarded((params, invocation) => {
                invocation.return_value(new GLib.Variant('(su)', [self.d.version, PROTOCOL]));
            }),
            // The caller hears the signals from now on.
            ListenAsync: guarded((params, invocation) => {
                self.callers.add(invocation.get_sender());
                self.lastWindows = null;
                invocation.return_value(null);
            }),
            GetWindowsAsync: guarded((params, invocation) => {
                invocation.return_value(new GLib.Variant('(s)', [JSON.stringify(self.windows())]));
            }),
            PerformAsync: guarded(([command, id], invocation) => {
                invocation.return_value(new GLib.Variant('(b)', [self.perform(command, id)]));
            }),
            // Text for the focused field through the input method, as GNOME's on-screen
            // keyboard writes: any character, whatever the keyboard layout has. False when
            // no field takes text that way (the caller then sends keys).
            CommitTextAsync: guarded(([text], invocation) => {
                const im = self.d.Main.inputMethod;
                const committed = !!(im && im.currentFocus && !(im.hasPreedit?.()));
                if (committed) im.commit(text);
                invocation.return_value(new GLib.Variant('(b)', [committed]));
            }),
            ShowAsync: guarded(([scene, serial], invocation) => {
                self.sceneOwner = invocation.get_sender();
                self.painter.show(JSON.parse(scene));
                invocation.return_value(null);
                self.painter.whenPainted(() => self.emit('Painted', new GLib.Variant('(u)', [serial])));
            }),
            HideAsync: guarded((params, invocation) => {
                self.painter.hide();
                invocation.return_value(null);
            }),
        };
    }

    /// Whether `sender` runs SwitchScan: the bus gives its process, /proc its program.
    check(sender, then) {
        if (this.allowed.has(sender)) { then(this.allowed.get(sender)); return; }
        const { Gio, GLib } = this.d;
        this.bus.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetConnectionUnixProcessID', new GLib.Variant('(s)', [sender]), new GLib.VariantType('(u)'),
            Gio.DBusCallFlags.NONE, 1000, null, (c, result) => {
                let ok = false;
                try {
                    const [pid] = c.call_finish(result).deepUnpack();
                    const exe = GLib.file_read_link(`/proc/${pid}/exe`);
                    ok = ALLOWED.includes(GLib.path_get_basename(exe.replace(/ \(deleted\)$/, '')));
                } catch (e) {
                    ok = false;
                }
                this.allowed.set(sender, ok);
                then(ok);
            });
    }

    forget(name) {
        this.allowed.delete(name);
        this.callers.delete(name);
        if (this.sceneOwner === name) {
            this.sceneOwner = null;
            this.painter.hide();
        }
    }

    emit(signal, params) {
        for (const name of this.callers)
            this.bus.emit_signal(name, OBJECT_PATH, 'org.switchscan.Shell1', signal, params);
    }

    track(w) {
        if (!w || this.windowSignals.has(w)) return;
        const ids = ['position-changed', 'size-changed', 'notify::title', 'notify::minimized', 'notify::maximized-horizontally',
            'notify::maximized-vertically', 'notify::fullscreen', 'workspace-changed']
            .map(s => w.connect(s, () => this.changed()));
        ids.push(w.connect('unmanaged', () => {
            for (const id of this.windowSignals.get(w) ?? []) w.disconnect(id);
            this.windowSignals.delete(w);
            this.changed();
        }));
        this.windowSignals.set(w, ids);
    }

    /// Something about the windows changed: told once the Shell is idle again (a move is many
    /// changes in one frame), and only if what SwitchScan sees differs.
    changed() {
        if (this.changePending || this.callers.size === 0) return;
        const { GLib } = this.d;
        this.changePending = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this.changePending = 0;
            const text = JSON.stringify(this.windows());
            if (text !== this.lastWindows) {
                this.lastWindows = text;
                this.emit('WindowsChanged', new GLib.Variant('(s)', [text]));
            }
            return GLib.SOURCE_REMOVE;
        });
    }

    /// The windows on the active workspace (and those on every workspace), from the bottom
    /// of the stack, as SwitchScan reads them: {windows: [{id, pid, title, app, x11, frame,
    /// buffer, active, minimized, fullScreen, maximized, listed}]}, rectangles [x, y, w, h].
    windows() {
        const { Meta, global } = this.d;
        const active = global.workspace_manager.get_active_workspace();
        const rect = r => [r.x, r.y, r.width, r.height];
        const listed = [Meta.WindowType.NORMAL, Meta.WindowType.DIALOG, Meta.WindowType.MODAL_DIALOG];
        const windows = global.get_window_actors().map(a => a.meta_window)
            .filter(w => w && (w.is_on_all_workspaces() || w.located_on_workspace(active)))
            .map(w => ({
                id: String(w.get_stable_sequence()),
                pid: w.get_pid(),
                title: w.get_title() ?? '',
                app: w.get_gtk_application_id() ?? w.get_sandboxed_app_id() ?? w.get_wm_class() ?? '',
                x11: w.get_client_type() === Meta.WindowClientType.X11,
                frame: rect(w.get_frame_rect()),
                buffer: rect(w.get_buffer_rect()),
                active: w.has_focus(),
                minimized: w.minimized,
                fullScreen: w.is_fullscreen(),
                maximized: w.get_maximized() === Meta.MaximizeFlags.BOTH,
                listed: !w.skip_taskbar && listed.includes(w.get_window_type()),
            }));
        return { windows };
    }

    perform(command, id) {
        const { Meta, Main, global } = this.d;
        const w = global.get_window_actors().map(a => a.meta_window).find(m => m && String(m.get_stable_sequence()) === id);
        if (!w) return false;
        const now = global.get_current_time();
        switch (command) {
        case 'activate': Main.activateWindow(w, now); return true;
        case 'close': w.delete(now); return true;
        case 'minimize': w.minimize(); return true;
        case 'maximize': w.maximize(Meta.MaximizeFlags.BOTH); return true;
        case 'restore':
            if (w.minimized) w.unminimize();
            if (w.is_fullscreen()) w.unmake_fullscreen();
            w.unmaximize(Meta.MaximizeFlags.BOTH);
            return true;
        default: return false;
        }
    }

    stop() {
        const { GLib, Gio } = this.d;
        if (this.changePending) GLib.source_remove(this.changePending);
        for (const [w, ids] of this.windowSignals) for (const id of ids) w.disconnect(id);
        this.windowSignals.clear();
        for (const [object, id] of this.otherSignals) object.disconnect(id);
        this.otherSignals = [];
        this.bus.signal_unsubscribe(this.ownerSub);
        Gio.bus_unown_name(this.nameId);
        this.exported.unexport();
        this.painter.destroy();
    }
}

/// The scene, drawn as SwitchScan laid it out (its layers, in stage pixels): filled
/// rectangles and labels, each layer rebuilt only when it changed. Nothing of it is
/// reactive, so every click goes to the window beneath.
class Painter {
    constructor(deps) {
        this.d = deps;
        const { St, Main } = deps;
        this.root = new St.Widget({ name: 'switchscan-scene', reactive: false, can_focus: false, x: 0, y: 0 });
        Main.layoutManager.uiGroup.add_child(this.root);
        // One actor a layer, in their order from the bottom, each holding what it shows.
        this.order = ['keyboard', 'outline', 'sweep', 'menu'];
        this.layers = new Map(this.order.map(name => {
            const actor = new St.Widget({ reactive: false, x: 0, y: 0 });
            this.root.add_child(actor);
            return [name, { text: '[]', actor }];
        }));
        this.paintWaiters = [];
        this.afterPaint = 0;
        // Whatever the Shell adds later (a notification, a modal dialog) goes below the scene.
        // (Clutter names the signal 'actor-added' up to GNOME 45, 'child-added' from 46.)
        const group = Main.layoutManager.uiGroup;
        try {
            this.addedId = group.connect('child-added', () => this.restack());
        } catch (e) {
            this.addedId = group.connect('actor-added', () => this.restack());
        }
    }

    restack() {
        const group = this.d.Main.layoutManager.uiGroup;
        if (group.get_last_child() !== this.root) group.set_child_above_sibling(this.root, null);
    }

    show(scene) {
        const layers = scene.layers ?? {};
        const font = scene.font ?? {};
        for (const name of this.order) {
            const items = layers[name] ?? [];
            const text = JSON.stringify(items);
            const layer = this.layers.get(name);
            // An unchanged layer is left alone: nothing of it is laid out or painted again.
            if (layer.text === text) continue;
            layer.text = text;
            layer.actor.destroy_all_children();
            for (const item of items) layer.actor.add_child(this.item(item, font));
            // The keyboard (many labels) is kept as one picture while it is shown: a frame
            // that moves the outline over it paints one texture, not every key again.
            if (name === 'keyboard') {
                const { OffscreenRedirect } = this.d.Clutter;
                layer.actor.set_offscreen_redirect(items.length > 0 ? OffscreenRedirect.ALWAYS : OffscreenRedirect.AUTOMATIC_FOR_OPACITY);
            }
        }
        this.restack();
        this.root.show();
    }

    /// ["r", x, y, w, h, "#rrggbb"]: a filled rectangle.
    /// ["t", x, y, w, h, text, "#rrggbb", dx, dy, size?]: a label whose top left is at
    /// (x+dx, y+dy), cut to the box x, y, w, h; in `size` pixels where given (the message
    /// screen's message), else the scene's font size.
    item(i, font) {
        const { St } = this.d;
        if (i[0] === 'r')
            return new St.Widget({ reactive: false, x: i[1], y: i[2], width: i[3], height: i[4], style: `background-color: ${i[5]};` });
        const box = new St.Widget({ reactive: false, x: i[1], y: i[2], width: i[3], height: i[4], clip_to_allocation: true });
        const family = (font.family ?? 'DejaVu Sans').replace(/[";]/g, '');
        const label = new St.Label({
            text: i[5], reactive: false, x: i[7], y: i[8],
            style: `color: ${i[6]}; font-family: "${family}"; font-weight: ${font.weight ?? 'bold'}; font-size: ${i[9] ?? font.size ?? 18}px;`,
        });
        box.add_child(label);
        return box;
    }

    hide() {
        for (const layer of this.layers.values()) {
            layer.actor.destroy_all_children();
            layer.text = '[]';
        }
        this.root.hide();
    }

    /// `fn` once the next frame has been painted (the scene's actors, changed, ask for one).
    whenPainted(fn) {
        const { global } = this.d;
        this.paintWaiters.push(fn);
        if (this.afterPaint) return;
        this.afterPaint = global.stage.connect('after-paint', () => {
            global.stage.disconnect(this.afterPaint);
            this.afterPaint = 0;
            const waiters = this.paintWaiters;
            this.paintWaiters = [];
            for (const w of waiters) w();
        });
    }

    destroy() {
        const { global, Main } = this.d;
        if (this.afterPaint) global.stage.disconnect(this.afterPaint);
        Main.layoutManager.uiGroup.disconnect(this.addedId);
        this.root.destroy();
    }
}
