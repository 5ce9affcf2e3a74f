import XCTest
@testable import TimeCore

/// `FocusCount` reads only the `focus` column of the sessions overlapping today
/// (`Store.focusPhases`). The oracle counts the phases of every session in the store that ended
/// within the local day.
final class FocusCountTests: KeeperTestCase {
    private func setPhases(_ id: SessionID, _ phases: [FocusSpan]) throws {
        try tracker.change {
            var session = try XCTUnwrap(try tracker.store.session(id: id))
            session.focus = phases
            try tracker.store.updateFocus(of: session)
        }
        try tracker.reload()
    }

    private func oracle() throws -> UInt32 {
        let day = LocalTime.date(of: clock.time)
        let from = LocalTime.startOfDay(day), to = LocalTime.startOfDay(day.adding(days: 1))
        return UInt32(try tracker.store.allSessions().flatMap(\.focus).filter { $0.end >= from && $0.end < to }.count)
    }

    func testPhasesEndingTodayAreCountedWhateverDayTheirSessionBegan() throws {
        let project = try tracker.createProject(name: "Writing", color: "", category: "")
        let today = LocalTime.startOfDay(LocalTime.date(of: clock.time))
        // Began three days ago and still open: a phase today, one three days ago.
        clock.time = today - 3 * 86400 + 3600
        _ = try tracker.startProject("Writing")
        let open = try XCTUnwrap(tracker.store.openSession()).id
        clock.time = today + 6 * 3600
        try setPhases(open, [FocusSpan(start: today - 3 * 86400 + 3600, end: today - 3 * 86400 + 5100),
                             FocusSpan(start: today + 3600, end: today + 5100)])
        XCTAssertEqual(try tracker.focusCount(), 1)
        // Yesterday evening into today: the phase ending after midnight counts, the one before not.
        let evening = try tracker.addSession(project: project, start: today - 3600, duration: "2h", note: "")
        try setPhases(evening, [FocusSpan(start: today - 3500, end: today - 2000), FocusSpan(start: today - 600, end: today + 900)])
        // Today, with two phases, and one without any.
        let morning = try tracker.addSession(project: project, start: today + 2 * 3600, duration: "1h", note: "")
        try setPhases(morning, [FocusSpan(start: today + 2 * 3600, end: today + 2 * 3600 + 1500),
                                FocusSpan(start: today + 2 * 3600 + 1800, end: today + 2 * 3600 + 3300)])
        _ = try tracker.addSession(project: project, start: today + 4 * 3600, duration: "30m", note: "")
        // Two days ago: none of it counts.
        let before = try tracker.addSession(project: project, start: today - 2 * 86400, duration: "1h", note: "")
        try setPhases(before, [FocusSpan(start: today - 2 * 86400, end: today - 2 * 86400 + 1500)])
        XCTAssertEqual(try oracle(), 4)
        XCTAssertEqual(try tracker.focusCount(), try oracle())
    }
}
