import Foundation
import XCTest
@testable import TimeAgent
@testable import TimeCore

/// What the tray shows for each state: icon names, pixmap color, label, title line, tooltip.
final class TrayLookTests: XCTestCase {
    private let project = Project(id: 1, name: "R&D <core>", color: "#3465a4", categoryID: 1, archived: false)

    private func status(running: Bool) -> TimerStatus {
        let start: Int64 = 1_000_000
        let segments = running ? [Segment(start: start, end: start + 600), Segment(start: start + 900, end: nil)]
                               : [Segment(start: start, end: start + 2520)]
        let session = WorkSession(id: 7, projectID: 1, start: start, end: nil, unrecordedSeconds: 0, note: "", segments: segments)
        return TimerStatus(state: running ? .running : .paused, session: session, project: project, categoryName: "Work", lastProjectName: "R&D <core>")
    }

    func testRunning() {
        let look = withTimeZone("UTC") { TrayLook(status: status(running: true), now: 1_000_000 + 900 + 1920, today: 11_400) }
        XCTAssertEqual(look.title, "R&D <core> · Work — 0:42 (today 3:10)")
        XCTAssertEqual(look.appearance.iconName, "io.github.timetracker.Time-running-symbolic")
        XCTAssertEqual(look.appearance.label, "▶ 0:42")
        XCTAssertEqual(look.appearance.iconDescription, "Time: R&D <core>, running")
        XCTAssertEqual(look.appearance.iconPixmaps.map(\.width), [16, 22, 32])
        XCTAssertTrue(look.appearance.tooltipMarkup.contains("<b>R&amp;D &lt;core&gt;</b>"), look.appearance.tooltipMarkup)
        XCTAssertTrue(look.appearance.tooltipMarkup.contains("0:42, since 14:01"), look.appearance.tooltipMarkup)
        XCTAssertTrue(look.appearance.tooltipMarkup.contains("Today: 3:10"))
    }

    /// With a weekly target the title line holds the week against it.
    func testTheWeekAgainstItsTarget() {
        let running = withTimeZone("UTC") {
            TrayLook(status: status(running: true), now: 1_000_000 + 900 + 1920, today: 11_400, week: "week 31:20 of 40:00")
        }
        XCTAssertEqual(running.title, "R&D <core> · Work — 0:42 (today 3:10, week 31:20 of 40:00)")
        let idle = TrayLook(status: nil, now: 0, today: 0, week: "week 0:00 of 40:00")
        XCTAssertEqual(idle.title, "Not tracking (today 0:00, week 0:00 of 40:00)")
        XCTAssertEqual(TrayLook(status: nil, now: 0, today: 0).title, "Not tracking (today 0:00)", "no target, no week")
    }

    func testPausedAndIdle() {
        let paused = withTimeZone("UTC") { TrayLook(status: status(running: false), now: 1_000_000 + 4000, today: 2520) }
        XCTAssertEqual(paused.appearance.iconName, "io.github.timetracker.Time-paused-symbolic")
        XCTAssertEqual(paused.appearance.label, "▮▮ 0:42", "no ⏸: DejaVu, the fonts' last resort, lacks it")
        XCTAssertTrue(paused.title.hasSuffix("· paused"), paused.title)
        let idle = TrayLook(status: TimerStatus(state: .idle, session: nil, project: nil, categoryName: "", lastProjectName: ""), now: 0, today: 11_400)
        XCTAssertEqual(idle.title, "Not tracking (today 3:10)")
        XCTAssertEqual(idle.appearance.iconName, "io.github.timetracker.Time-idle-symbolic")
        XCTAssertEqual(idle.appearance.label, "", "no label beside an idle icon")
    }

    /// The Start submenu: the open project first even when another project has a newer session
    /// (one added by hand, or from another device), then by newest session, then by name;
    /// archived projects only while open.
    func testStartSubmenuOrder() {
        func project(_ id: Int64, _ name: String, archived: Bool = false) -> Project {
            Project(id: id, name: name, color: "#3465a4", categoryID: nil, archived: archived)
        }
        func session(_ id: Int64, _ project: Int64, start: Int64) -> WorkSession {
            WorkSession(id: id, projectID: project, start: start, end: start + 60, unrecordedSeconds: 0, note: "", segments: [])
        }
        let writing = project(1, "Writing"), code = project(2, "Code"), admin = project(3, "admin"),
            old = project(4, "Old", archived: true), books = project(5, "Books")
        let sessions = [session(1, 1, start: 100), session(2, 2, start: 300), session(3, 4, start: 400), session(4, 3, start: 200)]
        let all = [writing, code, admin, old, books]
        XCTAssertEqual(TrayLook.recentFirst(open: writing, sessions: sessions, projects: all).map(\.name),
                       ["Writing", "Code", "admin", "Books"])
        XCTAssertEqual(TrayLook.recentFirst(open: nil, sessions: sessions, projects: all).map(\.name),
                       ["Code", "admin", "Writing", "Books"])
        XCTAssertEqual(TrayLook.recentFirst(open: old, sessions: sessions, projects: all).map(\.name),
                       ["Old", "Code", "admin", "Writing", "Books"], "an archived project while it is open")
    }

    /// Hosts are told where our icons are only when they would not look there anyway.
    func testIconThemePathOnlyOutsideTheSystemFolders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("time-icons-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let apps = root + "/home/.local/share/icons/hicolor/symbolic/apps"
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: apps + "/\(AppIcons.running).svg"))
        let agent = root + "/home/.local/bin/time-agent"
        XCTAssertEqual(AppIcons.themePath(executable: agent, dataDirectories: nil), apps)
        XCTAssertEqual(AppIcons.themePath(executable: agent, dataDirectories: "/usr/share:\(root)/home/.local/share/"), "",
                       "listed in XDG_DATA_DIRS: every host looks there")
        XCTAssertEqual(AppIcons.themePath(executable: root + "/build/debug/time-agent", dataDirectories: nil), "",
                       "no icons beside a build tree's agent")
        XCTAssertEqual(AppIcons.themePath(executable: "/usr/bin/time-agent", dataDirectories: nil), "")
        XCTAssertEqual(AppIcons.themePath(executable: "time-agent", dataDirectories: nil), "")
    }

    /// Every icon the agent names is one of ours, drawn in data/icons (the package and
    /// scripts/install.sh install that folder).
    func testEveryIconNameIsInTheProjectsIcons() throws {
        let icons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../data/icons/hicolor").standardized.path
        for name in [AppIcons.running, AppIcons.paused, AppIcons.idle] {
            let svg = try String(contentsOfFile: icons + "/symbolic/apps/\(name).svg", encoding: .utf8)
            XCTAssertTrue(svg.contains("<svg") && svg.contains("ColorScheme-Text"), name)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: icons + "/scalable/apps/\(AppIcons.application).svg"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: icons + "/symbolic/apps/\(AppIcons.application)-symbolic.svg"))
    }

    private func withTimeZone<T>(_ zone: String, _ body: () -> T) -> T {
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1); tzset()
        defer { if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }; tzset() }
        return body()
    }
}
