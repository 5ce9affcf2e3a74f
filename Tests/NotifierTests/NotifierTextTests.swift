import XCTest
@testable import Notifier

final class NotifierTextTests: XCTestCase {
    func testEscapesMarkup() {
        XCTAssertEqual(NotifierText.escapeMarkup(#"<b>Bold & "quoted"</b> it's"#),
                       "&lt;b&gt;Bold &amp; &quot;quoted&quot;&lt;/b&gt; it&apos;s")
        XCTAssertEqual(NotifierText.escapeMarkup("Écriture"), "Écriture")
    }

    func testLocalClockHonoursTZ() {
        let saved = getenv("TZ").map { String(cString: $0) }
        defer { if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }; tzset() }
        setenv("TZ", "Europe/Berlin", 1); tzset()
        // 2026-11-25 08:12:00 UTC = 09:12 in Berlin (CET)
        XCTAssertEqual(NotifierText.localClock(1_795_594_320), "09:12")
        setenv("TZ", "UTC", 1); tzset()
        XCTAssertEqual(NotifierText.localClock(1_795_594_320), "08:12")
        setenv("TZ", "Asia/Kolkata", 1); tzset()
        XCTAssertEqual(NotifierText.localClock(1_795_594_320), "13:42")
    }

    func testTimerText() {
        setenv("TZ", "UTC", 1); tzset()
        var n = TimerNotification(project: "Writing", category: "Work", state: .running,
                                  since: 1_795_594_320, sessionStart: 1_795_594_320, note: "")
        XCTAssertEqual(NotifierText.timerSummary(n), "Writing · Work")
        XCTAssertEqual(NotifierText.timerBody(n, markup: true), "Running since 08:12")
        n.state = .paused; n.since += 3600; n.note = "a < b"
        XCTAssertEqual(NotifierText.timerBody(n, markup: true),
                       "Paused since 09:12\nSession started 08:12\na &lt; b")
        XCTAssertEqual(NotifierText.timerBody(n, markup: false),
                       "Paused since 09:12\nSession started 08:12\na < b")
        n.category = ""
        XCTAssertEqual(NotifierText.timerSummary(n), "Writing")
    }

    func testReminderSummary() {
        XCTAssertEqual(NotifierText.reminderSummary(project: "Writing", activeSeconds: 7200),
                       "Writing — 2 h 00 min active")
        XCTAssertEqual(NotifierText.reminderSummary(project: "X", activeSeconds: 3 * 3600 + 5 * 60 + 59),
                       "X — 3 h 05 min active")
    }

    func testActionsFromCapabilities() {
        XCTAssertEqual(NotifierText.timerActions(state: .running, capabilities: ["body"]), [])
        XCTAssertEqual(NotifierText.timerActions(state: .running, capabilities: ["actions"]).map(\.key),
                       ["default", "pause", "stop"])
        XCTAssertEqual(NotifierText.timerActions(state: .paused, capabilities: ["actions"]).map(\.key),
                       ["default", "resume", "stop"])
        XCTAssertEqual(NotifierText.reminderActions(capabilities: ["actions"]).map(\.label),
                       ["Stop", "Keep going"])
        XCTAssertEqual(NotifierText.reminderActions(capabilities: []), [])
        for a in NotifierText.timerActions(state: .running, capabilities: ["actions"])
            + NotifierText.timerActions(state: .paused, capabilities: ["actions"])
            + NotifierText.reminderActions(capabilities: ["actions"]) {
            XCTAssertNotNil(NotifierText.action(forKey: a.key), a.key)
        }
        XCTAssertEqual(NotifierText.action(forKey: "stop"), .stop)
        XCTAssertEqual(NotifierText.action(forKey: "reminder-keep-going"), .reminderKeepGoing)
        XCTAssertNil(NotifierText.action(forKey: "bogus"))
    }
}

/// The return notification's answers carry their span's id in the action key.
final class AwayNotifierTextTests: XCTestCase {
    func testAwayActionKeys() {
        let actions = NotifierText.awayActions(id: 12, stopLabel: "Stop at 14:05", capabilities: ["actions"])
        XCTAssertEqual(actions.map(\.key), ["away-keep-12", "away-discard-12", "away-stop-12"])
        XCTAssertEqual(actions.map(\.label), ["Keep", "Discard", "Stop at 14:05"])
        XCTAssertEqual(NotifierText.awayActions(id: 12, stopLabel: "x", capabilities: []), [])
        XCTAssertEqual(NotifierText.action(forKey: "away-stop-12"), .away(id: 12, choice: "stop"))
        XCTAssertEqual(NotifierText.action(forKey: "away-discard-3"), .away(id: 3, choice: "discard"))
        XCTAssertNil(NotifierText.action(forKey: "away-forget-3"))
        XCTAssertNil(NotifierText.action(forKey: "away-keep-x"))
    }
}
