import DBusKit
import Foundation

/// An X display (Xvfb) with dunst as the notification server, on a given bus.
public final class NotificationDesktop {
    public let display: String
    public let directory: TemporaryDirectory
    private let xvfb: Process
    private var dunst: Process?
    private let bus: PrivateBus
    /// What the dmenu script picks from dunst's context menu (a substring of the wanted line).
    public let menuChoiceFile: String

    public init(bus: PrivateBus) throws {
        self.bus = bus
        directory = TemporaryDirectory("time-desktop")
        menuChoiceFile = directory.file("choice")
        var number = 90 + Int(getpid() % 400)
        var started: Process?
        for _ in 0..<20 {
            if !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") && !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
                let candidate = try Command.start("Xvfb", [":\(number)", "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
                if wait(seconds: 5, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }) && candidate.isRunning {
                    started = candidate
                    break
                }
                Command.stop(candidate)
            }
            number += 1
        }
        guard let started else { throw FixtureError("Xvfb could not start") }
        xvfb = started
        display = ":\(number)"
        try startDunst()
    }

    public var environment: [String: String] { bus.environment.merging(["DISPLAY": display]) { $1 } }

    /// Starts (or restarts) dunst with a config whose context menu picks `menuChoiceFile`'s line.
    public func startDunst() throws {
        let script = directory.file("pick.sh")
        try """
        #!/bin/sh
        choice=$(cat '\(menuChoiceFile)' 2>/dev/null)
        grep -m1 -F -- "$choice"
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let config = directory.file("dunstrc")
        try """
        [global]
            font = DejaVu Sans 11
            geometry = "500x5-10+10"
            width = 500
            origin = top-right
            offset = 10x10
            markup = full
            format = "<b>%s</b>\\n%b"
            dmenu = \(script)
            show_indicators = no
            idle_threshold = 0
        [urgency_low]
            background = "#222222"
            foreground = "#ffffff"
            timeout = 0
        [urgency_normal]
            background = "#285577"
            foreground = "#ffffff"
            timeout = 0
        [urgency_critical]
            background = "#900000"
            foreground = "#ffffff"
            timeout = 0
        """.write(toFile: config, atomically: true, encoding: .utf8)
        dunst = try Command.start("dunst", ["-config", config], environment: environment, log: directory.file("dunst.log"))
        let client = try bus.connect()
        defer { client.close() }
        guard wait(seconds: 10, { (try? client.nameHasOwner("org.freedesktop.Notifications")) == true }) else {
            throw FixtureError("dunst did not take org.freedesktop.Notifications")
        }
    }

    public func stopDunst() {
        if let dunst { Command.stop(dunst) }
        dunst = nil
    }

    /// Runs dunstctl against this desktop.
    public func dunstctl(_ arguments: [String]) throws -> CommandResult {
        try Command.run("dunstctl", arguments, environment: environment)
    }

    /// Picks the context-menu line containing `label` of the newest notification (its action).
    public func invokeAction(_ label: String) throws {
        try label.write(toFile: menuChoiceFile, atomically: true, encoding: .utf8)
        _ = try dunstctl(["context"])
    }

    /// Saves a screenshot of the whole display as PNG.
    public func screenshot(to path: String) throws {
        let result = try Command.run("import", ["-window", "root", path], environment: environment)
        guard result.status == 0 else { throw FixtureError("import failed: \(result.stderr)") }
    }

    public func stop() {
        stopDunst()
        Command.stop(xvfb)
        directory.remove()
    }
}

extension NotificationDesktop {
    /// `dunstctl count displayed` (or `history`, `waiting`); -1 when dunstctl fails.
    public func count(_ which: String = "displayed") -> Int {
        guard let result = try? dunstctl(["count", which]), result.status == 0 else { return -1 }
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
