import DBusKit
import Foundation
import TestSupport
import XCTest

/// The contract's "Fixing what was forgotten" over a private bus on a real agent: StartProjectAt,
/// PauseAt, ResumeAt, StopAt, EditSession on the open session, the Overlap error and adjust,
/// overlaps said in ListSessions and Report, and a kill -9 right after an acknowledged correction.
final class CorrectionAgentTests: XCTestCase {
    var agent: AgentHarness!
    var recorder: PropertiesChangedRecorder!
    static let overlap = ContractError.prefix + "Overlap"

    override func setUpWithError() throws {
        agent = try AgentHarness()
        recorder = try PropertiesChangedRecorder(bus: agent.bus)
        try agent.createProject("Writing")
        try agent.createProject("Email")
    }

    override func tearDown() {
        recorder?.close()
        agent?.tearDown()
        agent = nil
    }

    private func session(_ id: UInt64) throws -> [String: DBusValue] {
        try XCTUnwrap(try agent.sessions().first { $0["id"]?.uint64Value == id }, "session \(id) listed")
    }

    private func segments(_ id: UInt64) throws -> [[Int64]] {
        try (session(id)["segments"]?.arrayValue ?? []).map { $0.structureFields.map { $0.int64Value ?? -1 } }
    }

    private func startAt(_ project: String, _ time: Int64, adjust: Bool? = nil) throws -> UInt64 {
        let options: [String: DBusValue] = adjust.map { ["adjust": .bool($0)] } ?? [:]
        // No XCTUnwrap around the call: a refusal is the error the tests expect, not a failure.
        guard let id = try agent.call("StartProjectAt", [.string(project), .int64(time), .vardict(options)]).first?.uint64Value else {
            throw FixtureError("StartProjectAt returned no session id")
        }
        return id
    }

    private func newestStep() throws -> String {
        let steps = try agent.call("History", [.uint32(1)]).first?.arrayValue ?? []
        return steps.first?.variantDictionary?["description"]?.stringValue ?? ""
    }

    /// Properties of the newest PropertiesChanged, after the reply (nothing ticks: it came with the change).
    private func announced() -> [String: DBusValue] {
        recorder.take(atLeast: 1).reduce(into: [:]) { all, signal in all.merge(signal) { $1 } }
    }

