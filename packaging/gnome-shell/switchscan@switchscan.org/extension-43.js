// The entry point GNOME Shell 43 and 44 load (a script with `imports`); core.js does the work.
/* exported init */
const { Clutter, Gio, GLib, Meta, St } = imports.gi;
const Main = imports.ui.main;
const ExtensionUtils = imports.misc.extensionUtils;

class Extension {
    enable() {
        const me = ExtensionUtils.getCurrentExtension();
        const version = me.metadata['version-name'] ?? '';
        this._wanted = true;
        // core.js is an ES module, shared with the GNOME 45+ entry point.
        import(me.dir.get_child('core.js').get_uri()).then(core => {
            if (this._wanted && !this._service)
                this._service = core.start({ Clutter, Gio, GLib, Meta, St, Main, global, version });
        }).catch(e => logError(e, 'SwitchScan'));
    }

    disable() {
        this._wanted = false;
        this._service?.stop();
        this._service = null;
    }
}

function init() {
    return new Extension();
}
