import Foundation

/// Time's window as the agent sees it on the bus: an application `io.github.timetracker.Time`
/// that the bus starts on demand (a service file) and that is a real GApplication (Python's GIO,
/// the shape `time-tracker` has), writing a line to `activations` each time it is activated.
public struct WindowStandIn {
    public static let applicationID = "io.github.timetracker.Time"
    /// One "activate" line per `org.freedesktop.Application.Activate` it received.
    public let activations: String

    /// Writes the application into `folder` and installs its service file on `bus`.
    public init(bus: PrivateBus, folder: String) throws {
        activations = folder + "/window-activations"
        let script = folder + "/window.py"
        try """
        import sys
        import gi
        gi.require_version("Gio", "2.0")
        from gi.repository import Gio

        def activated(application):
            with open(sys.argv[1], "a") as out:
                out.write("activate\\n")

        app = Gio.Application(application_id="\(Self.applicationID)", flags=Gio.ApplicationFlags.IS_SERVICE)
        app.connect("activate", activated)
        app.hold()
        app.run(None)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        try bus.installService(name: Self.applicationID, exec: "/usr/bin/python3 \(script) \(activations)")
    }

    /// How many times it was activated so far.
    public var count: Int {
        ((try? String(contentsOfFile: activations, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == "activate" }.count
    }
}