    func testStartPauseResumeAndStopAtATimeKeepExactSegmentsAndAnnounceThem() throws {
        let now = unixNow()
        _ = recorder.take(atLeast: 0, quiet: 0.05)
        let writing = try startAt("Writing", now - 3600)
        var changed = announced()
        XCTAssertEqual(changed["SessionStart"], .int64(now - 3600))
        XCTAssertEqual(changed["RunningSince"], .int64(now - 3600))
        XCTAssertEqual(try agent.property("State"), .string("running"))

        try agent.call("PauseAt", [.int64(now - 1800)])
        changed = announced()
        XCTAssertEqual(changed["State"], .string("paused"))
        XCTAssertEqual(changed["ActiveSeconds"], .uint64(1800), "pausing 30 minutes back removes that running time at once")
        XCTAssertEqual(try segments(writing), [[now - 3600, now - 1800]])

        try agent.call("ResumeAt", [.int64(now - 600)])
        changed = announced()
        XCTAssertEqual(changed["RunningSince"], .int64(now - 600))
        XCTAssertEqual(try agent.property("ActiveSeconds"), .uint64(1800))

        let email = try startAt("Email", now - 300)
        XCTAssertNotEqual(email, writing)
        XCTAssertEqual(try segments(writing), [[now - 3600, now - 1800], [now - 600, now - 300]])
        XCTAssertEqual(try session(writing)["end"], .int64(now - 300))
        let sentence = try newestStep()
        XCTAssertTrue(sentence.hasPrefix("Started Email at ") && sentence.contains("; Writing ended "), sentence)
        XCTAssertEqual(try agent.property("Project"), .string("Email"))

        XCTAssertEqual(try agent.call("StopAt", [.int64(now - 60)]).first?.uint64Value, email)
        XCTAssertEqual(try agent.state(), "idle")
        XCTAssertEqual(try session(email)["end"], .int64(now - 60))
        XCTAssertEqual(try session(email)["active"], .uint64(240))

        try agent.call("Undo")
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try segments(email), [[now - 300, 0]], "undo reopens the exact segment")
    }

    func testTheRulesAtTheirEdgesAnswerNamedErrorsAndChangeNothing() throws {
        let now = unixNow()
        assertBusError(ContractError.noCurrentSession, "PauseAt while idle") { try agent.call("PauseAt", [.int64(now)]) }
        assertBusError(ContractError.noCurrentSession, "StopAt while idle") { try agent.call("StopAt", [.int64(now)]) }
        let future = assertBusError(ContractError.invalidArgument, "a start 10 minutes ahead") { try startAt("Writing", now + 600) }
        XCTAssertTrue(future?.contains("in the future") == true, future ?? "")
        let past = assertBusError(ContractError.invalidArgument, "a start 25 hours back") { try startAt("Writing", now - 25 * 3600) }
        XCTAssertTrue(past?.contains("AddSession") == true && past?.contains("EditSession") == true, past ?? "")
        let key = assertBusError(ContractError.invalidArgument, "an unknown option") {
            try agent.call("StartProjectAt", [.string("Writing"), .int64(now), .vardict(["shorten": .bool(true)])])
        }
        XCTAssertTrue(key?.contains("adjust") == true, key ?? "")
        XCTAssertEqual(try agent.sessions().count, 0, "nothing was started")

        let id = try startAt("Writing", now - 1200)
        assertBusError(ContractError.invalidArgument, "a pause before its segment began") { try agent.call("PauseAt", [.int64(now - 1201)]) }
        let stop = assertBusError(ContractError.invalidArgument, "a stop before the session began") { try agent.call("StopAt", [.int64(now - 1300)]) }
        XCTAssertTrue(stop?.contains("began at") == true, stop ?? "")
        let duration = assertBusError(ContractError.invalidArgument, "a duration for the open session") {
            try agent.call("EditSession", [.uint64(id), .vardict(["duration": .string("1h")])])
        }
        XCTAssertTrue(duration?.contains("StopAt") == true, duration ?? "")
        XCTAssertEqual(try segments(id), [[now - 1200, 0]])
        XCTAssertEqual(try agent.state(), "running")
    }

    func testAnOverlapNamesTheSessionAndAdjustShortensItOneUndoableStep() throws {
        let now = unixNow()
        let email = try XCTUnwrap(try agent.call("AddSession", [.uint64(2), .int64(now - 7200), .string("1h"), .string("")]).first?.uint64Value)
        let message = assertBusError(Self.overlap, "a start inside Email's hour") { try startAt("Writing", now - 4000) }
        XCTAssertTrue(message?.contains("Email") == true && message?.contains("session \(email)") == true, message ?? "")
        XCTAssertEqual(try agent.sessions().count, 1, "refused: nothing changed")

        let later = assertBusError(Self.overlap, "a start before Email began, even with adjust") { try startAt("Writing", now - 7300, adjust: true) }
        XCTAssertTrue(later?.contains("never shortened") == true, later ?? "")

        let writing = try startAt("Writing", now - 4000, adjust: true)
        XCTAssertEqual(try segments(email), [[now - 7200, now - 4000]])
        XCTAssertEqual(try session(email)["active"], .uint64(3200))
        XCTAssertEqual(try session(writing)["start"], .int64(now - 4000))
        let adjusted = try newestStep()
        XCTAssertTrue(adjusted.contains("; Email ended "), adjusted)
        try agent.call("Undo")
        XCTAssertEqual(try segments(email), [[now - 7200, now - 3600]], "one undo puts both sides back")
        XCTAssertEqual(try agent.state(), "idle")

        // The open session's start moved over Email: the same rule through EditSession.
        let open = try startAt("Writing", now - 1800)
        assertBusError(Self.overlap, "an earlier start of the open session") {
            try agent.call("EditSession", [.uint64(open), .vardict(["start": .int64(now - 4000)])])
        }
        try agent.call("EditSession", [.uint64(open), .vardict(["start": .int64(now - 4000), "adjust": .bool(true), "note": .string("from the start")])])
        XCTAssertEqual(try agent.property("SessionStart"), .int64(now - 4000))
        XCTAssertEqual(try agent.property("Note"), .string("from the start"))
        XCTAssertEqual(try session(email)["end"], .int64(now - 4000))
    }

    func testSessionsTypedByHandThatOverlapAreKeptAndSaidSo() throws {
        // 10:00 three days ago, local time: the three sessions (10:00 to 12:30) stay on that day
        // whatever the time the test runs (from 22:00 on they crossed midnight, out of its report).
        var morning = tm()
        var threeDaysAgo = time_t(unixNow() - 3 * 86_400)
        localtime_r(&threeDaysAgo, &morning)
        (morning.tm_hour, morning.tm_min, morning.tm_sec, morning.tm_isdst) = (10, 0, 0, -1)
        let day = Int64(mktime(&morning))
        let a = try XCTUnwrap(try agent.call("AddSession", [.uint64(1), .int64(day), .string("1h"), .string("")]).first?.uint64Value)
        let b = try XCTUnwrap(try agent.call("AddSession", [.uint64(2), .int64(day + 1800), .string("1h"), .string("")]).first?.uint64Value)
        let c = try XCTUnwrap(try agent.call("AddSession", [.uint64(2), .int64(day + 5400), .string("1h"), .string("")]).first?.uint64Value)
        XCTAssertEqual(try session(a)["overlaps"], .array(elementSignature: "t", [.uint64(b)]))
        XCTAssertEqual(try session(b)["overlaps"], .array(elementSignature: "t", [.uint64(a)]))
        XCTAssertEqual(try session(c)["overlaps"], .array(elementSignature: "t", []), "touching at the end is no overlap")
        var parts = tm()
        var seconds = time_t(day)
        localtime_r(&seconds, &parts)
        let date = String(format: "%04d-%02d-%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday)
        let report = try XCTUnwrap(try agent.call("Report", [.string(date + ".." + date), .vardict(["format": .string("json")])]).first?.stringValue)
        XCTAssertTrue(report.contains("\"overlapping\":2") || report.contains("\"overlapping\": 2"), report)
    }

    func testAKill9RightAfterAnAcknowledgedCorrectionLosesNothing() throws {
        let now = unixNow()
        let writing = try startAt("Writing", now - 3600)
        try agent.call("PauseAt", [.int64(now - 1800)])
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try segments(writing), [[now - 3600, now - 1800]])
        try agent.call("ResumeAt", [.int64(now - 900)])
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("RunningSince"), .int64(now - 900))
        try agent.call("StopAt", [.int64(now - 300)])
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.state(), "idle")
        XCTAssertEqual(try segments(writing), [[now - 3600, now - 1800], [now - 900, now - 300]])
        let stopped = try newestStep()
        XCTAssertTrue(stopped.hasPrefix("Stopped Writing at "), stopped)
    }
}
