import JSONTape
import ScanCore

/// sway's window tree (the answer to `GET_TREE`) as window places. Pure: bytes in, places out.
public enum SwayTree {
    /// Every window in the tree (a container with a process id), tiled or floating, on any
    /// workspace. Its geometry is the container's `rect` moved by its `window_rect`: the
    /// window without sway's borders and title bar, where the application draws. sway does
    /// not say where a client-side shadow lies outside it.
    public static func places(_ bytes: [UInt8]) throws(SwayError) -> [WindowPlace] {
        try nodes(bytes).map(\.place)
    }

    /// Every window as the Windows page lists it, in the tree's order (outputs, workspaces,
    /// tiled then floating), which stays put as the focus moves: a window in the scratchpad
    /// (sway's place for windows put away) is minimised, a full-screen one maximised.
    public static func windows(_ bytes: [UInt8]) throws(SwayError) -> [ManagedWindow] {
        try nodes(bytes).map { ManagedWindow(id: $0.place.id, title: $0.place.title, active: $0.place.active,
                                             maximized: $0.fullScreen, minimized: $0.putAway) }
    }

    struct Node {
        var place: WindowPlace
        var fullScreen: Bool
        var putAway: Bool
    }

    static func nodes(_ bytes: [UInt8]) throws(SwayError) -> [Node] {
        let document: JSONDocument
        do { document = try JSONDocument.parse(bytes) } catch { throw SwayError("sway's window tree is not JSON: \(error)") }
        guard let root = document.root.object else { throw SwayError("sway's window tree is not a JSON object") }
        var out: [Node] = []
        walk(root, depth: 0, putAway: false, into: &out)
        return out
    }

    private static func walk(_ node: JSONObject, depth: Int, putAway: Bool, into out: inout [Node]) {
        let putAway = putAway || (node.member("type")?.value.string == "workspace" && node.member("name")?.value.string == "__i3_scratch")
        if let pid = node.member("pid")?.value.number, let outer = rect(node.member("rect")?.value) {
            let inner = rect(node.member("window_rect")?.value) ?? Rect(x: 0, y: 0, width: outer.width, height: outer.height)
            let shell = node.member("shell")?.value.string ?? ""
            let appID = node.member("app_id")?.value.string
                ?? node.member("window_properties")?.value.object?.member("class")?.value.string ?? ""
            out.append(Node(
                place: WindowPlace(
                    id: node.member("id")?.value.number.flatMap { Int(exactly: $0) }.map { String($0) } ?? "",
                    pid: Int32(exactly: pid), appID: appID, title: node.member("name")?.value.string ?? "",
                    client: shell == "xwayland" ? .x11 : .wayland,
                    geometry: Rect(x: outer.x + inner.x, y: outer.y + inner.y, width: inner.width, height: inner.height),
                    active: node.member("focused")?.value.bool ?? false),
                fullScreen: (node.member("fullscreen_mode")?.value.number ?? 0) > 0,
                putAway: putAway))
        }
        // sway's tree is a few levels deep (root, output, workspace, containers); a deeper one is cut.
        guard depth < 64 else { return }
        for key in ["nodes", "floating_nodes"] {
            guard let children = node.member(key)?.value.array else { continue }
            for child in children {
                if let o = child.object { walk(o, depth: depth + 1, putAway: putAway, into: &out) }
            }
        }
    }

    /// Whether a command's or a subscription's answer says it succeeded: `{"success": true}`,
    /// or a list of them, one per command.
    static func succeeded(_ bytes: [UInt8]) -> Bool {
        guard let document = try? JSONDocument.parse(bytes) else { return false }
        func ok(_ v: JSONValue) -> Bool { v.object?.member("success")?.value.bool == true }
        if let list = document.root.array { return !list.isEmpty && list.allSatisfy(ok) }
        return ok(document.root)
    }

    private static func rect(_ v: JSONValue?) -> Rect? {
        guard let o = v?.object, let x = o.member("x")?.value.number, let y = o.member("y")?.value.number,
              let w = o.member("width")?.value.number, let h = o.member("height")?.value.number else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }
}
