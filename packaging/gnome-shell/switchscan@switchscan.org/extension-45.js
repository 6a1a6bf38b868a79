// The entry point GNOME Shell 45 and later load (an ES module); core.js does the work.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import St from 'gi://St';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import { Extension } from 'resource:///org/gnome/shell/extensions/extension.js';
import * as core from './core.js';

export default class SwitchScanExtension extends Extension {
    enable() {
        const version = this.metadata['version-name'] ?? '';
        this._service = core.start({ Clutter, Gio, GLib, Meta, St, Main, global, version });
    }

    disable() {
        this._service?.stop();
        this._service = null;
    }
}
