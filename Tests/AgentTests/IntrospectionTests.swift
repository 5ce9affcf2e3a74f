import DBusKit
import Foundation
import TestSupport
import XCTest

/// The checked-in introspection XML is the machine-readable contract: it must equal what the
/// running agent answers, byte for byte.
final class IntrospectionTests: XCTestCase {
    func testCheckedInXMLEqualsWhatTheRunningAgentAnswers() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let data = TemporaryDirectory()
        defer { data.remove() }
        let agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"))
        defer { agent.terminate() }
        let client = try bus.connect()
        defer { client.close() }
        let answered = try client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                       interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                                       arguments: [], timeoutMilliseconds: 10_000).first?.stringValue
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("dbus/io.github.timetracker.Time1.xml")
        let checkedIn = try String(contentsOf: file, encoding: .utf8)
        XCTAssertEqual(answered, checkedIn, "regenerate with: .build/debug/time-agent --print-introspection > dbus/io.github.timetracker.Time1.xml")
        for name in ["StartProject", "Pause", "Resume", "Toggle", "Stop", "AddNote", "SetNote", "GetStatus", "WeeklyReport",
                     "ShowWeeklyReport", "ListProjects", "CreateProject", "UpdateProject", "ListCategories", "AddCategory",
                     "DeleteCategory", "ListSessions", "AddSession", "EditSession", "DeleteSession", "Undo", "Redo", "History"] {
            XCTAssertTrue(checkedIn.contains("<method name=\"\(name)\""), "contract method \(name) missing")
        }
        for name in ["State", "Project", "ProjectColor", "Category", "SessionId", "SessionStart", "RunningSince",
                     "ActiveSeconds", "Note", "LastProject", "StorageState", "StorageMessage", "Version", "ReminderMinutes", "CanUndo"] {
            XCTAssertTrue(checkedIn.contains("<property name=\"\(name)\""), "contract property \(name) missing")
        }
    }
}
