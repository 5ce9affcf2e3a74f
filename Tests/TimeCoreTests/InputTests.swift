import XCTest
@testable import TimeCore

/// Durations as people type them, notes, and hand-entered or edited sessions.
final class DurationTests: XCTestCase {
    func testEveryAcceptedForm() throws {
        let cases: [(String, Int64)] = [
            ("1:30", 5400), ("1:30:15", 5415), ("90m", 5400), ("2h", 7200), ("45s", 45),
            ("1h30m", 5400), ("1h 30m", 5400), ("1h30m15s", 5415), ("1.5h", 5400), ("45", 2700),
            (" 45 ", 2700), ("0:01", 60), ("0:00:01", 1), ("1s", 1), ("1H", 3600), ("2h15s", 7215),
            ("30m 5s", 1805), ("0.5h", 1800), ("0.25h", 900), ("1.5", 90), ("168h", 604_800),
            ("10080m", 604_800), ("168:00", 604_800), ("167:59:59", 604_799), ("604800s", 604_800),
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(try DurationParser.seconds(from: text), seconds, text)
        }
    }

    func testRejectedFormsNameTheAcceptedOnes() throws {
        let rejected = ["0", "0m", "0:00", "0h0m0s", "-5m", "-1:30", "8d", "169h", "168:00:01", "604801s", "7.5d",
                        "1M", "1mo", "abc", "", "   ", "1:75", "1:30:60", "1:5", "1.2345678s", "1.5s",
                        "99999999999999999999", "99999999999h", "9223372036854775807s", "9999999999:00",
                        "1h1h", "30m1h", "h", "1h30", "1..5h", ".5h", "1e3", "１h", "1:30m", "45 minutes"]
        for text in rejected {
            let message = assertTrackerError("InvalidArgument", try DurationParser.seconds(from: text))
            for form in ["1:30", "1:30:15", "90m", "2h", "45s", "1h30m", "1h 30m", "1h30m15s", "1.5h", "45"] {
                XCTAssertTrue(message.contains(form), "message for \"\(text)\" does not list \(form): \(message)")
            }
        }
    }
}

final class NoteTests: XCTestCase {
    func testNormalization() throws {
        XCTAssertEqual(try TextInput.normalizedNote("  hello  "), "hello")
        XCTAssertEqual(try TextInput.normalizedNote("a\r\nb\rc\nd"), "a\nb\nc\nd")
        XCTAssertEqual(try TextInput.normalizedNote("a\r\n\r\nb"), "a\n\nb")
        XCTAssertEqual(try TextInput.normalizedNote("a\u{0}b\u{7}c\u{1B}[0m\u{7F}d\u{85}e"), "abc[0mde")
        XCTAssertEqual(try TextInput.normalizedNote("tab\there"), "tab here")
        XCTAssertEqual(try TextInput.normalizedNote("\r\n  line one\r\nline two \r\n"), "line one\nline two")
        XCTAssertEqual(try TextInput.normalizedNote("Écriture 😀 ✓"), "Écriture 😀 ✓")
        XCTAssertEqual(try TextInput.normalizedNote(""), "")
        XCTAssertEqual(try TextInput.normalizedNote(" \n\r\n\t\u{0} "), "")
    }

    /// Trimming takes exactly Unicode's white space off both ends (the oracle: the scalar's
    /// properties), ASCII or not, and nothing else.
    func testTrimmingTakesUnicodeWhiteSpaceOnly() {
        var scalars = (0..<0x80).compactMap(Unicode.Scalar.init)
        scalars += [0x85, 0xA0, 0xAD, 0x1680, 0x180E, 0x2000, 0x200A, 0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF, 0x1F570]
            .compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            let text = "\(Character(scalar))\(Character(scalar))a\(Character(scalar))b\(Character(scalar))"
            let expected = scalar.properties.isWhitespace ? "a\(Character(scalar))b" : text
            XCTAssertEqual(text.trimmingWhitespace(), expected, "U+\(String(scalar.value, radix: 16))")
        }
    }

    func testLimit() throws {
        let limit = TextInput.maximumNoteBytes
        XCTAssertEqual(limit, 65_536)
        XCTAssertEqual(try TextInput.normalizedNote(String(repeating: "a", count: limit)).utf8.count, limit)
        XCTAssertEqual(try TextInput.normalizedNote(String(repeating: "é", count: limit / 2)).utf8.count, limit)
        assertTrackerError("InvalidArgument", try TextInput.normalizedNote(String(repeating: "a", count: limit + 1)))
        assertTrackerError("InvalidArgument", try TextInput.normalizedNote(String(repeating: "é", count: limit / 2 + 1)))
        // What is removed does not count.
        XCTAssertEqual(try TextInput.normalizedNote("  " + String(repeating: "a", count: limit) + "\u{0}\u{0}  ").utf8.count, limit)
    }
}

