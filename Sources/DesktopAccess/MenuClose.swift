import ScanCore

/// A menu scanned alone (a combo box's list, a menu bar's menu, a context menu) ends with a
/// Close entry, whose tap sends Escape to the focused window (the engine's `key` effect, as
/// the Keys page's): a user is never held in an open list whose items they do not want.
extension DesktopAccess {
    /// The Close entry's id for the menu `menuID`.
    static func closeID(of menuID: String) -> String { menuID + "-close" }

    /// `nodes` (preorder, 0 the menu) with the Close entry as the menu's last child: a button
    /// as wide as the menu just below it (above it where the screen ends), as tall as its
    /// last item.
    static func withCloseEntry(_ nodes: [LiveNode], screenHeight: Double) -> [LiveNode] {
        guard let menu = nodes.first else { return nodes }
        var out = nodes
        let items = nodes.dropFirst().filter(\.isElement)
        let height = items.last?.frame?.height ?? 24
        var close = LiveNode(id: closeID(of: menu.id), role: "push button", label: "Close")
        close.hint = "Closes the menu (Escape)"
        close.traits = TraitSet([.button])
        close.isElement = true
        close.onActivate = [.key(.escape)]
        close.parent = 0
        if let f = menu.frame {
            let below = f.maxY + height <= screenHeight
            close.frame = Rect(x: f.x, y: below ? f.maxY : max(0, f.y - height), width: f.width, height: height)
        }
        out.append(close)
        out[0].children.append(out.count - 1)
        return out
    }
}
