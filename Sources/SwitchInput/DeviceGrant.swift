import ScanFormats

/// A udev rule that lets the user at the seat read one device, and nothing else: a switch
/// interface that presents as a keyboard, or a head mouse. It matches the device by vendor,
/// product and (where the device has one) serial number, and tags it `uaccess`, which
/// systemd-logind turns into access for the active session's user while that session is
/// in front. It is installed in /etc/udev/rules.d, where the administrator keeps it.
public struct DeviceGrant: Equatable, Sendable {
    /// Where it is installed (the file sorts after 60-persistent-input.rules, which sets
    /// the serial, and before 73-seat-late.rules, which applies the tag).
    public static let folder = "/etc/udev/rules.d"

    public var fileName: String
    public var text: String
    /// Nothing tells this device from others of its model (no serial, no port): the rule
    /// names the model, and the person is told so.
    public var wholeModel = false

    /// nil, with the reason, for a device a rule cannot name: one without ids (a virtual
    /// device) or SwitchScan's own.
    public static func rule(for d: InputDeviceDescription) -> Result<DeviceGrant, GrantRefusal> {
        if d.isMadeBySwitchScan { return .failure(GrantRefusal("it is SwitchScan's own virtual device, never a switch")) }
        guard d.vendor != 0 || d.product != 0 else {
            return .failure(GrantRefusal("it has no vendor or product id for a rule to name it by"))
        }
        let vendor = String(d.idText.prefix(4)), product = String(d.idText.suffix(4))
        // What tells this device from others of its model: its serial number, else the port
        // it is plugged into (udev's ID_PATH), as udev gives them (letters, digits and a few
        // marks; nothing a rule would read as a pattern or a quote).
        func usable(_ value: String?) -> String? {
            guard let value, !value.isEmpty, value.count <= 128,
                  value.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "#+-.:=@_".unicodeScalars.contains($0) })
            else { return nil }
            return value
        }
        let serial = usable(d.properties["ID_SERIAL_SHORT"])
        let port = serial == nil ? usable(d.properties["ID_PATH"]) : nil
        let which = serial.map { ("ENV{ID_SERIAL_SHORT}", $0, "serial \($0)") } ?? port.map { ("ENV{ID_PATH}", $0, "on port \($0)") }
        var name = "71-switchscan-\(vendor)-\(product)"
        if let (_, value, _) = which {
            let safe = String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(48))
            name += "-" + safe
        }
        let shown = d.name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0.value < 0x80 }.map(String.init).joined()
        let text = """
            # Written by 'switchscan devices grant' for one switch: \(shown) (\(vendor):\(product)\(which.map { ", " + $0.2 } ?? ", every device of this model")).
            # The user at the seat may read this device alone (systemd-logind's uaccess), as a
            # switch for SwitchScan; no other keyboard or mouse. Delete this file to take it back.
            ACTION=="remove", GOTO="switchscan_grant_end"
            SUBSYSTEM=="input", KERNEL=="event*", ATTRS{id/vendor}=="\(vendor)", ATTRS{id/product}=="\(product)"\(which.map { ", \($0.0)==\"\($0.1)\"" } ?? ""), TAG+="uaccess"
            LABEL="switchscan_grant_end"

            """
        let grant = DeviceGrant(fileName: name + ".rules", text: text, wholeModel: which == nil)
        return .success(grant)
    }

    /// The commands, run as root, that install `text` (given on standard input) as
    /// `folder/fileName` and apply it to the device now: `sh -c SCRIPT sh FILE NODE`. Exit
    /// status 3: the file is installed but udev did not take it up; 4: udev took it up, but
    /// the device is not tagged (the rule does not name it).
    public static let installScript = """
        set -e; umask 022; mkdir -p \(folder); tmp=$(mktemp \(folder)/.switchscan-grant.XXXXXX); \
        cat >"$tmp"; chmod 0644 "$tmp"; mv -fT "$tmp" "\(folder)/$1"; \
        udevadm control --reload || exit 3; \
        udevadm trigger --action=change --subsystem-match=input --sysname-match="${2##*/}" || exit 3; \
        udevadm settle --timeout=10 || true; \
        udevadm info --query=property --name="$2" | grep -q '^CURRENT_TAGS=.*:uaccess:' || exit 4
        """
}

public struct GrantRefusal: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
