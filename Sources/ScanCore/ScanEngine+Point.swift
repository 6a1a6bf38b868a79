/// Point mode: a vertical line sweeps x, a press fixes it; a horizontal line
/// sweeps y, a press fixes it; the point is then tapped (or offered in the menu). With
/// `precise`, each axis is first a wide band, then a slower fine line inside the band.
struct PointState: Sendable {
    var axis = SweepAxis.x
    var sweep: Sweep?
    var x: Double?
    var running = false
    /// The item-mode state to come back to; nil if item scanning had stopped (it starts
    /// again at the first item).
    var savedItem: ScanEngine.ItemState?
    /// A drag waiting for its drop point (the Gestures page's Drag).
    var drag: PendingDrag?
}

/// A drag chosen on the Gestures page: where it starts, on which element, and whether
/// point mode was entered for it (item scanning resumes after the drop).
struct PendingDrag: Hashable, Sendable {
    var from: Point
    var element: String?
    var backToItems: Bool
}

extension ScanEngine {
    mutating func enterPointMode() {
        let saved = itemScanRuns ? item : nil
        timers[.move] = nil
        timers[.stepSelect] = nil
        history.removeAll()
        phase = .point(.scanning)
        point = PointState(savedItem: saved)
        emit(.modeChanged(.point))
        startSweep(axis: .x, at: now)
    }

    mutating func leavePointMode() {
        timers[.sweepEnd] = nil
        let saved = point.savedItem
        point = PointState()
        phase = .item(.scanning)
        emit(.modeChanged(.item))
        if let saved {
            item = saved
            item.menu = nil
            emitHighlight()
            armMove(from: now, firstOfCycle: item.cursor.index == 0)
        } else {
            restartItemScan(at: now)
        }
    }

    /// Back to item mode for a new screen that scanning starts over on (the keyboard).
    mutating func leavePointModeQuietly() {
        timers[.sweepEnd] = nil
        point = PointState()
        phase = .item(.scanning)
        emit(.modeChanged(.item))
    }

    func extent(_ axis: SweepAxis) -> Double {
        axis == .x ? tree.screenSize.width : tree.screenSize.height
    }

    /// Starts an axis from its first phase: the band when precise, else the line.
    mutating func startSweep(axis: SweepAxis, at t: ScanInstant) {
        let size = extent(axis)
        let sweep: Sweep
        if settings.precise {
            let width = min(size, max(1, size * settings.bandFraction))
            sweep = Sweep(axis: axis, phase: .band, start: t, lo: 0, hi: size - width, width: width,
                          speed: settings.glideSpeed, passes: settings.loops)
        } else {
            sweep = Sweep(axis: axis, phase: .line, start: t, lo: 0, hi: size,
                          speed: settings.glideSpeed, passes: settings.loops)
        }
        run(sweep)
    }

    mutating func run(_ sweep: Sweep) {
        point.axis = sweep.axis
        point.sweep = sweep
        point.running = true
        timers[.sweepEnd] = sweep.end
        emit(.sweep(sweep))
    }

    /// After a tap or a closed menu: a new x sweep for the next point.
    mutating func restartSweeps() {
        guard mode == .point else { return }
        point.x = nil
        startSweep(axis: .x, at: now)
    }

    mutating func sweepRanOut() {
        point.running = false
        point.sweep = nil
        emit(.scanStopped(.loopsExhausted))
    }

    mutating func pointCommand(_ c: SwitchFilter.Command) {
        guard point.running, let sweep = point.sweep else {
            // A press after the sweep ran out restarts that axis; it never fixes a stale position.
            emit(.scanStarted)
            startSweep(axis: point.axis, at: now)
            return
        }
        switch c.action {
        case .select:
            // The position at the press's own timestamp: sweeps are pure functions of time.
            let at = min(max(c.pressedAt, sweep.start), sweep.end)
            let p = sweep.position(at: at)
            timers[.sweepEnd] = nil
            switch sweep.phase {
            case .band:
                run(Sweep(axis: sweep.axis, phase: .line, start: now, lo: p, hi: p + sweep.width,
                          speed: settings.glideSpeed * settings.fineSpeedFactor, passes: settings.loops))
            case .line:
                if sweep.axis == .x {
                    point.x = p
                    startSweep(axis: .y, at: now)
                } else {
                    chosen(Point(x: point.x ?? 0, y: p))
                }
            }
        case .exit, .toggleMode:
            leavePointMode()
        case .menu:
            timers[.sweepEnd] = nil
            point.running = false
            openMenu(.screen)
        case .next, .previous, .pause:
            break
        }
    }

    mutating func chosen(_ p: Point) {
        point.sweep = nil
        point.running = false
        emit(.pointSelected(p))
        if let drag = point.drag {
            point.drag = nil
            emit(.gesture(.drag, element: drag.element, at: drag.from, to: p))
            if drag.backToItems { leavePointMode() } else { restartSweeps() }
            return
        }
        selectTarget(.point(p, element: tree.hitTest(p).flatMap(accessibleOwner)))
    }

    /// The accessibility element a visual node belongs to (itself or its nearest visual
    /// ancestor that is an accessibility element), whose actions the point menu offers.
    func accessibleOwner(_ n: Int) -> Int? {
        var cur: Int? = n
        while let c = cur {
            if tree[c].isAccessibilityElement { return c }
            cur = tree[c].parent
        }
        return nil
    }
}
