import Foundation
import ScanFormats

/// The device profiles in force: the shipped Devices/*.json, then the user's own
/// (~/.config/switchscan/devices/*.json), each folder in sorted file order; later sections
/// override earlier ones.
public enum ProfileLibrary {
    /// Profile files past this size are refused before they are read.
    public static let maxFileSize = 16 << 20

    /// Folders searched, in order. An empty XDG_CONFIG_HOME counts as unset, as the XDG
    /// base directory rules say.
    public static func defaultFolders(devices: String = "Devices",
                                      environment env: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var folders = [devices]
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (env["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.config" } ?? "")
        if !config.isEmpty { folders.append(config + "/switchscan/devices") }
        return folders
    }

    /// Loads every *.json in the folders; all problems of all files are reported together.
    public static func load(folders: [String], codes: EventCodeResolver = LibevdevCodes()) throws(DataFileError) -> DeviceProfiles {
        var sections: [ProfileSection] = []
        var diagnostics: [Diagnostic] = []
        var firstFile = ""
        for folder in folders {
            for (path, contents) in readFolder(folder, suffix: ".json", what: "device profile", limit: maxFileSize) ?? [] {
                if firstFile.isEmpty { firstFile = path }
                switch contents {
                case .failure(let error):
                    diagnostics.append(Diagnostic(.error, "E01", file: path, offset: 0, path: "$", element: nil, error.description))
                case .success(let bytes):
                    do {
                        sections += try DeviceProfileLoader.load(bytes: bytes, file: path, codes: codes)
                    } catch {
                        diagnostics += error.diagnostics
                    }
                }
            }
        }
        if diagnostics.contains(where: { $0.severity == .error }) {
            throw DataFileError(file: diagnostics.first?.file ?? firstFile, diagnostics: diagnostics)
        }
        return DeviceProfiles(sections: sections)
    }
}
