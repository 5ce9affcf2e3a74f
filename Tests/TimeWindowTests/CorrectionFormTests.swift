import DBusCore
import Glibc
import TimeClient
import TimeWindow
import XCTest

/// The window's "Started at", "Stop at", "Paused since" and "Start at" dialog without a display:
/// what it says before anything is sent, the call it makes, the shortening it offers after an
/// Overlap, and the marks of the Day view. Expected times come from `mktime` (TZ Europe/Berlin).
final class CorrectionFormTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    private func local(_ h: Int32, _ mi: Int32, day: Int32 = 2) -> Int64 {
        var parts = tm()
        parts.tm_year = 2026 - 1900; parts.tm_mon = 11; parts.tm_mday = day
        parts.tm_hour = h; parts.tm_min = mi; parts.tm_isdst = -1
        return Int64(mktime(&parts))
    }

    private func open(_ state: String, project: String = "Email", start: Int64, runningSince: Int64) -> AgentProperties {
        AgentProperties(["State": .string(state), "Project": .string(project), "SessionId": .uint64(7),
                         "SessionStart": .int64(start), "RunningSince": .int64(runningSince), "StorageState": .string("ok")])
    }

    func testStartedAtSaysTheNewStartAndMovesTheOpenSessionsStart() throws {
        let now = local(10, 0)
        let form = CorrectionForm(kind: .startedAt, properties: open("running", start: local(9, 12), runningSince: local(9, 12)))
        XCTAssertEqual(form.title, "Started at")
        XCTAssertEqual(form.initialText, "09:12")
        let plan = try form.plan("9:00", now: now)
        XCTAssertEqual(plan.sentence, "Email will have started at 09:00 instead of 09:12.")
        XCTAssertEqual(plan.request, AgentRequest("EditSession", [.uint64(7), .vardict(["start": .int64(local(9, 0))])]))
        XCTAssertEqual(try form.plan("-10m", now: now).request.arguments[1], .vardict(["start": .int64(now - 600)]))
        XCTAssertEqual(try form.plan("10 minutes ago", now: now).done, "Email started at 09:50.")
        let overlap = "Starting at 09:00 would overlap Writing 2026-12-02 08:30–09:20 (session 3); give the option adjust (timectl's --adjust) to end it at 09:00 instead, or choose a time from 09:20 on."
        let answer = CorrectionForm.overlapAnswer(overlap, plan: plan)
        XCTAssertTrue(answer.offersShortening)
        XCTAssertTrue(answer.text.hasPrefix(overlap) && answer.text.contains("Shorten and save"), answer.text)
        XCTAssertEqual(plan.adjusted, AgentRequest("EditSession", [.uint64(7), .vardict(["start": .int64(local(9, 0)), "adjust": .bool(true)])]))
        XCTAssertFalse(CorrectionForm.overlapAnswer("… a session that began at or after 09:00 is never shortened or removed …", plan: plan).offersShortening)
    }

    func testStartAtSaysBothSidesOfASwitch() throws {
        let now = local(14, 20)
        let form = CorrectionForm(kind: .startAt, properties: open("running", project: "Writing", start: local(9, 0), runningSince: local(13, 0)))
        let plan = try form.plan("14:00", now: now, project: (4, "Email"))
        XCTAssertEqual(plan.sentence, "Email will start at 14:00; Writing's session ends 14:00.")
        XCTAssertEqual(plan.request, AgentRequest("StartProjectAt", [.string("#4"), .int64(local(14, 0)), .vardict([:])]))
        XCTAssertEqual(plan.adjusted?.arguments[2], .vardict(["adjust": .bool(true)]))
        XCTAssertEqual(CorrectionForm.overlapAnswer("Starting at 14:00 would overlap …", plan: plan).text.contains("Shorten and start"), true)
        let idle = CorrectionForm(kind: .startAt, properties: AgentProperties(["State": .string("idle")]))
        XCTAssertEqual(try idle.plan("-10m", now: now, project: (4, "Email")).sentence, "Email will start at 14:10.")
        XCTAssertThrowsError(try idle.plan("-10m", now: now)) { XCTAssertEqual(($0 as? CorrectionForm.Invalid)?.message, "Choose the project to start.") }
        XCTAssertThrowsError(try form.plan("8:30", now: now, project: (4, "Email"))) { error in
            XCTAssertTrue((error as? CorrectionForm.Invalid)?.message.contains("Writing is open since 09:00") == true, "\(error)")
        }
    }

    func testStopAtAndPausedSinceSayWhatStopsCounting() throws {
        let now = local(12, 40)
        let running = open("running", project: "Writing", start: local(11, 0), runningSince: local(11, 0))
        let pause = try CorrectionForm(kind: .pausedSince, properties: running).plan("12:00", now: now)
        XCTAssertEqual(pause.sentence, "Writing will be paused since 12:00; the 40 min since are not counted.")
        XCTAssertEqual(pause.request, AgentRequest("PauseAt", [.int64(local(12, 0))]))
        XCTAssertNil(pause.adjusted, "a pause overlaps nothing: no shortening to offer")
        let stop = try CorrectionForm(kind: .stopAt, properties: running).plan("11:25", now: now)
        XCTAssertEqual(stop.sentence, "Writing will stop at 11:25; the 1 h 15 min after it are not counted.")
        XCTAssertEqual(stop.request, AgentRequest("StopAt", [.int64(local(11, 25))]))
        XCTAssertThrowsError(try CorrectionForm(kind: .stopAt, properties: running).plan("10:59", now: now)) { error in
            XCTAssertEqual((error as? CorrectionForm.Invalid)?.message, "Writing began at 11:00; it cannot stop before that.")
        }
        let paused = CorrectionForm(kind: .pausedSince, properties: open("paused", project: "Writing", start: local(11, 0), runningSince: 0),
                                    pausedAt: local(12, 30))
        XCTAssertEqual(try paused.plan("12:00", now: now).sentence, "Writing's pause will begin at 12:00 instead of 12:30.")
    }

    func testTimesThatCannotBeUsedSayWhatToTypeAndMakeNoCall() {
        let now = local(10, 0)
        let form = CorrectionForm(kind: .startedAt, properties: open("running", start: local(9, 12), runningSince: local(9, 12)))
        let cases: [(String, String)] = [
            ("", "Type when it happened: 9:00, 10 minutes ago, -10m."),
            ("soon", "'soon' is not a time. Type it as 9:00, 10 minutes ago, -10m."),
            ("10:01", "10:01 is in the future; give a time up to now."),
            ("yesterday 9:59", "That is more than 24 hours ago; enter the past with Add time in the Day view."),
        ]
        for (typed, message) in cases {
            XCTAssertThrowsError(try form.plan(typed, now: now), typed) { XCTAssertEqual(($0 as? CorrectionForm.Invalid)?.message, message) }
        }
        XCTAssertNoThrow(try form.plan("10:00:05", now: now), "5 seconds ahead is still now")
    }

    func testNowShowsStartedAtAndTheCorrectionsOnlyWithAnOpenSession() {
        let now = local(10, 0)
        let model = NowModel(properties: open("running", start: local(9, 12), runningSince: local(9, 12)), status: [:], statusTime: now,
                             now: now, connected: true)
        XCTAssertEqual(model.startedAt, "Started at 09:12")
        XCTAssertTrue(model.showsCorrections)
        let idle = NowModel(properties: AgentProperties(["State": .string("idle")]), status: [:], statusTime: now, now: now, connected: true)
        XCTAssertNil(idle.startedAt)
        XCTAssertFalse(idle.showsCorrections)
    }

    func testTheDayMarksOverlappingSessionsAndOffersTheOpenSessionsStart() {
        let now = local(12, 0)
        func record(_ id: UInt64, _ project: String, _ start: Int64, _ end: Int64, overlaps: [UInt64]) -> SessionRecord {
            SessionRecord(["id": .uint64(id), "project": .string(project), "start": .int64(start), "end": .int64(end),
                           "state": .string(end == 0 ? "running" : "completed"),
                           "overlaps": .array(elementSignature: "t", overlaps.map { .uint64($0) })])
        }
        let day = DayModel(dayStart: local(0, 0), sessions: [
            record(1, "Writing", local(9, 0), local(10, 0), overlaps: [2]),
            record(2, "Email", local(9, 30), local(10, 30), overlaps: [1, 8]),
            record(3, "Reading", local(11, 0), 0, overlaps: []),
        ], now: now)
        XCTAssertEqual(day.rows.map(\.overlapNote), ["Overlaps Email 09:30–10:30", "Overlaps Writing 09:00–10:00, session 8", nil])
        XCTAssertEqual(day.rows.map(\.startEditable), [false, false, true])
        XCTAssertEqual(day.rows.map(\.editable), [true, true, false])
    }
}
