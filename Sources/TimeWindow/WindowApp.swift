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
            made.present()
        }
        let status = application.run(arguments: arguments)
        window = nil
        return status
    }
}
