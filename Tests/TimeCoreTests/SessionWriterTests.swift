import XCTest
import TimeJSON
@testable import TimeCore

/// The snapshot's sessions are written by hand (`SnapshotFormat.writeSession`); the bytes must be
/// those of the JSON tree (`sessionJSON`) written by the generic serializer, for every kind of
/// session a store holds, or a state's name (its SHA-256) would change with the writer.
final class SessionWriterTests: XCTestCase {
    func testEveryKindOfSessionIsWrittenAsTheTreeWouldWriteIt() {
        let notes = ["", "plain", "a \"quoted\" word", "back\\slash", "line\nbreak\ttab\r", "\u{1}\u{1F}\u{7F}",
                     "separators \u{2028} and \u{2029}", "ümlaut, 日本語, 🙂", "—dash’s"]
        var sessions: [WorkSession] = []
        for (index, note) in notes.enumerated() {
            var session = WorkSession(id: Int64(index + 1), projectID: Int64(index % 3 + 1), start: 1_795_000_000 + Int64(index) * 3600,
                                      end: index == 0 ? nil : 1_795_000_000 + Int64(index) * 3600 + 1500,
                                      unrecordedSeconds: Int64(index * 7), note: note,
                                      segments: [], importKey: index % 2 == 0 ? "" : "watson:\(index)\"x")
            session.segments = (0..<index).map { Segment(start: session.start + Int64($0) * 100, end: $0 == index - 1 && session.end == nil ? nil : session.start + Int64($0) * 100 + 50) }
            if index % 3 == 0 { session.globalID = "g\(index)" }
            if index % 4 == 1 { session.focus = [FocusSpan(start: session.start, end: session.start + 1500)] }
            sessions.append(session)
        }
        var early = WorkSession(id: Int64.max, projectID: 1, start: -86_400, end: 0, unrecordedSeconds: 0, note: "",
                                segments: [Segment(start: -86_400, end: nil)], importKey: "")
        early.focus = [FocusSpan(start: -86_400, end: -80_000), FocusSpan(start: -70_000, end: -60_000)]
        sessions.append(early)
        for session in sessions {
            var written = ""
            SnapshotFormat.writeSession(session, to: &written)
            XCTAssertEqual(written, SnapshotFormat.sessionJSON(session).serialized, "session \(session.id): \(session.note)")
        }
        XCTAssertEqual(SnapshotFormat.sessionList(sessions),
                       JSON.array(sessions.map(SnapshotFormat.sessionJSON)).serialized)
    }
}
