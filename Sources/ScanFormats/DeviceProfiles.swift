import JSONTape
import ScanCore

/// What matching needs to know about an input device (from udev and evdev).
public struct InputDeviceDescription: Hashable, Sendable {
    /// The vendor id of the virtual devices SwitchScan makes (its uinput pointer and keys).
    public static let switchScanVendor: UInt16 = 0x5353

    /// One of SwitchScan's own virtual devices: what it types and clicks must never come
    /// back as presses.
    public var isMadeBySwitchScan: Bool { bus == "virtual" && vendor == Self.switchScanVendor }

    public var node: String
    public var name: String
    /// "usb", "bluetooth", "i2c", "virtual", … (lower case)
    public var bus: String
    public var vendor: UInt16
    public var product: UInt16
    /// "keyboard", "mouse", "gamepad", "joystick", "switch" (from udev's ID_INPUT_* properties).
    public var capabilities: Set<String>
    public var properties: [String: String]

    public init(node: String, name: String, bus: String, vendor: UInt16, product: UInt16,
                capabilities: Set<String>, properties: [String: String] = [:]) {
        // Kernel device names are at most 80 bytes; a longer one (a hand-edited recording)
        // is kept to a length every message and match can carry.
        self.node = node; self.name = String(name.prefix(maxDeviceName)); self.bus = bus; self.vendor = vendor; self.product = product
        self.capabilities = capabilities; self.properties = properties
    }

    public var idText: String { hex4(vendor) + ":" + hex4(product) }

    /// A keyboard or a mouse, not a joystick or gamepad: a device someone may be typing or
    /// pointing with. It is a switch only when it is named as one (`DeviceMapping.named`, or
    /// `--device`), never by a profile for keyboards or mice in general: whoever types on
    /// the laptop's keyboard must not be pressing switches.
    public var needsNaming: Bool {
        (capabilities.contains("keyboard") || capabilities.contains("mouse"))
            && !capabilities.contains("joystick") && !capabilities.contains("gamepad")
    }
}

func hex4(_ v: UInt16) -> String {
    let h = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 4 - h.count)) + h
}

/// An evdev event code named in a profile, resolved by whoever knows the kernel's names
/// (libevdev in SwitchInput; a fixed table in tests).
public struct EventCode: Hashable, Sendable, Comparable {
    public var type: UInt16
    public var code: UInt16
    public var name: String
    public init(type: UInt16, code: UInt16, name: String) { self.type = type; self.code = code; self.name = name }
    public static func < (a: EventCode, b: EventCode) -> Bool { (a.type, a.code) < (b.type, b.code) }
}

public protocol EventCodeResolver {
    /// The code for a name such as "KEY_SPACE", "BTN_0", "ABS_X"; nil if unknown.
    func code(named: String) -> EventCode?
    /// Every known name, for did-you-mean.
    var allNames: [String] { get }
}

/// An axis used as one or two switches: beyond `threshold` (a fraction of the way from the
/// centre to either end) it is pressed, and released only once back within
/// `threshold - hysteresis`, so a trembling sip-and-puff near the threshold cannot chatter.
public struct AxisSwitch: Hashable, Sendable {
    public var low: SwitchAction?
    public var high: SwitchAction?
    public var threshold: Double
    public var hysteresis: Double
}

public struct ProfileSection: Sendable {
    public var file: String
    public var name: String
    public var match: Match
    /// nil value: the section removes an earlier mapping of that code.
    public var switches: [EventCode: SwitchAction?]
    public var axes: [EventCode: AxisSwitch?]
    public var debounce: ScanDuration?

    public struct Match: Sendable {
        public var bus: String?
        public var vendor: UInt16?
        public var product: UInt16?
        public var name: String?
        public var capabilities: [String] = []
        public var properties: [String: String] = [:]

        /// It names one kind of device (its vendor or product, or its name), not a class.
        public var namesDevice: Bool { vendor != nil || product != nil || name != nil }

