import CGLib
import Foundation
import XCTest

/// One private session bus (with no service files, so nothing is ever auto-started) and one Xvfb
/// for the whole test process. libnotify and GDBus keep process-global state bound to the first
/// bus they see, so every test shares this bus and starts or stops the servers it needs on it.
final class Harness: @unchecked Sendable {
    nonisolated(unsafe) static var shared: Harness?

    let dir: URL
    let outputDir: URL
    let busAddress: String
    let display: String
    private var bus: Process
    private var xvfb: Process
    private var helpers: [Process] = []

    static func get() throws -> Harness {
        if let h = shared { return h }
        let h = try Harness()
        shared = h
        XCTestObservationCenter.shared.addTestObserver(NotifierTestObserver())
        return h
    }

    private init() throws {
        dir = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("notifier-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if let out = ProcessInfo.processInfo.environment["TIME_TEST_OUTPUT"], !out.isEmpty {
            outputDir = URL(fileURLWithPath: out)
        } else {
            outputDir = dir.appendingPathComponent("output")
        }
        try FileManager.default.createDirectory(at: outputDir, withIntermediateDirectories: true)

        let conf = dir.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(dir.path)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: conf, atomically: true, encoding: .utf8)
        bus = Process()
        (bus.executableURL, bus.arguments) = Harness.command("dbus-daemon", ["--config-file=\(conf.path)", "--print-address=1", "--nofork"])
        let pipe = Pipe()
        bus.standardOutput = pipe
        try bus.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        busAddress = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !busAddress.isEmpty else { throw HarnessError("dbus-daemon printed no address") }
        setenv("DBUS_SESSION_BUS_ADDRESS", busAddress, 1)

        var n = 90
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)")
                || FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock") { n += 1 }
        display = ":\(n)"
        xvfb = Process()
        (xvfb.executableURL, xvfb.arguments) =
            Harness.command("Xvfb", [display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
        xvfb.standardError = FileHandle.nullDevice
        try xvfb.run()
        setenv("DISPLAY", display, 1)
        try Harness.waitFor(seconds: 10, "Xvfb socket") {
            FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)")
        }
    }

    /// Torn down at the end of the test process (see NotifierTestObserver).
    func tearDownAll() {
        for p in helpers where p.isRunning { p.terminate(); p.waitUntilExit() }
        usleep(200_000)
        for p in [xvfb, bus] where p.isRunning { p.terminate(); p.waitUntilExit() }
        try? FileManager.default.removeItem(at: dir)
    }

    func spawn(_ path: String, _ args: [String], stdout: FileHandle? = nil) throws -> Process {
        let p = Process()
        (p.executableURL, p.arguments) = Harness.command(path, args)
        if let stdout { p.standardOutput = stdout }
        try p.run()
        helpers.append(p)
        return p
    }

    func stop(_ p: Process) {
        if p.isRunning { p.terminate(); p.waitUntilExit() }
        helpers.removeAll { $0 === p }
    }

    /// A bare tool name is looked up on PATH.
    static func command(_ path: String, _ args: [String]) -> (URL, [String]) {
        path.contains("/") ? (URL(fileURLWithPath: path), args)
                           : (URL(fileURLWithPath: "/usr/bin/env"), [path] + args)
    }

    /// Runs a tool to completion; returns (status, stdout).
    @discardableResult
    func run(_ path: String, _ args: [String]) throws -> (Int32, String) {
        let p = Process()
        (p.executableURL, p.arguments) = Harness.command(path, args)
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func nameHasOwner(_ name: String) -> Bool {
        let r = try? run("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus",
                                               "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                                               "string:\(name)"])
        return r?.1.contains("boolean true") ?? false
    }

    static func waitFor(seconds: Double, _ what: String, _ cond: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try cond() { return }
            usleep(50_000)
        }
        throw HarnessError("timed out waiting for \(what)")
    }

    /// Iterates the global default main context (where onAction is delivered) until cond holds.
    static func iterateMain(seconds: Double, _ cond: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while g_main_context_iteration(nil, 0) != 0 {}
            if cond() { return true }
            usleep(20_000)
        }
        return cond()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

final class NotifierTestObserver: NSObject, XCTestObservation {
    func testBundleDidFinish(_ testBundle: Bundle) { Harness.shared?.tearDownAll() }
}
