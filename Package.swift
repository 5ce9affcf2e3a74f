// swift-tools-version:6.0
import PackageDescription

// System libraries only: every C dependency comes from Debian's -dev packages through pkg-config.
let package = Package(
    name: "Time",
    products: [
        .executable(name: "time-agent", targets: ["time-agent"]),
        .executable(name: "timectl", targets: ["timectl"]),
        .executable(name: "time-tracker", targets: ["time-tracker"]),
        // Loaded with LD_PRELOAD by the crash-state tests: records every file operation under a folder.
        .library(name: "time-crash-recorder", type: .dynamic, targets: ["CrashRecorder"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CGLib", path: "Sources/CGLib", pkgConfig: "gobject-2.0",
                       providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CDBus", path: "Sources/CDBus", pkgConfig: "dbus-1",
                       providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CNotify", path: "Sources/CNotify", pkgConfig: "libnotify",
                       providers: [.apt(["libnotify-dev"])]),
        .systemLibrary(name: "CKernel", path: "Sources/CKernel"),

        // The one escaping of text for Pango markup, XML and SVG (and the loop JSON's writer shares).
        .target(name: "TextEscape"),
        // One JSON value (writer and reader) for TimeCore's snapshots and timectl's output.
        .target(name: "TimeJSON", dependencies: ["TextEscape"]),
        // The version of Time, in one place (see the file for who reads it).
        .target(name: "TimeVersion"),
        // CSHA256: SHA-256's block function on the CPU's SHA extensions (GLib's where there are none).
        .target(name: "CSHA256"),
        // Wall-clock marks along a request's path, off unless TIME_PATH_TRACE is set (docs/durable-path.md).
        .target(name: "PathTrace"),
        .target(name: "TimeCore", dependencies: ["TimeJSON", "TextEscape", "CSQLite", "CGLib", "CSHA256", "CKernel", "PathTrace"]),
        // libdbus in Swift (Sources/DBusKit, module DBusCore) and, in DBusKit, its GLib main-loop
        // integration; DBusKit re-exports DBusCore, so `import DBusKit` gives both. timectl uses
        // DBusCore alone and so never loads GLib or GObject (scripts/bench.sh).
        .target(name: "DBusCore", dependencies: ["CDBus", "TextEscape", "PathTrace"], path: "Sources/DBusKit"),
        .target(name: "DBusKit", dependencies: ["DBusCore", "CDBus", "CGLib"], path: "Sources/DBusKitGLib"),
        .target(name: "Notifier", dependencies: ["CNotify", "CGLib", "TextEscape"]),
        // "Left at T" / "back at T" from logind, the screen savers, Mutter and the kernel's clocks.
        .target(name: "Presence", dependencies: ["DBusKit", "CGLib", "CKernel"]),
        .target(name: "Tray", dependencies: ["DBusKit", "CGLib", "TextEscape"]),
        // SVG to PNG with librsvg, loaded by the agent on first use (never by timectl).
        .target(name: "ChartRaster", dependencies: ["CGLib"]),
        .target(name: "TimeAgent", dependencies: ["TimeCore", "DBusKit", "Notifier", "Presence", "Tray", "ChartRaster", "CGLib", "TimeVersion", "PathTrace"]),
        .executableTarget(name: "time-agent", dependencies: ["TimeAgent"]),
        // timectl is started for every keystroke: glibc is its only shared library (the Swift
        // runtime, libstdc++ and libdbus-1.a are linked in; scripts/ld-timectl says how), so it
        // starts about as fast as a C program (scripts/bench-timectl.sh), where libdbus-1.so would
        // load libsystemd and six more. A PIE with RELRO and BIND_NOW, like every binary of the
        // package (lintian wants no override: a static PIE passes for a shared library without
        // dependencies there). CSystemdClient: what libdbus-1.a needs from libsystemd (see its client.c).
        .target(name: "CSystemdClient"),
        // The contract seen from a client (names, decoded records, what people type): timectl's and the window's.
        .target(name: "TimeClient", dependencies: ["DBusCore"]),
        // Time's keyboard shortcut written where each desktop keeps it (its own tools); no GTK, no D-Bus.
        .target(name: "DesktopShortcuts"),
        .executableTarget(name: "timectl", dependencies: ["DBusCore", "TimeClient", "TimeJSON", "TextEscape", "CDBus", "TimeVersion", "CSystemdClient",
                                                          "DesktopShortcuts"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xclang-linker", "-static-libgcc",
                                                         "-use-ld=lld", "-ld-path=\(Context.packageDirectory)/scripts/ld-timectl",
                                                         "-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now"])]),
        // The window: gtk4 + libadwaita-1 (Debian 12: GTK 4.8, libadwaita 1.2); GtkKit is a small
        // Swift layer over them that knows nothing of time tracking; TimeWindow is the window,
        // a client of the agent like timectl (its view models are tested without a display).
        .systemLibrary(name: "CGtk", path: "Sources/CGtk", pkgConfig: "libadwaita-1",
                       providers: [.apt(["libadwaita-1-dev", "libgtk-4-dev"])]),
        // Everything of the window runs on GTK's one main thread (no Task, no Dispatch), which
        // Swift 6's checking cannot see through C callbacks: these two targets use Swift 5 mode.
        .target(name: "GtkKit", dependencies: ["CGtk"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "TimeWindow", dependencies: ["GtkKit", "CGtk", "TimeClient", "TimeJSON", "TextEscape", "DBusKit", "TimeVersion",
                                                   "DesktopShortcuts"],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "time-tracker", dependencies: ["TimeWindow"]),
        // Benchmarks (scripts/bench.sh): history generation and measurements against a real agent.
        .executableTarget(name: "time-bench", dependencies: ["TimeCore", "DBusKit"]),

        // Shared by the end-to-end tests: private buses, agent processes, a dunst desktop.
        .target(name: "TestSupport", dependencies: ["DBusKit"], path: "Tests/TestSupport"),
        // A fake logind (system bus) and Mutter IdleMonitor (session bus) for the away tests.
        .executableTarget(name: "time-fake-desktop", dependencies: ["DBusKit", "CGLib"], path: "Tests/FakeDesktop"),

        .target(name: "CrashRecorder", path: "Tests/CrashRecorder", linkerSettings: [.linkedLibrary("dl")]),

        .testTarget(name: "TextEscapeTests", dependencies: ["TextEscape", "CGLib"]),
        .testTarget(name: "TimeCoreTests", dependencies: ["TimeCore", "TestSupport"]),
        .testTarget(name: "DBusKitTests", dependencies: ["DBusCore", "DBusKit", "TextEscape", "TestSupport"]),
        .testTarget(name: "NotifierTests", dependencies: ["Notifier", "TestSupport"]),
        .testTarget(name: "PresenceTests", dependencies: ["Presence"]),
        .testTarget(name: "TrayTests", dependencies: ["Tray", "DBusKit", "CGLib", "TestSupport"]),
        .testTarget(name: "AgentTests", dependencies: ["TimeAgent", "TimeCore", "DBusKit", "TestSupport"]),
        .testTarget(name: "AgentNotificationTests", dependencies: ["TimeAgent", "TimeCore", "DBusKit", "TestSupport"]),
        .testTarget(name: "TimeWindowTests", dependencies: ["TimeWindow", "TimeClient", "DBusCore"]),
        .testTarget(name: "DesktopShortcutsTests", dependencies: ["DesktopShortcuts"]),
        .testTarget(name: "TimeClientTests", dependencies: ["TimeClient"]),
        .testTarget(name: "TimectlTests", dependencies: ["DBusKit", "TimeCore", "TestSupport"]),
    ]
)