        public func matches(_ d: InputDeviceDescription) -> Bool {
            if let bus, bus != d.bus { return false }
            if let vendor, vendor != d.vendor { return false }
            if let product, product != d.product { return false }
            if let name, !globMatch(name, d.name) { return false }
            if !capabilities.allSatisfy({ d.capabilities.contains($0) }) { return false }
            return properties.allSatisfy { d.properties[$0.key] == $0.value }
        }
    }
}

/// What all matching sections say about one device, later sections overriding earlier ones.
public struct DeviceMapping: Sendable {
    public var sections: [String]
    public var switches: [EventCode: SwitchAction]
    public var axes: [EventCode: AxisSwitch]
    public var debounce: ScanDuration?
    /// A section that matched names this device (by vendor and product, or by name), not
    /// only a class of devices.
    public var named = false

    public var isEmpty: Bool { switches.isEmpty && axes.isEmpty }

    /// Why a keyboard or mouse that only a profile for its class maps is not used.
    public static let unnamedProblem = "a keyboard or mouse is a switch only when named: assign it with 'switchscan setup', "
        + "name it in a profile (vendor and product, or name), or choose it with --device"
}

public struct DeviceProfiles: Sendable {
    public var sections: [ProfileSection]

    public init(sections: [ProfileSection]) { self.sections = sections }

    public func mapping(for d: InputDeviceDescription) -> DeviceMapping {
        var m = DeviceMapping(sections: [], switches: [:], axes: [:], debounce: nil)
        for s in sections where s.match.matches(d) {
            m.sections.append("\(s.file): \(s.name)")
            if s.match.namesDevice { m.named = true }
            for (code, action) in s.switches { m.switches[code] = action }
            for (code, axis) in s.axes { m.axes[code] = axis }
            // An explicit 0 turns an earlier section's debounce off.
            if let db = s.debounce { m.debounce = db == .zero ? nil : db }
        }
        return m
    }
}

/// Name patterns are at most this long (checked when a profile is loaded), and names are
/// compared up to `maxMatchedName` characters: matching takes at most their product of steps.
public let maxNamePattern = 256
public let maxDeviceName = 256
public let maxMatchedName = 1024

/// `*` matches any run of characters, `?` one; case-insensitive (device names vary in case).
public func globMatch(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern.lowercased().prefix(maxNamePattern)), t = Array(text.prefix(maxMatchedName).lowercased())
    var pi = 0, ti = 0, star = -1, mark = 0
    while ti < t.count {
        if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) { pi += 1; ti += 1 }
        else if pi < p.count && p[pi] == "*" { star = pi; mark = ti; pi += 1 }
        else if star >= 0 { pi = star + 1; mark += 1; ti = mark }
        else { return false }
    }
    while pi < p.count && p[pi] == "*" { pi += 1 }
    return pi == p.count
}

/// Reads device profiles (Devices/*.json), validated like layouts: file, line:column, JSON
/// path, what is allowed, did-you-mean for code names and actions.
public enum DeviceProfileLoader {
    public static let capabilityNames = ["keyboard", "mouse", "gamepad", "joystick", "switch"]

    public static func load(bytes: [UInt8], file: String, codes: EventCodeResolver) throws(DataFileError) -> [ProfileSection] {
        let document = try parseDataFile(bytes, file: file)
        return try read(document.root, bytes: bytes, file: file, codes: codes)
    }

    static func read(_ json: JSONValue, bytes: [UInt8], file: String, codes: EventCodeResolver) throws(DataFileError) -> [ProfileSection] {
        var fields = FieldReader(file: file)
        var sections: [ProfileSection] = []
        if let fileObject = fields.object(json, "$", nil, allowed: ["schemaVersion", "description", "sections"]) {
            if let versionMember = fileObject["schemaVersion"] {
                if case .number(1, _) = versionMember.value.content {} else { fields.report("E02", versionMember.value.offset, "$.schemaVersion", nil, "must be 1") }
            } else {
                fields.report("E02", json.offset, "$", nil, "missing \"schemaVersion\"; add \"schemaVersion\": 1")
            }
            _ = fields.string(fileObject["description"], "$", nil)
            if let list = fields.array(fields.require(fileObject, "sections", in: json, "$", nil), "$", nil) {
                for (k, item) in list.enumerated() {
                    if let parsed = section(item, "$.sections[\(k)]", file: file, codes: codes, &fields) { sections.append(parsed) }
                }
            }
        }
        let diagnostics = locate(fields.diagnostics, in: bytes)
        if diagnostics.contains(where: { $0.severity == .error }) { throw DataFileError(file: file, diagnostics: diagnostics) }
        return sections
    }

