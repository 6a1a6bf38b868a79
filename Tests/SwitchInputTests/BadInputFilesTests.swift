import Foundation
import ScanCore
import ScanFormats
@testable import SwitchInput
import Testing

/// Recordings, profiles and names from outside: refused with their place when out of range,
/// bounded in the work and the memory they can cost.
@Suite("Bad recordings and profiles")
struct BadInputFilesTests {
    func problems(_ text: String) -> [String] {
        do {
            _ = try EvemuRecording.parse(text, file: "r.evemu")
            return []
        } catch {
            return error.problems.map { "\($0.line): \($0.message)" }
        }
    }

    @Test(arguments: ["E: 99999999999.000000 0001 0039 1", "E: -0.500000 0001 0039 1", "E: 1.-00001 0001 0039 1",
                      "E: 1000001.000000 0001 0039 1", "E: +1.000000 0001 0039 1", "E: 1.5 0001 0039 1"])
    func eventTimesOutOfRangeAreRefused(_ line: String) {
        #expect(problems("N: x\n" + line + "\n").first?.hasPrefix("2: an event line is") == true, "\(line)")
    }

    @Test func theLargestTimeReplays() throws {
        let rec = try EvemuRecording.parse("N: x\nE: 1000000.999999 0001 0039 1\n", file: "r.evemu")
        #expect(rec.events.first?.time == ScanInstant(nanoseconds: 1_000_000_999_999_000))
    }

    @Test func problemsAreCappedAndCounted() throws {
        let text = String(repeating: "E: bad\n", count: 10_000)
        do {
            _ = try EvemuRecording.parse(text, file: "r.evemu")
            Issue.record("bad lines accepted")
        } catch {
            #expect(error.problems.count == LineProblems.limit)
            #expect(error.omitted == 10_000 - LineProblems.limit)
            #expect(error.description.contains("r.evemu: … and 9900 more"))
            #expect(error.description.hasSuffix("r.evemu: 10000 errors; nothing was replayed."))
        }
    }

    @Test func aHugeDeviceNameIsKeptShort() throws {
        let rec = try EvemuRecording.parse("N: " + String(repeating: "n", count: 400_000) + "\nE: 0.000001 0001 0039 1\n", file: "r.evemu")
        let d = InputDeviceDescription(node: "r", name: rec.name, bus: "usb", vendor: 0, product: 0, capabilities: [])
        #expect(d.name.count == maxDeviceName)
    }

    @Test func longNamePatternsAreRefusedAndMatchingIsBounded() throws {
        let long = String(repeating: "*a", count: 200)
        let profile = #"{"schemaVersion": 1, "sections": [{"name": "x", "match": {"name": "\#(long)"}, "switches": {"KEY_SPACE": "select"}}]}"#
        do {
            _ = try DeviceProfileLoader.load(bytes: Array(profile.utf8), file: "p.json", codes: LibevdevCodes())
            Issue.record("a 400-character pattern was accepted")
        } catch {
            #expect(error.errors.first?.message == "a name pattern is at most 256 characters, got 400")
        }
        // The worst pattern against the longest name matched: a bounded number of steps.
        // (Names are compared up to their first 1024 characters.)
        #expect(globMatch(String(repeating: "*a", count: 128), String(repeating: "a", count: 1_000_000)))
        #expect(!globMatch(String(repeating: "*a", count: 127) + "*b", String(repeating: "a", count: 1_000_000)))
        #expect(globMatch("*switch*", "USB Switch Interface"))
    }

    @Test func anEmptyConfigHomeCountsAsUnset() {
        #expect(ProfileLibrary.defaultFolders(environment: ["XDG_CONFIG_HOME": "", "HOME": "/home/u"])
                == ["Devices", "/home/u/.config/switchscan/devices"])
        #expect(ProfileLibrary.defaultFolders(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/home/u"])
                == ["Devices", "/c/switchscan/devices"])
        #expect(ProfileLibrary.defaultFolders(environment: [:]) == ["Devices"])
    }

    @Test func aProfileWhoseNameIsNotUTF8IsRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchscan-profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = #"{"schemaVersion": 1, "sections": [{"name": "latin1", "match": {"name": "Latin*"}, "switches": {"KEY_F13": "select"}}]}"#
        // "caf\xe9.json": Latin-1, not UTF-8.
        let name: [UInt8] = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".json".utf8) + [0]
        let fd = name.withUnsafeBufferPointer { p in p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) } }
        #expect(fd >= 0)
        #expect(write(fd, profile, profile.utf8.count) == profile.utf8.count)
        close(fd)
        let profiles = try ProfileLibrary.load(folders: [dir.path])
        let mapping = profiles.mapping(for: InputDeviceDescription(node: "n", name: "Latin pad", bus: "usb", vendor: 1, product: 2, capabilities: ["keyboard"]))
        #expect(mapping.sections.count == 1 && mapping.sections[0].hasSuffix(".json: latin1"))
    }

    /// Inputs the fuzzers found (Tests/Fixtures/fuzz): each loads, or is refused with its
    /// problems, as any input must.
    @Test func inputsTheFuzzersFoundAreHandled() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/FuzzProfile")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!files.isEmpty)
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            do {
                _ = try DeviceProfileLoader.load(bytes: bytes, file: name, codes: LibevdevCodes())
            } catch {
                #expect(!error.errors.isEmpty)
                #expect(error.errors.contains { $0.message.contains("unknown event code") }, "\(name): \(error)")
            }
        }
    }
}
