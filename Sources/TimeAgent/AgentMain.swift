import PathTrace
import CGLib
import DBusKit
import Glibc
import TimeCore

/// `time-agent`: command line, start-up, the main loop and a clean shutdown.
public enum AgentMain {
    static let usage = """
    Usage: time-agent [OPTIONS]

    The Time session agent: owns the desktop-wide timer and your time-tracking data, and serves
    them on the session bus as io.github.timetracker.Time1 (see timectl(1)). Usually started by
    D-Bus activation (the login's autostart entry asks for it with --activate), not by hand.

    Options:
      --data-dir DIR         keep the data in DIR (default: $TIME_TRACKER_DATA_DIR, else
                             $XDG_DATA_HOME/time-tracker, else ~/.local/share/time-tracker)
      --no-notifications     do not show desktop notifications
      --no-tray              do not show the tray icon (StatusNotifierItem)
      --verbose              log debugging details to stderr
      --activate             ask the session bus to start the agent (D-Bus activation: through
                             systemd's time-agent.service where the bus uses systemd), and exit
                             once it runs; serve in this process when the bus cannot start it
      --print-introspection  print the D-Bus introspection XML the agent serves, and exit
      --help                 show this help, and exit
      --version              show the version, and exit

    Exit status: 0 after a clean shutdown (SIGTERM, SIGINT, or the session bus closing), or with
    --activate once the bus started the agent (or it was running); 1 when the agent cannot start
    (another agent is running, no session bus, unusable data folder); 2 on a usage error.
    """

    struct Options {
        var dataDirectory: String?
        var notifications = true
        var tray = true
        var verbose = false
        var printIntrospection = false
        var activate = false
    }

    enum ParseResult { case run(Options), exit(Int32) }

    static func parse(_ arguments: [String]) -> ParseResult {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": print(usage); return .exit(0)
            case "--version": print("time-agent \(Contract.version)"); return .exit(0)
            case "--verbose", "-v": options.verbose = true
            case "--no-notifications": options.notifications = false
            case "--no-tray": options.tray = false
            case "--print-introspection": options.printIntrospection = true
            case "--activate": options.activate = true
            case "--data-dir":
                guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
                    return usageError("--data-dir needs a folder")
                }
                index += 1
                options.dataDirectory = arguments[index]
            default:
                if argument.hasPrefix("--data-dir=") {
                    options.dataDirectory = String(argument.dropFirst("--data-dir=".count))
                } else {
                    return usageError("unknown option \(argument)")
                }
            }
            index += 1
        }
        return .run(options)
    }

    private static func usageError(_ message: String) -> ParseResult {
        fail("\(message) (see time-agent --help)")
        return .exit(2)
    }

    static func fail(_ message: String) {
        var bytes = Array("time-agent: \(message)\n".utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The introspection XML of the agent's object, the source of dbus/io.github.timetracker.Time1.xml.
    public static func introspection() -> String {
        let tracker = try! Tracker(store: Store(path: ":memory:", create: true))
        let service = AgentService(tracker: tracker, storage: .ok, notifications: false)
        return introspectionXML(interfaces: [service.interface])
    }

    public static func run(_ arguments: [String]) -> Int32 {
        let options: Options
        switch parse(arguments) {
        case .exit(let code): return code
        case .run(let parsed): options = parsed
        }
        if options.printIntrospection {
            print(introspection(), terminator: "")
            return 0
        }
        Log.verbose = options.verbose
        signal(SIGPIPE, SIG_IGN)
        if options.activate {
            switch BusActivation.start() {
            case .running: return 0
            case .serveHere(let reason): Log.info("\(reason); serving in this process")
            }
        }

        let directory = DataDirectory.resolve(explicit: options.dataDirectory)
        let home: DataHome
        do {
            home = try DataHome(directory: directory)
        } catch {
            fail(error.description)
            return 1
        }
        switch home.status.state {
        case .ok: Log.debug("data in \(directory)")
        case .restored: Log.warning(home.status.message)
        case .readOnly: Log.error(home.status.message)
        }
        for warning in home.warnings { Log.warning(warning) }

        let connection: BusConnection
        do {
            connection = try BusConnection.session()
        } catch {
            fail("cannot connect to the session bus (\(error)); run it inside a desktop session, or through scripts/run.sh, which starts a bus when there is none")
            return 1
        }
        connection.attachToMainContext(nil)
        let minuteLength = getenv("TIME_AGENT_MINUTE_SECONDS").flatMap { Int64(String(cString: $0)) }.map { max(1, $0) } ?? 60
        let service = AgentService(tracker: home.tracker, storage: home.status,
                                   notifications: options.notifications, minuteLength: minuteLength)
        service.dataFolder = directory
        do {
            try service.export(on: connection)
            let reply = try connection.requestName(Contract.busName, flags: [.doNotQueue])
            guard reply == .primaryOwner || reply == .alreadyOwner else {
                fail("another time-agent already owns \(Contract.busName) on this session bus; use it (timectl status) or stop it first")
                service.shutdown()
                connection.close()
                return 1
            }
        } catch {
            fail("cannot serve \(Contract.busName) on the session bus (\(error))")
            service.shutdown()
            return 1
        }
        // Tests shorten how long a tray host has to read the item before it registers again.
        let readDeadline = getenv("TIME_AGENT_TRAY_READ_SECONDS").flatMap { UInt32(String(cString: $0)) }.map { max(1, $0) }
        let tray = options.tray ? AgentTray(service: service, minuteLength: minuteLength, readDeadlineSeconds: readDeadline) : nil
        if let tray {
            do {
                try tray.attach(to: connection)
                service.tray = tray
                service.refreshAfterChange()
            } catch {
                Log.warning("no tray icon: \(error)")
                tray.detach()
            }
        }
        Log.info("serving \(Contract.busName) with data in \(directory) (storage \(home.status.state.rawValue))")
        service.startAwayDetection(sessionBus: connection)
        // What the start read (the whole store for its check, every index of the snapshots) is
        // not kept while the agent idles: the page cache goes, and malloc gives the freed memory back.
        home.tracker.store.database.releaseMemory()
        _ = mallocTrim?(0)

        let loop = g_main_loop_new(nil, 0)!
        defer { g_main_loop_unref(loop) }
        let loopPointer = UnsafeMutableRawPointer(loop)
        g_unix_signal_add(SIGTERM, quitOnSignal, loopPointer)
        g_unix_signal_add(SIGINT, quitOnSignal, loopPointer)
        connection.onDisconnect = {
            Log.info("the session bus went away; exiting")
            g_main_loop_quit(loop)
        }
        g_main_loop_run(loop)
        PathTrace.write()

        tray?.detach()
        service.tray = nil
        service.shutdown()
        connection.close()
        Log.info("stopped; the store was closed cleanly")
        return 0
    }
}

private func quitOnSignal(_ data: UnsafeMutableRawPointer?) -> gboolean {
    g_main_loop_quit(OpaquePointer(data))
    return 1 // G_SOURCE_CONTINUE: a second signal during shutdown is harmless
}

/// glibc's `malloc_trim`, which Swift's Glibc module leaves out (it is in malloc.h).
private let mallocTrim: (@convention(c) (Int) -> Int32)? = dlsym(nil, "malloc_trim").map {
    unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
}
