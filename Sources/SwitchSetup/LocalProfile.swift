import JSONTape
import ScanCore
import ScanFormats

/// The sections `switchscan setup` keeps in the user's local device profile
/// (`90-local.json` in the user's profile folder): one a device, named
/// "switchscan setup: <device name>". The user's other sections and members stay as they
/// are; setup's come last, so that they win over the user's own for the same codes.
/// Pure: bytes in, bytes out; the command writes them through `UserFile`.
public enum LocalProfile {
    public static let fileName = "90-local.json"
    public static let sectionPrefix = "switchscan setup: "

    /// Whether a profile section was written by setup.
    public static func isSetupSection(_ name: String) -> Bool { name.hasPrefix(sectionPrefix) }

    /// One section a device: the assigned switches, and `null` for every other code the
    /// device's profiles map now (`mapped`, by node), so that only the switches pressed in
    /// setup act on the devices they were pressed on.
    public static func sections(_ assignments: [Assignment], mapped: [String: [EventCode]] = [:]) -> [String] {
        var order: [SetupDevice] = []
        for a in assignments where !order.contains(a.heard.device) { order.append(a.heard.device) }
        return order.map { device in
            let mine = assignments.filter { $0.heard.device == device }
            var switches: [(EventCode, String)] = []
            var axes: [EventCode: (low: SwitchAction?, high: SwitchAction?)] = [:]
            for a in mine {
                switch a.heard.side {
                case nil: switches.append((a.heard.code, jsonString(a.action.rawValue)))
                case .low: axes[a.heard.code, default: (nil, nil)].low = a.action
                case .high: axes[a.heard.code, default: (nil, nil)].high = a.action
                }
            }
            var removedAxes: [EventCode] = []
            for code in (mapped[device.node] ?? []).sorted() where !mine.contains(where: { $0.heard.code == code }) {
                if code.type == SwitchTracker.absType { removedAxes.append(code) } else { switches.append((code, "null")) }
            }
            var lines = ["      \"name\": " + jsonString(sectionPrefix + (device.name.isEmpty ? device.node : device.name)),
                         "      \"match\": " + match(device)]
            if !switches.isEmpty {
                lines.append("      \"switches\": {" + switches.map { jsonString($0.0.name) + ": " + $0.1 }.joined(separator: ", ") + "}")
            }
            let axisTexts = axes.sorted { $0.key < $1.key }.map { code, sides in
                var parts: [String] = []
                if let low = sides.low { parts.append("\"low\": " + jsonString(low.rawValue)) }
                if let high = sides.high { parts.append("\"high\": " + jsonString(high.rawValue)) }
                parts.append("\"threshold\": \(jsonNumber(SwitchTracker.threshold)), \"hysteresis\": \(jsonNumber(SwitchTracker.hysteresis))")
                return jsonString(code.name) + ": {" + parts.joined(separator: ", ") + "}"
            } + removedAxes.map { jsonString($0.name) + ": null" }
            if !axisTexts.isEmpty { lines.append("      \"axes\": {" + axisTexts.joined(separator: ", ") + "}") }
            return "    {\n" + lines.joined(separator: ",\n") + "\n    }"
        }
    }

