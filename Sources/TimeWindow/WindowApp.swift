import CGtk
import GtkKit
import TimeClient
import TimeVersion

/// `time-tracker`: the application `io.github.timetracker.Time`, one instance per session
/// (a second start, the menu entry, the tray's Open Time and the notification activate the first).
public enum WindowApp {
    public static let applicationID = "io.github.timetracker.Time"
    public static let version = TimeVersion.string

    /// Runs the window until it closes; returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("""
            Usage: time-tracker [--gapplication-service]

            Time's window: the running timer, your projects, the day and the week. It talks to
            time-agent on the session bus (starting it when needed) and never opens the data itself.
            Keyboard: Ctrl+Z undo, Ctrl+Shift+Z redo, Ctrl+, preferences, Ctrl+H history,
            Ctrl+? shortcuts, Ctrl+Q quit.
            """)
            return 0
        }
        if arguments.contains("--version") {
            print("time-tracker \(version)")
            return 0
        }
        chooseRenderer()
        let application = Application(id: applicationID)
        var window: MainWindow?
        application.onActivate {
            if let window { return window.present() }
            let link: AgentLink
            do {
                link = try AgentLink()
            } catch {
                fputs("time-tracker: cannot connect to the session bus (\(error)); run it inside a desktop session.\n", stderr)
                return
            }
            // Ask for the agent's state first: its answer comes while the window is being built.
            link.connect()
            let shared = WindowContext(link: link)
            let made = MainWindow(application: application, context: shared)
            window = made
            made.presentWhenLoaded()
        }
        let status = application.run(arguments: arguments)
        window = nil
        return status
    }

    /// The window draws with cairo unless the person chose a renderer (GSK_RENDERER): it is lists
    /// and labels, which cairo draws at no cost, and GTK 4.8 on X11 otherwise sets up OpenGL when it
    /// opens the display. Measured under Xvfb (Mesa's llvmpipe, as on a machine without a GPU
    /// driver): 107 MB resident with OpenGL (47 MB of it libLLVM), 44 MB without, and 240 ms of
    /// processor time to the data shown against 140 ms (scripts/profile-window.sh: the dynamic
    /// linking of libLLVM was the largest single cost of the start). With cairo chosen,
    /// OpenGL is not set up at all (GDK_DEBUG=gl-disable), unless GDK_DEBUG says otherwise.
    static func chooseRenderer() {
        setenv("GSK_RENDERER", "cairo", 0)
        if String(cString: getenv("GSK_RENDERER")) == "cairo", getenv("GDK_DEBUG") == nil {
            setenv("GDK_DEBUG", "gl-disable", 1)
        }
    }
}
