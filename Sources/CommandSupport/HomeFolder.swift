import Foundation

/// Why there is no home folder for the user's files: the XDG variable and HOME, each unset,
/// empty or relative (the XDG rules take only an absolute path).
public enum HomeFolder {
    /// "HOME and XDG_CONFIG_HOME are unset", or what each is when set but not usable.
    public static func problem(xdg: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = environment["HOME"] ?? "", other = environment[xdg] ?? ""
        if home.isEmpty && other.isEmpty { return "HOME and \(xdg) are unset" }
        func state(_ name: String, _ value: String) -> String {
            value.isEmpty ? "\(name) is unset" : "\(name) is '\(value)', not an absolute path"
        }
        return state("HOME", home) + ", and " + state(xdg, other)
    }

    /// The file a user command works on: `given` (its --file), else the user's own at
    /// `userPath` (under `xdg`, else HOME); without a home folder, a refusal that says why.
    public static func file(_ given: String?, xdg: String, _ userPath: ([String: String]) -> String?) throws -> String {
        if let given { return given }
        guard let path = userPath(ProcessInfo.processInfo.environment) else {
            throw fail("Error: no home folder (\(problem(xdg: xdg))); give the file with --file.")
        }
        return path
    }
}
