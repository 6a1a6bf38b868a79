import Foundation

/// The font the Wayland overlays (layer shell, GNOME Shell) write their menu and keyboard with: a bold sans-serif
/// TrueType font from the system's fonts (DejaVu Sans Bold, which most desktops have, first).
public enum OverlayFont {
    /// The X11 overlay's size: 18 pixels.
    public static let pixelSize = 18.0
    /// The message screen's message, larger, for the people it is said to as well.
    public static let messagePixelSize = 28.0
    static let preferred = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    ]

    /// The painter, or nil and why (the panels are then drawn without their labels).
    public static func load(folders: [String] = ["/usr/share/fonts", "/usr/local/share/fonts"]) -> (TextPainter?, note: String?) {
        var tried: [String] = []
        func read(_ paths: [String]) -> TextPainter? {
            for path in paths {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                do { return TextPainter(font: try TrueTypeFont(Array(data)), pixelSize: pixelSize) } catch {
                    tried.append("'\(path)': \(error)")
                }
            }
            return nil
        }
        // The folders are looked through only when none of the usual fonts can be read.
        if let painter = read(preferred) ?? read(others(in: folders)) { return (painter, nil) }
        let why = tried.isEmpty ? "no TrueType font was found" : "no font could be read (\(tried.prefix(3).joined(separator: "; ")))"
        return (nil, "\(why), so the menu and the keyboard are drawn without their labels. Hint: install fonts-dejavu-core.")
    }

    /// Every .ttf in the folders, in name order.
    private static func others(in folders: [String]) -> [String] {
        folders.flatMap { folder -> [String] in
            guard let e = FileManager.default.enumerator(atPath: folder) else { return [] }
            return e.compactMap { $0 as? String }.filter { $0.lowercased().hasSuffix(".ttf") }.sorted().map { folder + "/" + $0 }
        }
    }
}
