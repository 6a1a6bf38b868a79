import ScanCore

/// A terminal's worth of cells, each a character and a style, and its escape codes.
public struct TerminalCanvas: Sendable {
    public struct Cell: Equatable, Sendable {
        public var ch: Character = " "
        public var style: Style = .plain
    }
    public enum Style: UInt8, Sendable {
        case plain, box, highlight, crosshair, band, status, menu, menuCurrent, highlightText
        var code: String {
            switch self {
            case .plain: "\u{1B}[0m"
            case .box: "\u{1B}[0;37m"
            case .highlight: "\u{1B}[0;1;33m"
            case .crosshair: "\u{1B}[0;1;31m"
            case .band: "\u{1B}[0;31m"
            case .status: "\u{1B}[0;7m"
            case .menu: "\u{1B}[0;36m"
            case .menuCurrent: "\u{1B}[0;7;1;36m"
            case .highlightText: "\u{1B}[0;7;1;33m"
            }
        }
    }

    public let rows: Int
    public let columns: Int
    var cells: [Cell]

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
        cells = Array(repeating: Cell(), count: self.rows * self.columns)
    }

    public subscript(row: Int, column: Int) -> Cell { cells[row * columns + column] }

    /// Outside the canvas does nothing. Text from layouts and applications is shown, never
    /// obeyed: control codes become their pictures.
    public mutating func put(_ row: Int, _ column: Int, _ ch: Character, _ style: Style) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        cells[row * columns + column] = Cell(ch: TerminalText.visible(ch), style: style)
    }

    public mutating func write(_ text: String, row: Int, column: Int, _ style: Style) {
        var c = column
        for ch in text {
            put(row, c, ch, style)
            c += 1
        }
    }

    /// The text of each row, without styles (for tests and logs).
    public var lines: [String] {
        (0..<rows).map { r in String((0..<columns).map { self[r, $0].ch }) }
    }

    /// The whole canvas from the top left, with the style codes it needs.
    public var escaped: String {
        var out = "\u{1B}[H"
        var current: Style?
        for r in 0..<rows {
            if r > 0 { out += "\r\n" }
            for c in 0..<columns {
                let cell = self[r, c]
                if cell.style != current { out += cell.style.code; current = cell.style }
                out.append(cell.ch)
            }
        }
        return out + "\u{1B}[0m"
    }
}
