import XCTest
@testable import TimeAgent
@testable import TimeCore

/// The focus timer in the tray: the label and title line, and the one tick at each minute the
/// phase's time left crosses (so the label changes at most once a minute).
final class TrayFocusLookTests: XCTestCase {
    private func state(_ phase: FocusPhase, ends: Int64, pausedLeft: Int64? = nil, next: FocusPhase = .off) -> FocusState {
        var state = FocusState()
        (state.phase, state.ends, state.pausedLeft, state.next) = (phase, ends, pausedLeft, next)
        return state
    }

    func testTheLabelIsThePhaseAndItsMinutesLeftRoundedUp() {
        let now: Int64 = 1_000_000
        XCTAssertEqual(TrayLook.focusText(state(.focus, ends: now + 25 * 60), now: now), "◔ 25 min")
        XCTAssertEqual(TrayLook.focusText(state(.focus, ends: now + 11 * 60 + 1), now: now), "◔ 12 min")
        XCTAssertEqual(TrayLook.focusText(state(.shortBreak, ends: now + 179), now: now), "◔ break 3 min")
        XCTAssertEqual(TrayLook.focusText(state(.longBreak, ends: now + 900), now: now), "◔ long break 15 min")
        XCTAssertEqual(TrayLook.focusText(state(.focus, ends: now + 60, pausedLeft: 60), now: now), "◔ focus paused")
        XCTAssertEqual(TrayLook.focusText(state(.waiting, ends: now, next: .shortBreak), now: now), "◔ break waits")
        XCTAssertNil(TrayLook.focusText(FocusState(), now: now))

        var look = TrayLook(status: nil, now: now, today: 0)
        look.showFocus(state(.focus, ends: now + 12 * 60), now: now)
        XCTAssertEqual(look.title, "Not tracking (today 0:00) · ◔ 12 min")
        XCTAssertEqual(look.appearance.label, "◔ 12 min")
    }

    /// The next tick comes when the minutes left change: at most one a minute, none while waiting or paused.
    func testOneTickAMinuteWhileAPhaseCountsDown() {
        let now: Int64 = 1_000_000
        XCTAssertEqual(TrayLook.focusTickWait(state(.focus, ends: now + 25 * 60), now: now), 60)
        XCTAssertEqual(TrayLook.focusTickWait(state(.focus, ends: now + 11 * 60 + 1), now: now), 1)
        XCTAssertEqual(TrayLook.focusTickWait(state(.shortBreak, ends: now + 179), now: now), 59)
        XCTAssertNil(TrayLook.focusTickWait(state(.focus, ends: now + 60, pausedLeft: 60), now: now))
        XCTAssertNil(TrayLook.focusTickWait(state(.waiting, ends: now, next: .focus), now: now))
        // Walking a whole phase tick by tick: every label differs from the one before, 25 of them.
        var time = now, labels: [String] = []
        let phase = state(.focus, ends: now + 25 * 60 - 17)
        while let wait = TrayLook.focusTickWait(phase, now: time), time < phase.ends {
            labels.append(TrayLook.focusText(phase, now: time)!)
            XCTAssertLessThanOrEqual(wait, 60)
            time += wait
        }
        XCTAssertEqual(labels, (1...25).reversed().map { "◔ \($0) min" })
    }
}