final class SessionEditingTests: TrackerTestCase {
    var writing: ProjectID = 0
    var reading: ProjectID = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        writing = try tracker.createProject(name: "Writing", color: "", category: "")
        reading = try tracker.createProject(name: "Reading", color: "", category: "")
    }

    func testAddSessionIsOneExactSegment() throws {
        let start = base - 86_400
        let id = try tracker.addSession(project: writing, start: start, duration: "1h30m15s", note: "  draft\r\nchapter 2 ")
        let session = try tracker.session(id: id)
        XCTAssertEqual(session, WorkSession(id: id, projectID: writing, start: start, end: start + 5415, unrecordedSeconds: 0,
                                            note: "draft\nchapter 2", segments: [Segment(start: start, end: start + 5415)]))
        XCTAssertEqual(session.state, .completed)
        let empty = try tracker.addSession(project: writing, start: start, duration: "5m", note: " \u{0} ")
        XCTAssertEqual(try tracker.session(id: empty).note, "")
        try reopen()
        XCTAssertEqual(try tracker.session(id: id), session)
        // A past session does not change what Toggle starts.
        XCTAssertEqual(try tracker.status().lastProjectName, "Writing")
    }

    func testAddSessionErrors() throws {
        assertTrackerError("NoSuchProject", try tracker.addSession(project: 999, start: base - 7200, duration: "1h", note: ""))
        assertTrackerError("InvalidArgument", try tracker.addSession(project: writing, start: base - 7200, duration: "0", note: ""))
        assertTrackerError("InvalidArgument", try tracker.addSession(project: writing, start: base - 7200, duration: "1M", note: ""))
        assertTrackerError("InvalidArgument", try tracker.addSession(project: writing, start: -1, duration: "1h", note: ""))
        assertTrackerError("InvalidArgument", try tracker.addSession(project: writing, start: base - 60, duration: "2m", note: ""))
        assertTrackerError("InvalidArgument",
                           try tracker.addSession(project: writing, start: base - 60, duration: "1m",
                                                  note: String(repeating: "n", count: 70_000)))
        XCTAssertEqual(try allSessions().count, 0)
        // Ending exactly now is not the future.
        let id = try tracker.addSession(project: writing, start: base - 60, duration: "1m", note: "")
        XCTAssertEqual(try tracker.session(id: id).end, base)
    }

    /// A completed session with two segments and a pause between them.
    func pausedSession() throws -> (SessionID, Int64) {
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        clock.advance(600)
        try tracker.pause()
        clock.advance(300)
        try tracker.resume()
        clock.advance(900)
        try tracker.stop()
        clock.advance(86_400)
        return (id, t0)
    }

    func testNewStartShiftsEverySegment() throws {
        let (id, t0) = try pausedSession()
        try tracker.editSession(id: id, changes: SessionChanges(start: t0 - 3600))
        let s = t0 - 3600
        let edited = try tracker.session(id: id)
        XCTAssertEqual(edited.start, s)
        XCTAssertEqual(edited.end, s + 1800)
        XCTAssertEqual(edited.segments, [Segment(start: s, end: s + 600), Segment(start: s + 900, end: s + 1800)])
        XCTAssertEqual(edited.activeSeconds(at: .max), 1500)
        try reopen()
        XCTAssertEqual(try tracker.session(id: id), edited)
    }

    func testNewDurationReplacesTheSegmentsWithOne() throws {
        let (id, t0) = try pausedSession()
        try tracker.editSession(id: id, changes: SessionChanges(duration: "45m"))
        let edited = try tracker.session(id: id)
        XCTAssertEqual(edited.start, t0)
        XCTAssertEqual(edited.end, t0 + 2700)
        XCTAssertEqual(edited.segments, [Segment(start: t0, end: t0 + 2700)])
        XCTAssertEqual(try segmentRowCount(), 1)

        try tracker.editSession(id: id, changes: SessionChanges(start: t0 - 7200, duration: "1:00:01"))
        XCTAssertEqual(try tracker.session(id: id).segments, [Segment(start: t0 - 7200, end: t0 - 7200 + 3601)])
        XCTAssertEqual(try tracker.session(id: id).end, t0 - 3599)
    }

    func testEditProjectAndNote() throws {
        let (id, _) = try pausedSession()
        let before = try tracker.session(id: id)
        try tracker.editSession(id: id, changes: SessionChanges(projectID: reading, note: " moved\r\n"))
        var expected = before
        expected.projectID = reading
        expected.note = "moved"
        XCTAssertEqual(try tracker.session(id: id), expected)
        try tracker.editSession(id: id, changes: SessionChanges(note: ""))
        expected.note = ""
        try reopen()
        XCTAssertEqual(try tracker.session(id: id), expected)
    }

    func testEditErrorsChangeNothing() throws {
        let (id, t0) = try pausedSession()
        let before = try tracker.session(id: id)
        assertTrackerError("NoSuchSession", try tracker.editSession(id: 999, changes: SessionChanges(note: "x")))
        assertTrackerError("NoSuchProject", try tracker.editSession(id: id, changes: SessionChanges(projectID: 999)))
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(duration: "8d")))
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(duration: "0")))
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(start: -5)))
        // Future end, by a new start, a new duration, or both.
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(start: clock.time)))
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(duration: "168h")))
        assertTrackerError("InvalidArgument",
                           try tracker.editSession(id: id, changes: SessionChanges(start: clock.time - 60, duration: "2m")))
        XCTAssertEqual(try tracker.session(id: id), before)
        // Ending exactly now is allowed.
        try tracker.editSession(id: id, changes: SessionChanges(start: clock.time - 1800))
        XCTAssertEqual(try tracker.session(id: id).end, clock.time)
        XCTAssertNotEqual(t0, clock.time - 1800)
    }

    /// The open session cannot be deleted or given a duration (stop it, or StopAt); its start,
    /// project and note can be edited (contract "Fixing what was forgotten", CorrectionTests).
    func testOpenSessionCannotBeDeletedOrGivenADuration() throws {
        let id = try tracker.startProject("Writing")
        clock.advance(60)
        assertTrackerError("InvalidArgument", try tracker.editSession(id: id, changes: SessionChanges(duration: "1h")))
        assertTrackerError("InvalidArgument", try tracker.deleteSession(id: id))
        try tracker.editSession(id: id, changes: SessionChanges(start: base - 60, note: "x"))
        try tracker.pause()
        assertTrackerError("InvalidArgument", try tracker.deleteSession(id: id))
        XCTAssertEqual(try tracker.status().session?.id, id)
        XCTAssertEqual(try tracker.status().session?.note, "x")
        XCTAssertEqual(try tracker.status().session?.segments, [Segment(start: base - 60, end: base + 60)])
        try tracker.stop()
        try tracker.deleteSession(id: id)
        assertTrackerError("NoSuchSession", try tracker.session(id: id))
    }

    func testDeleteSessionRemovesItsSegments() throws {
        let (id, _) = try pausedSession()
        let kept = try tracker.addSession(project: reading, start: base - 3600, duration: "10m", note: "")
        XCTAssertEqual(try segmentRowCount(), 3)
        try tracker.deleteSession(id: id)
        XCTAssertEqual(try segmentRowCount(), 1)
        assertTrackerError("NoSuchSession", try tracker.deleteSession(id: id))
        assertTrackerError("NoSuchSession", try tracker.deleteSession(id: 999))
        try reopen()
        XCTAssertEqual(try allSessions().map(\.id), [kept])
    }
}

final class DurationSpacingTests: XCTestCase {
    /// Digits split by a space are not one number: "1 30m" is not 130 minutes.
    func testSpaceInsideANumberIsRefused() throws {
        for text in ["1 30m", "1 5m", "1 0h", "2 0 s", "1h 3 0m", "1. 5h"] {
            assertTrackerError("InvalidArgument", try DurationParser.seconds(from: text))
        }
        XCTAssertEqual(try DurationParser.seconds(from: "1h  30m"), 5400)
        XCTAssertEqual(try DurationParser.seconds(from: "1h\t30m 15s"), 5415)
    }
}
