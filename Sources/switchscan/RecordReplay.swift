import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import SwitchInput

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a device's events (evemu-record text format) for replaying and for tests."
    )

    @Argument(help: "The device node, e.g. /dev/input/event5 ('switchscan devices' lists them).")
    var device: String

    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    @Option(help: "Stop after this many seconds (otherwise Ctrl-C).")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration takes seconds between 0 and 86400, e.g. --duration 30")
        }
    }

    func run() throws {
        TerminationSignals.block()
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: device) } catch { throw fail("Error: \(error.description)") }
        guard FileManager.default.createFile(atPath: output, contents: nil), let out = FileHandle(forWritingAtPath: output) else {
            throw fail("Error: cannot write \(output); check the folder exists and is writable.")
        }
        let d = dev.describe()
        var header = EvemuRecording.header(name: d.name, bus: UInt16(truncatingIfNeeded: dev.busType), vendor: d.vendor, product: d.product)
        let codes = LibevdevCodes()
        for (code, range) in dev.axisRanges((0..<0x40).compactMap { codes.code(named: codes.name(type: 3, code: $0)) }).sorted(by: { $0.key < $1.key }) {
            header += "A: \(String(format: "%02x", code)) \(range.lowerBound) \(range.upperBound) 0 0 0\n"
        }
        out.write(Data(header.utf8))
        writeErr("Recording \(device) (\(d.name)) to \(output); press Ctrl-C to stop.\n")
        let queue = DispatchQueue(label: "switchscan.record")
        var start: ScanInstant?
        let source = DispatchSource.makeReadSource(fileDescriptor: dev.fd, queue: queue)
        source.setEventHandler {
            var text = ""
            let gone = dev.readRaw { e in
                if start == nil { start = e.time }
                text += EvemuRecording.line(e, since: start!) + "  # " + codes.name(type: e.type, code: e.code) + "\n"
            }
            out.write(Data(text.utf8))
            if let gone { writeErr("\(gone.description)\n"); Foundation.exit(1) }
        }
        source.activate()
        if let duration {
            queue.asyncAfter(deadline: .now() + duration) { out.closeFile(); Foundation.exit(0) }
        }
        // Ctrl-C (or any termination signal) is the way to stop: what was read is kept.
        _ = TerminationSignals.wait()
        queue.sync { out.closeFile() }
        Foundation.exit(0)
    }
}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded device session headlessly, in virtual time, through its profile; effects as JSON lines."
    )

    @Argument(help: "A recording (evemu-record text format), e.g. from 'switchscan record'.")
    var recording: String

    @Option(help: "The layout file (default: the bundled Layouts/switch-control.uikit.json).")
    var layout: String?

    @OptionGroup var options: ScanOptions

    @Option(name: .customLong("profiles"), help: "A folder of device profiles (default: Devices/).")
    var profilesFolder: [String] = []

    @Option(help: ArgumentHelp("Stop at this many seconds of virtual time (e.g. 12.5; default: 10 s after the last event).", valueName: "seconds"))
    var until: String?
    var untilSeconds: Double? { until.flatMap { Seconds(argument: $0)?.value } }

    func validate() throws {
        if let until, Seconds(argument: until).map({ $0.value <= Double(EvemuRecording.maxSeconds) }) != true {
            throw ValidationError("--until takes seconds between 0 and \(EvemuRecording.maxSeconds), got \"\(excerpt(until))\"; e.g. --until 12.5")
        }
    }

    func run() throws {
        var problems: [String] = []
        var rec: EvemuRecording.Recording?
        var profiles = DeviceProfiles(sections: [])
        let (document, scanSettings) = options.load(layout: layout ?? BundledData.file("Layouts/switch-control.uikit.json"), problems: &problems)
        do { profiles = try ProfileLibrary.load(folders: profilesFolder.isEmpty ? [BundledData.file("Devices")] : profilesFolder) }
        catch { problems.append(error.description) }
        do {
            let bytes = try readBytes(recording, what: "recording", limit: EvemuRecording.maxFileSize, streams: true)
            do { rec = try EvemuRecording.parse(bytes: bytes, file: recording) }
            catch { problems.append(error.description) }
        } catch { problems.append(error.message) }
        guard problems.isEmpty, let document, let rec else { throw fail(problems.joined(separator: "\n")) }
        let codes = LibevdevCodes()
        // What the recorded device was: its name and ids, and capabilities from its codes.
        var caps: Set<String> = []
        let used = Set(rec.events.map { codes.name(type: $0.type, code: $0.code) })
        if used.contains(where: { $0.hasPrefix("KEY_") }) { caps.insert("keyboard") }
        if used.contains("BTN_LEFT") { caps.insert("mouse") }
        if used.contains(where: { ["BTN_SOUTH", "BTN_EAST", "BTN_NORTH", "BTN_WEST"].contains($0) }) { caps.insert("gamepad") }
        if used.contains(where: { $0.hasPrefix("ABS_") || $0 == "BTN_TRIGGER" }) { caps.insert("joystick") }
        let desc = InputDeviceDescription(node: recording, name: rec.name, bus: bus(rec.bus), vendor: rec.vendor, product: rec.product, capabilities: caps)
        let mapping = profiles.mapping(for: desc)
        guard !mapping.isEmpty else {
            let folders = profilesFolder.isEmpty ? [BundledData.file("Devices")] : profilesFolder
            throw fail("\(recording): no device profile in \(folders.joined(separator: ", ")) maps a switch for the recorded device \"\(excerpt(rec.name))\" (\(desc.idText)); add a profile (see Devices/README.md) or pass --profiles.")
        }
        var decoder = SwitchDecoder(mapping: mapping, deviceID: 1, axisRanges: rec.axisRanges)
        let events = rec.events.flatMap { decoder.decode($0) }
        let end = untilSeconds.map { ScanInstant.seconds($0) } ?? ((rec.events.last?.time ?? .zero) + .seconds(10))
        var driver = ManualDriver(engine: ScanEngine(tree: document.tree, settings: scanSettings))
        driver.schedule(events)
        var json = EffectJSON()
        writeOut(json.lines(driver.start() + driver.advance(to: end)))
    }

    func bus(_ b: UInt16) -> String {
        switch b { case 3: return "usb"; case 5: return "bluetooth"; case 6: return "virtual"; default: return "" }
    }
}
