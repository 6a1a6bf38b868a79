// The window manager's list: the Windows page's, and the `--app` window's raise.
extension ScanEngine {
    /// The desktop's windows changed. Nothing is shown now: the Windows page lists them when
    /// it opens, and an open page keeps the list it opened with.
    public mutating func setWindows(_ windows: [ManagedWindow]) {
        self.windows = windows
    }

    /// The window manager's list, as it changes (`setWindows`). Once scanning has started,
    /// the first list that has the window of `raiseWhenListed` raises it (a `window` effect,
    /// not chosen), unless it is active already.
    public mutating func windowsListed(_ windows: [ManagedWindow], at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        self.windows = windows
        if started { raiseIfListed() }
        return finish()
    }

    mutating func raiseIfListed() {
        guard let title = raiseWhenListed, let w = windows.first(where: { $0.title == title }) else { return }
        raiseWhenListed = nil
        if !w.active { emit(.window(.activate, window: w.id, title: w.title, chosen: false)) }
    }
}
