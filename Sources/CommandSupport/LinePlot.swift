import Foundation

/// A line chart as SVG, for a person who would rather look than read: panels stacked one
/// above the other sharing the x axis, each with its own y axis, lines in colours that
/// differ in lightness too, and a legend. Plain SVG 1.1 that browsers and image viewers
/// show as they are; the text is escaped.
public struct LinePlot: Sendable {
    public struct Series: Sendable {
        public var name: String
        public var colour: String
        /// (x, y); a nil y breaks the line (a day with nothing to show).
        public var points: [(x: Double, y: Double?)]

        public init(_ name: String, colour: String, _ points: [(x: Double, y: Double?)]) {
            self.name = name; self.colour = colour; self.points = points
        }
    }

    public struct Panel: Sendable {
        public var title: String
        public var unit: String
        public var series: [Series]
        /// The y axis's range; nil: from 0 to a round number above the highest value.
        public var range: ClosedRange<Double>?

        public init(_ title: String, unit: String, series: [Series], range: ClosedRange<Double>? = nil) {
            self.title = title; self.unit = unit; self.series = series; self.range = range
        }
    }

    public var title: String
    public var xLabel: String
    public var panels: [Panel]
    /// How an x value is written under the axis (a selection's number, a date).
    public var xText: @Sendable (Double) -> String
    /// A dot at every point, not only at a lone one: for a few points (days), each a value.
    public var markers = false

    public init(title: String, xLabel: String, panels: [Panel], xText: @escaping @Sendable (Double) -> String = { LinePlot.number($0) }) {
        self.title = title; self.xLabel = xLabel; self.panels = panels; self.xText = xText
    }

    /// Colours that stay apart for the common kinds of colour blindness (Okabe and Ito).
    public static let colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]

    static let width = 760.0, panelHeight = 230.0, left = 70.0, right = 34.0, top = 50.0, gap = 60.0

    public var svg: String {
        let xs = panels.flatMap { $0.series.flatMap { $0.points.map(\.x) } }
        let xMin = xs.min() ?? 0, xMax = max(xs.max() ?? 1, (xs.min() ?? 0) + 1e-9)
        let plotWidth = Self.width - Self.left - Self.right
        var legend: [Series] = []
        for p in panels { for s in p.series where !legend.contains(where: { $0.name == s.name }) { legend.append(s) } }
        let height = Self.top + Double(panels.count) * (Self.panelHeight + Self.gap) + 20 + Double(legend.count) * 18
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" viewBox="0 0 \(Int(Self.width)) \(Int(height))" font-family="sans-serif" font-size="13">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Self.left)" y="24" font-size="17" font-weight="bold">\(Self.escape(title))</text>

        """
        func px(_ x: Double) -> Double { Self.left + (x - xMin) / (xMax - xMin) * plotWidth }
        for (k, panel) in panels.enumerated() {
            let y0 = Self.top + Double(k) * (Self.panelHeight + Self.gap) + 20
            let ys = panel.series.flatMap { $0.points.compactMap(\.y) }
            let range = panel.range ?? 0...Self.roundUp(max(ys.max() ?? 1, 1e-9))
            func py(_ y: Double) -> Double { y0 + Self.panelHeight - (y - range.lowerBound) / (range.upperBound - range.lowerBound) * Self.panelHeight }
            out += "<text x=\"\(Self.left)\" y=\"\(Self.f(y0 - 8))\" font-weight=\"bold\">\(Self.escape(panel.title))</text>\n"
            // Grid and y ticks: five steps.
            for i in 0...5 {
                let v = range.lowerBound + Double(i) / 5 * (range.upperBound - range.lowerBound)
                let y = py(v)
                out += "<line x1=\"\(Self.f(Self.left))\" y1=\"\(Self.f(y))\" x2=\"\(Self.f(Self.width - Self.right))\" y2=\"\(Self.f(y))\" stroke=\"#dddddd\"/>\n"
                out += "<text x=\"\(Self.f(Self.left - 6))\" y=\"\(Self.f(y + 4))\" text-anchor=\"end\">\(Self.escape(Self.number(v) + panel.unit))</text>\n"
            }
            // X ticks: six.
            for i in 0...5 {
                let v = xMin + Double(i) / 5 * (xMax - xMin)
                out += "<text x=\"\(Self.f(px(v)))\" y=\"\(Self.f(y0 + Self.panelHeight + 16))\" text-anchor=\"middle\">\(Self.escape(xText(v)))</text>\n"
            }
            out += "<rect x=\"\(Self.f(Self.left))\" y=\"\(Self.f(y0))\" width=\"\(Self.f(plotWidth))\" height=\"\(Self.f(Self.panelHeight))\" fill=\"none\" stroke=\"#888888\"/>\n"
            for s in panel.series {
                var segments: [[String]] = [[]]
                for p in s.points {
                    guard let y = p.y else { segments.append([]); continue }
                    let c = min(max(y, range.lowerBound), range.upperBound)
                    segments[segments.count - 1].append("\(Self.f(px(p.x))),\(Self.f(py(c)))")
                }
                for seg in segments where !seg.isEmpty {
                    if seg.count > 1 {
                        out += "<polyline fill=\"none\" stroke=\"\(s.colour)\" stroke-width=\"2\" points=\"\(seg.joined(separator: " "))\"/>\n"
                    }
                    for point in seg where seg.count == 1 || markers {
                        let xy = point.split(separator: ",")
                        out += "<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3.5\" fill=\"\(s.colour)\"/>\n"
                    }
                }
            }
        }
        let last = Self.top + Double(panels.count) * (Self.panelHeight + Self.gap) - 12
        out += "<text x=\"\(Self.f(Self.left + plotWidth / 2))\" y=\"\(Self.f(last))\" text-anchor=\"middle\">\(Self.escape(xLabel))</text>\n"
        // One legend below everything: the panels show the same series.
        for (i, s) in legend.enumerated() {
            let ly = last + 26 + Double(i) * 18
            out += "<line x1=\"\(Self.f(Self.left))\" y1=\"\(Self.f(ly - 4))\" x2=\"\(Self.f(Self.left + 24))\" y2=\"\(Self.f(ly - 4))\" stroke=\"\(s.colour)\" stroke-width=\"3\"/>\n"
            out += "<text x=\"\(Self.f(Self.left + 32))\" y=\"\(Self.f(ly))\">\(Self.escape(s.name))</text>\n"
        }
        return out + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten at or above `v`.
    static func roundUp(_ v: Double) -> Double {
        var p = 1e-6
        while p * 10 <= v { p *= 10 }
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }

    /// A number with at most two decimals and no trailing zeros.
    public static func number(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        if r == r.rounded() { return String(Int(r)) }
        var s = String(format: "%.2f", r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
