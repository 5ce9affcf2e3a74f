import DBusCore
import TimeClient
import TimeWindow
import XCTest

/// The focus timer in the Now view's model: the phase's words, the bar of what is left, which
/// buttons show, and that a tick changes only the time left.
final class FocusModelTests: XCTestCase {
    private func properties(_ phase: String, ends: Int64, state: String = "running") -> AgentProperties {
        AgentProperties(["State": .string(state), "Project": .string("Writing"), "LastProject": .string("Writing"),
                         "FocusState": .string(phase), "FocusEnds": .int64(ends), "FocusMinutes": .uint32(25),
                         "BreakMinutes": .uint32(5), "LongBreakMinutes": .uint32(15)])
    }

    func testThePhaseItsBarAndItsButtons() {
        let now: Int64 = 1_800_000_000
        var shown = FocusShown(properties: properties("focus", ends: now + 10 * 60), now: now)
        XCTAssertEqual(shown.text, "Focus · 10 min left")
        XCTAssertEqual(shown.left, 0.4, accuracy: 1e-9, "10 of 25 minutes left")
        XCTAssertTrue(shown.showsBar && shown.showsExtend && shown.showsStopFocus && shown.ticks)
        XCTAssertFalse(shown.showsStartFocus)
        XCTAssertEqual(shown.skipLabel, "Skip")

        shown = FocusShown(properties: properties("break", ends: now + 61, state: "paused"), now: now)
        XCTAssertEqual(shown.text, "Break · 2 min left")
        XCTAssertTrue(shown.ticks, "a break counts down while the session is paused")

        shown = FocusShown(properties: properties("focus", ends: now + 600, state: "paused"), now: now)
        XCTAssertEqual(shown.text, "Focus paused with the session")
        XCTAssertFalse(shown.showsBar || shown.ticks)

        shown = FocusShown(properties: properties("waiting", ends: 0), now: now)
        XCTAssertEqual(shown.skipLabel, "Start next phase")
        XCTAssertFalse(shown.showsExtend || shown.showsBar)

        shown = FocusShown(properties: properties("off", ends: 0, state: "idle"), now: now)
        XCTAssertEqual(shown.text, "")
        XCTAssertTrue(shown.showsStartFocus, "idle with a last project: Start focus")
        XCTAssertNil(shown.skipLabel)
        XCTAssertFalse(shown.showsStopFocus)
    }

    func testATickChangesOnlyTheTimeLeft() {
        let now: Int64 = 1_800_000_000
        let p = properties("focus", ends: now + 600)
        let first = NowModel(properties: p, status: [:], statusTime: now, now: now, connected: true)
        let later = NowModel(properties: p, status: [:], statusTime: now, now: now + 61, connected: true)
        XCTAssertNotEqual(first.focus.text, later.focus.text)
        XCTAssertTrue(later.sameExceptTime(as: first))
        XCTAssertTrue(first.ticks)
        XCTAssertEqual(FocusShown.extend, AgentRequest("ExtendPhase", [.uint32(5)]))
    }
}

/// The Week view's total line counts the span's completed focus phases (Report json's `focus`).
final class WeekFocusTests: XCTestCase {
    func testTheTotalLineCountsFocusPhases() throws {
        let columns = "[{\"label\":\"2026-11-23\",\"from\":\"2026-11-23\",\"to\":\"2026-11-23\"}]"
        let projects = "{\"columns\":\(columns),\"total\":3600,\"target\":0,\"focus\":3,\"groups\":[{\"name\":\"Writing\",\"total\":3600,\"columns\":[3600],\"focus\":3}]}"
        let categories = "{\"columns\":\(columns),\"total\":3600,\"groups\":[]}"
        XCTAssertEqual(try WeekModel(weekStart: 1_795_388_400, projects: projects, categories: categories).total, "Total 1:00 · 3 focus phases")
        let one = projects.replacingOccurrences(of: "\"focus\":3", with: "\"focus\":1")
        XCTAssertEqual(try WeekModel(weekStart: 1_795_388_400, projects: one, categories: categories).total, "Total 1:00 · 1 focus phase")
    }
}
