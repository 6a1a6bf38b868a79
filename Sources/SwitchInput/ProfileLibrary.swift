import Foundation
import ScanFormats

/// The device profiles in force: the shipped Devices/*.json, then the user's own
/// (~/.config/switchscan/devices/*.json), each folder in sorted file order; later sections
/// override earlier ones.
public enum ProfileLibrary {
    /// Folders searched, in order.
    public static func defaultFolders(devices: String = "Devices") -> [String] {
        var folders = [devices]
        let config = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
            ?? (ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.config" } ?? "")
        if !config.isEmpty { folders.append(config + "/switchscan/devices") }
        return folders
    }

    /// Loads every *.json in the folders; all problems of all files are reported together.
    public static func load(folders: [String], codes: EventCodeResolver = LibevdevCodes()) throws(DataFileError) -> DeviceProfiles {
        var sections: [ProfileSection] = []
        var diagnostics: [Diagnostic] = []
        var firstFile = ""
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.filter({ $0.hasSuffix(".json") }).sorted() {
                let path = folder + "/" + name
                if firstFile.isEmpty { firstFile = path }
                guard let data = FileManager.default.contents(atPath: path) else {
                    diagnostics.append(Diagnostic(.error, "E01", file: path, offset: 0, path: "$", element: nil, "cannot read the file"))
                    continue
                }
                do {
                    sections += try DeviceProfileLoader.load(bytes: [UInt8](data), file: path, codes: codes)
                } catch {
                    diagnostics += error.diagnostics
                }
            }
        }
        if diagnostics.contains(where: { $0.severity == .error }) {
            throw DataFileError(file: diagnostics.first?.file ?? firstFile, diagnostics: diagnostics)
        }
        return DeviceProfiles(sections: sections)
    }
}
