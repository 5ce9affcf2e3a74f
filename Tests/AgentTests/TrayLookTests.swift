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
        XCTAssertEqual(look.appearance.iconName, "media-playback-start")
        XCTAssertEqual(look.appearance.label, "▶ 0:42")
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
        XCTAssertEqual(paused.appearance.iconName, "media-playback-pause")
        XCTAssertEqual(paused.appearance.label, "⏸ 0:42")
        XCTAssertTrue(paused.title.hasSuffix("· paused"), paused.title)
        let idle = TrayLook(status: TimerStatus(state: .idle, session: nil, project: nil, categoryName: "", lastProjectName: ""), now: 0, today: 11_400)
        XCTAssertEqual(idle.title, "Not tracking (today 3:10)")
        XCTAssertEqual(idle.appearance.iconName, "media-playback-stop")
        XCTAssertEqual(idle.appearance.label, "", "no label beside an idle icon")
    }

    private func withTimeZone<T>(_ zone: String, _ body: () -> T) -> T {
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1); tzset()
        defer { if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }; tzset() }
        return body()
    }
}