    /// Matched by bus and ids where the device has ids, else by its name.
    static func match(_ d: SetupDevice) -> String {
        var parts: [String] = []
        if d.vendor != 0 || d.product != 0 {
            if !d.bus.isEmpty { parts.append("\"bus\": " + jsonString(d.bus)) }
            parts.append("\"vendor\": " + jsonString(hex4(d.vendor)))
            parts.append("\"product\": " + jsonString(hex4(d.product)))
        } else {
            parts.append("\"name\": " + jsonString(d.name))
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    static func hex4(_ v: UInt16) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    /// The file with setup's sections replaced by `sections` (from `sections(_:mapped:)`),
    /// everything else kept; checked as a device profile before it is returned.
    public static func merged(_ current: [UInt8]?, sections new: [String], file: String,
                              codes: EventCodeResolver) throws(FileReadError) -> [UInt8] {
        var members: [(key: String, text: String)] = [
            ("schemaVersion", "1"),
            ("description", jsonString("Switches assigned with switchscan setup.")),
            ("sections", ""),
        ]
        var kept: [String] = []
        if let current {
            let object = try parse(current, file: file)
            members = object.map { ($0.key, $0.value.compactText) }
            if !members.contains(where: { $0.key == "sections" }) { members.append(("sections", "")) }
            for item in object.member("sections")?.value.array ?? JSONDocument.emptyArray where !isSetup(item) {
                kept.append("    " + item.compactText)
            }
        }
        let list = kept + new
        let sectionsText = list.isEmpty ? "[]" : "[\n" + list.joined(separator: ",\n") + "\n  ]"
        let text = "{\n" + members.map { "  " + jsonString($0.key) + ": " + ($0.key == "sections" ? sectionsText : $0.text) }
            .joined(separator: ",\n") + "\n}\n"
        let bytes = Array(text.utf8)
        do throws(DataFileError) {
            _ = try DeviceProfileLoader.load(bytes: bytes, file: file, codes: codes)
        } catch {
            throw FileReadError(description: error.description + "\n\(file) was left unchanged.")
        }
        return bytes
    }

    /// The file without setup's sections, and how many there were.
    public static func removingSetup(_ current: [UInt8], file: String, codes: EventCodeResolver) throws(FileReadError) -> (bytes: [UInt8], removed: Int, remaining: Int) {
        let object = try parse(current, file: file)
        let sections = Array(object.member("sections")?.value.array ?? JSONDocument.emptyArray)
        let removed = sections.filter(isSetup).count
        let bytes = try merged(current, sections: [], file: file, codes: codes)
        return (bytes, removed, sections.count - removed)
    }

    /// What setup assigned, a line a device: "X-Keys (usb 05f3:0232): BTN_0 select, BTN_1 next".
    public static func listing(_ current: [UInt8], file: String) throws(FileReadError) -> [String] {
        let object = try parse(current, file: file)
        var lines: [String] = []
        for item in object.member("sections")?.value.array ?? JSONDocument.emptyArray where isSetup(item) {
            guard let section = item.object, let name = section.member("name")?.value.string else { continue }
            var device = String(name.dropFirst(sectionPrefix.count))
            if let match = section.member("match")?.value.object {
                let bus = match.member("bus")?.value.string
                if let vendor = match.member("vendor")?.value.string, let product = match.member("product")?.value.string {
                    device += " (" + (bus.map { $0 + " " } ?? "") + vendor + ":" + product + ")"
                }
            }
            var used: [String] = []
            for member in section.member("switches")?.value.object ?? JSONDocument.emptyObject {
                if let action = member.value.string { used.append(member.key + " " + action) }
            }
            for member in section.member("axes")?.value.object ?? JSONDocument.emptyObject {
                guard let axis = member.value.object else { continue }
                for side in ["low", "high"] {
                    if let action = axis.member(side)?.value.string { used.append("\(member.key) (\(side)) \(action)") }
                }
            }
            lines.append(device + ": " + (used.isEmpty ? "nothing" : used.joined(separator: ", ")))
        }
        return lines
    }

    static func isSetup(_ section: JSONValue) -> Bool {
        section.object?.member("name")?.value.string.map(isSetupSection) ?? false
    }

    static func parse(_ bytes: [UInt8], file: String) throws(FileReadError) -> JSONObject {
        guard let document = try? JSONDocument.parse(bytes), let object = document.root.object,
              object.member("sections").map({ $0.value.array != nil }) ?? true else {
            throw FileReadError(description: "Error: \(file) is not a device profile (a JSON object with \"sections\"); it was left unchanged. Fix it, or move it away and run setup again.")
        }
        return object
    }
}

extension JSONDocument {
    static let empty = try! JSONDocument.parse(Array("{\"a\":[],\"o\":{}}".utf8))
    static var emptyArray: JSONArray { empty.root.object!.member("a")!.value.array! }
    static var emptyObject: JSONObject { empty.root.object!.member("o")!.value.object! }
}