    static func section(_ json: JSONValue, _ sectionPath: String, file: String, codes: EventCodeResolver, _ fields: inout FieldReader) -> ProfileSection? {
        guard let sectionObject = fields.object(json, sectionPath, nil, allowed: ["name", "match", "switches", "axes", "debounce"]) else { return nil }
        let name = excerpt(fields.string(fields.require(sectionObject, "name", in: json, sectionPath, nil), sectionPath, nil) ?? "?")
        var section = ProfileSection(file: file, name: name, match: .init(), switches: [:], axes: [:], debounce: nil)
        if let matchMember = sectionObject["match"], let matchObject = fields.object(matchMember.value, sectionPath + ".match", name, allowed: ["bus", "vendor", "product", "name", "capabilities", "properties"]) {
            let matchPath = sectionPath + ".match"
            section.match.bus = fields.string(matchObject["bus"], matchPath, name)?.lowercased()
            for (key, path) in [("vendor", \ProfileSection.Match.vendor), ("product", \ProfileSection.Match.product)] {
                guard let text = fields.string(matchObject[key], matchPath, name) else { continue }
                if let id = parseHex16(text) { section.match[keyPath: path] = id }
                else { fields.report("E04", matchObject[key]!.value.offset, "\(matchPath).\(key)", name, "\"\(text)\" is not a 4-digit hex id like \"045e\"") }
            }
            section.match.name = fields.string(matchObject["name"], matchPath, name)
            if let pattern = section.match.name, pattern.count > maxNamePattern {
                fields.report("E04", matchObject["name"]!.value.offset, matchPath + ".name", name, "a name pattern is at most \(maxNamePattern) characters, got \(pattern.count)")
            }
            if let capabilities = fields.array(matchObject["capabilities"], matchPath, name) {
                for (k, capability) in capabilities.enumerated() {
                    guard case .string(let text, _) = capability.content, capabilityNames.contains(text) else {
                        var msg = "must be one of \(capabilityNames.joined(separator: ", "))"
                        if case .string(let text, _) = capability.content, let suggested = suggestion(for: text, among: capabilityNames) { msg += "; did you mean \"\(suggested)\"?" }
                        fields.report("E04", capability.offset, "\(matchPath).capabilities[\(k)]", name, msg)
                        continue
                    }
                    section.match.capabilities.append(text)
                }
            }
            if let propertiesMember = matchObject["properties"] {
                if case .object(let members, _) = propertiesMember.value.content {
                    for member in members {
                        if case .string(let text, _) = member.value.content { section.match.properties[member.key] = text }
                        else { fields.report("E04", member.value.offset, "\(matchPath).properties.\(member.key)", name, "must be a string, got \(member.value.kindName)") }
                    }
                } else {
                    fields.report("E04", propertiesMember.value.offset, matchPath + ".properties", name, "must be an object of udev property names to values")
                }
            }
        }
        let actions = SwitchAction.allCases.map(\.rawValue)
        func action(_ json: JSONValue, _ path: String, _ fields: inout FieldReader) -> SwitchAction?? {
            if case .null = json.content { return .some(nil) }
            guard case .string(let text, _) = json.content, let mapped = SwitchAction(rawValue: text) else {
                var msg = "must be a switch action (\(actions.joined(separator: ", "))) or null to remove a mapping"
                if case .string(let text, _) = json.content, let suggested = suggestion(for: text, among: actions) { msg += "; did you mean \"\(suggested)\"?" }
                fields.report("E04", json.offset, path, name, msg)
                return nil
            }
            return .some(mapped)
        }
        func resolve(_ key: String, _ offset: Int, _ path: String, types: [UInt16], _ fields: inout FieldReader) -> EventCode? {
            guard let code = codes.code(named: key) else {
                var msg = "unknown event code \"\(key)\""
                if let suggested = suggestion(for: key, among: codes.allNames) { msg += "; did you mean \"\(suggested)\"?" }
                else { msg += "; use the kernel's names, e.g. KEY_SPACE, BTN_0, BTN_LEFT, ABS_X" }
                fields.report("E09", offset, path, name, msg)
                return nil
            }
            guard types.contains(code.type) else {
                fields.report("E09", offset, path, name, types == [3] ? "\"\(key)\" is not an axis (ABS_*); put keys and buttons under \"switches\""
                                                                  : "\"\(key)\" is an axis; put it under \"axes\" with a threshold")
                return nil
            }
            return code
        }
        if let switchesMember = sectionObject["switches"] {
            if case .object(let members, _) = switchesMember.value.content {
                for member in members {
                    let memberPath = "\(sectionPath).switches.\(member.key)"
                    guard let code = resolve(member.key, member.keyOffset, memberPath, types: [1], &fields), let mapped = action(member.value, memberPath, &fields) else { continue }
                    section.switches[code] = mapped
                }
            } else {
                fields.report("E04", switchesMember.value.offset, sectionPath + ".switches", name, "must be an object mapping event codes to actions, e.g. {\"KEY_SPACE\": \"select\"}")
            }
        }
        if let axesMember = sectionObject["axes"] {
            if case .object(let members, _) = axesMember.value.content {
                for member in members {
                    let memberPath = "\(sectionPath).axes.\(member.key)"
                    guard let code = resolve(member.key, member.keyOffset, memberPath, types: [3], &fields) else { continue }
                    if case .null = member.value.content { section.axes[code] = .some(nil); continue }
                    guard let axisObject = fields.object(member.value, memberPath, name, allowed: ["low", "high", "threshold", "hysteresis"]) else { continue }
                    var axis = AxisSwitch(low: nil, high: nil, threshold: 0.5, hysteresis: 0.1)
                    if let low = axisObject["low"] { axis.low = action(low.value, memberPath + ".low", &fields) ?? nil }
                    if let high = axisObject["high"] { axis.high = action(high.value, memberPath + ".high", &fields) ?? nil }
                    if let threshold = fields.number(axisObject["threshold"], memberPath, name) {
                        if threshold > 0 && threshold < 1 { axis.threshold = threshold } else { fields.report("E04", axisObject["threshold"]!.value.offset, memberPath + ".threshold", name, "must be between 0 and 1 (a fraction of the way from the centre to the end), got \(format(threshold))") }
                    }
                    if let hysteresis = fields.number(axisObject["hysteresis"], memberPath, name) {
                        if hysteresis >= 0 && hysteresis < axis.threshold { axis.hysteresis = hysteresis } else { fields.report("E04", axisObject["hysteresis"]!.value.offset, memberPath + ".hysteresis", name, "must be at least 0 and less than the threshold, got \(format(hysteresis))") }
                    }
                    if axis.low == nil && axis.high == nil {
                        fields.report("E04", member.value.offset, memberPath, name, "an axis needs \"low\" or \"high\" (or both): the action for each direction")
                    }
                    section.axes[code] = .some(axis)
                }
            } else {
                fields.report("E04", axesMember.value.offset, sectionPath + ".axes", name, "must be an object mapping ABS_* codes to {\"low\", \"high\", \"threshold\"}")
            }
        }
        if let seconds = fields.number(sectionObject["debounce"], sectionPath, name) {
            if seconds >= 0 && seconds <= 0.5 { section.debounce = .seconds(seconds) }
            else { fields.report("E04", sectionObject["debounce"]!.value.offset, sectionPath + ".debounce", name, "must be between 0 and 0.5 seconds, got \(format(seconds))") }
        }
        return section
    }

    static func parseHex16(_ s: String) -> UInt16? {
        var t = s.lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        guard (1...4).contains(t.count) else { return nil }
        return UInt16(t, radix: 16)
    }
}
