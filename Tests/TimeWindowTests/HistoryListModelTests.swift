import DBusCore
import Glibc
import TimeClient
@testable import TimeWindow
import XCTest

/// The History window's rows: the agent's steps in its order, each with a local time, undone marked.
final class HistoryListModelTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    func testStepsKeepTheAgentsOrderAndSayWhenAndWhetherUndone() throws {
        let now = try XCTUnwrap(LocalTime.make(year: 2026, month: 12, day: 5, hour: 15))
        let today = try XCTUnwrap(LocalTime.make(year: 2026, month: 12, day: 5, hour: 14, minute: 5))
        let yesterday = try XCTUnwrap(LocalTime.make(year: 2026, month: 12, day: 4, hour: 9))
        let older = try XCTUnwrap(LocalTime.make(year: 2026, month: 11, day: 28, hour: 17, minute: 30))
        let model = HistoryListModel([
            ["id": .uint64(3), "time": .int64(today), "description": .string("Stopped Writing at 14:05 after 1:23"), "undone": .bool(true)],
            ["id": .uint64(2), "time": .int64(yesterday), "description": .string("Started Writing"), "undone": .bool(false)],
            ["id": .uint64(1), "time": .int64(older), "description": .string("Added 1:30 to Reviews on 2026-11-28"), "undone": .bool(false)],
        ])
        XCTAssertEqual(model.steps.map(\.id), [3, 2, 1])
        XCTAssertEqual(model.steps.map { HistoryListModel.line($0, now: now) },
                       ["Undone · today 14:05", "yesterday 09:00", "2026-11-28 17:30"])
        XCTAssertTrue(HistoryListModel([]).isEmpty)
    }
}
