import Foundation
import XCTest
@testable import TimeCore

/// The report's forms as other programs read them: the timesheet and the csv through Python's
/// strict csv reader and LibreOffice headless (`soffice --headless --convert-to xlsx`), the
/// chart through librsvg's rsvg-convert, the JSON keys in the contract's order.
final class ReportFormatsTests: TrackerTestCase {
    private var work: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        work = try makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        unsetenv("TZ")
        tzset()
        try? FileManager.default.removeItem(atPath: work)
        try super.tearDownWithError()
    }

    private func options(_ format: String, round: String? = nil, mode: String? = nil, decimal: Bool? = nil, columns: String? = nil) throws -> ReportOptions {
        try ReportOptions(format: format, group: nil, columns: columns, project: nil, tag: nil, round: round, roundMode: mode, decimal: decimal)
    }

    /// Projects with rates of 85.50, 199.99 and 0.01 and one without, and six sessions of
    /// November 2026: a note with a comma, quotes, a line break and tags, a session over
    /// midnight, a paused one, one of 61 seconds and one of none.
    private func month() throws {
        try tracker.addCategory("Work")
        let writing = try tracker.createProject(name: "Writing", color: "#3366cc", category: "Work")
        let counsel = try tracker.createProject(name: "Counsel", color: "#cc0000", category: "")
        let penny = try tracker.createProject(name: "Ünïcode, Ltd", color: "", category: "")
        let free = try tracker.createProject(name: "Free", color: "", category: "")
        try tracker.updateProject(id: writing, changes: ProjectChanges(rate: "85.50"))
        try tracker.updateProject(id: counsel, changes: ProjectChanges(rate: "199.99"))
        try tracker.updateProject(id: penny, changes: ProjectChanges(rate: "0.01"))
        try tracker.setCurrency("EUR")
        func local(_ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 { Oracle.local(2026, 11, day, hour, minute, second) }
        func run(_ project: ProjectID, _ segments: [(Int64, Int64)], note: String = "") throws {
            clock.time = segments[0].0
            let id = try tracker.startProject("#\(project)")
            for (index, segment) in segments.enumerated() {
                if index > 0 { clock.time = segment.0; try tracker.resume() }
                clock.time = segment.1
                if index < segments.count - 1 { try tracker.pause() }
            }
            try tracker.stop()
            if !note.isEmpty { try tracker.setNote(session: id, note: note) }
        }
        try run(writing, [(local(2, 9, 0), local(2, 10, 7))], note: "Draft, \"chapter 2\"\nsecond line #intro #Client-A")
        try run(counsel, [(local(3, 23, 50), local(4, 0, 20))])
        try run(penny, [(local(5, 14, 0), local(5, 14, 1, 1))])
        try run(free, [(local(6, 8, 0), local(6, 8, 45))])
        try run(writing, [(local(9, 9, 0), local(9, 10, 0)), (local(9, 10, 30), local(9, 11, 0))])
        try run(free, [(local(10, 12, 0), local(10, 12, 0))])
        clock.time = utc(2026, 12, 15)
    }

    /// Rows as Python's csv module reads them with `strict=True` (it raises on anything that is not well-formed).
    private func pythonRows(_ path: String) throws -> [[String]] {
        let script = "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n    print(json.dumps(list(csv.reader(f, strict=True))))\n"
        let result = try run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, "python3's strict csv reader refused it: \(result.errors)")
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String]] ?? []
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    func testTheTimesheetOfAMonthRoundedWithAmounts() throws {
        try month()
        let text = try tracker.report(range: "2026-11", options: options("timesheet", round: "15m", mode: "up"))
        XCTAssertTrue(text.hasSuffix("\r\n") && !text.replacingOccurrences(of: "\r\n", with: "").contains("\r"), "CRLF between records")
        try text.write(toFile: work + "/timesheet.csv", atomically: true, encoding: .utf8)
        if let output = ProcessInfo.processInfo.environment["TIME_TEST_OUTPUT"] {
            try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            try? text.write(toFile: output + "/timesheet-2026-11.csv", atomically: true, encoding: .utf8)
        }
        // Worked out by hand: each session's time on each day rounded up to a quarter, × its rate, half up.
        XCTAssertEqual(try pythonRows(work + "/timesheet.csv"), [
            ["date", "project", "category", "tags", "note", "start", "end", "hours", "rate", "amount"],
            ["2026-11-02", "Writing", "Work", "intro Client-A", "Draft, \"chapter 2\"\nsecond line #intro #Client-A", "09:00", "10:07", "1.25", "85.50", "106.88"],
            ["2026-11-03", "Counsel", "", "", "", "23:50", "00:00", "0.25", "199.99", "50.00"],
            ["2026-11-04", "Counsel", "", "", "", "00:00", "00:20", "0.50", "199.99", "100.00"],
            ["2026-11-05", "Ünïcode, Ltd", "", "", "", "14:00", "14:01", "0.25", "0.01", "0.00"],
            ["2026-11-06", "Free", "", "", "", "08:00", "08:45", "0.75", "", ""],
            ["2026-11-09", "Writing", "Work", "", "", "09:00", "11:00", "1.50", "85.50", "128.25"],
            ["2026-11-10", "Free", "", "", "", "12:00", "12:00", "0.00", "", ""],
        ])
        // Unrounded, hours are the exact time to two places: 67 min is 1.12 h.
        let exact = try tracker.report(range: "2026-11", options: options("timesheet"))
        XCTAssertTrue(exact.contains("\r\n2026-11-02,Writing,Work,intro Client-A,\"Draft, \"\"chapter 2\"\"\nsecond line #intro #Client-A\",09:00,10:07,1.12,85.50,95.48\r\n"), exact)
    }

    /// LibreOffice opens the timesheet (as CSV in UTF-8) and writes it as xlsx without a word of
    /// complaint; read back from the xlsx, every cell says what the timesheet said.
    func testLibreOfficeConvertsTheTimesheetToXLSX() throws {
        try month()
        try tracker.report(range: "2026-11", options: options("timesheet", round: "6m", mode: "nearest"))
            .write(toFile: work + "/sheet.csv", atomically: true, encoding: .utf8)
        let profile = "-env:UserInstallation=file://\(work!)/libreoffice-profile"
        let converted = try run("/usr/bin/soffice", ["--headless", "--norestore", profile, "--infilter=CSV:44,34,76,1",
                                                     "--convert-to", "xlsx", "--outdir", work, work + "/sheet.csv"])
        XCTAssertEqual(converted.status, 0, converted.errors)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/sheet.xlsx"), converted.output + converted.errors)
        // oosplash says once that it found no Java (javaldx); that is about this machine, not the file.
        let complaints = converted.errors.split(separator: "\n").filter { !$0.contains("javaldx") }
        XCTAssertEqual(complaints, [], "LibreOffice warned while converting")
        XCTAssertFalse(converted.output.lowercased().contains("warn") || converted.output.lowercased().contains("error"), converted.output)
        let back = try run("/usr/bin/soffice", ["--headless", "--norestore", profile, "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1",
                                                "--outdir", work + "/back", work + "/sheet.xlsx"])
        XCTAssertEqual(back.status, 0, back.errors)
        let original = try pythonRows(work + "/sheet.csv"), reread = try pythonRows(work + "/back/sheet.csv")
        XCTAssertEqual(reread.count, original.count)
        for (row, cells) in original.enumerated() where row < reread.count {
            XCTAssertEqual(reread[row].count, cells.count, "row \(row)")
            for (column, cell) in cells.enumerated() where column < reread[row].count {
                let read = reread[row][column]
                if row > 0, [7, 8, 9].contains(column), !cell.isEmpty {
                    XCTAssertEqual(Double(read), Double(cell), "row \(row) column \(column): a number")
                } else if row > 0, [5, 6].contains(column) {
                    XCTAssertEqual(Self.clock(read), cell, "row \(row) column \(column): a time")
                } else {
                    XCTAssertEqual(read, cell, "row \(row) column \(column)")
                }
            }
        }
    }

    /// `14:01` from a time as LibreOffice writes it in the C locale: `02:01:00 PM`.
    private static func clock(_ text: String) -> String {
        let parts = text.split(separator: " ")
        let fields = parts.first?.split(separator: ":").compactMap { Int($0) } ?? []
        guard fields.count >= 2 else { return text }
        var hour = fields[0] % 12
        if parts.count > 1 && parts[1] == "PM" { hour += 12 }
        if parts.count == 1 { hour = fields[0] }
        return (hour < 10 ? "0" : "") + "\(hour):" + (fields[1] < 10 ? "0" : "") + "\(fields[1])"
    }

    func testTheCSVHasARowPerGroupAndColumn() throws {
        try month()
        let text = try tracker.report(range: "2026-W45", options: options("csv", round: "15m", mode: "up", decimal: true))
        try text.write(toFile: work + "/report.csv", atomically: true, encoding: .utf8)
        let rows = try pythonRows(work + "/report.csv")
        XCTAssertEqual(rows.first, ["group", "column_from", "column_to", "seconds", "hours", "amount"])
        XCTAssertEqual(rows.count, 1 + 4 * 7, "four projects with time that week, seven days each")
        XCTAssertEqual(rows.first { $0[0] == "Writing" && $0[1] == "2026-11-02" }, ["Writing", "2026-11-02", "2026-11-02", "4500", "1.25", "106.88"])
        XCTAssertEqual(rows.first { $0[0] == "Counsel" && $0[1] == "2026-11-04" }, ["Counsel", "2026-11-04", "2026-11-04", "1800", "0.50", "100.00"])
        XCTAssertEqual(rows.first { $0[0] == "Ünïcode, Ltd" && $0[1] == "2026-11-05" }?[3...4], ["900", "0.25"])
        XCTAssertEqual(rows.first { $0[0] == "Free" && $0[1] == "2026-11-06" }?[3...5], ["2700", "0.75", ""])
        XCTAssertEqual(rows.first { $0[0] == "Free" && $0[1] == "2026-11-07" }?[3...5], ["0", "0.00", ""])
        let clock = try tracker.report(range: "2026-W45", options: options("csv", round: "15m", mode: "up"))
        XCTAssertTrue(clock.contains("\r\nWriting,2026-11-02,2026-11-02,4500,1:15,106.88\r\n"), clock)
    }

    func testTheTextAndTheChart() throws {
        try month()
        let text = try tracker.report(range: "2026-11", options: options("text", round: "15m", mode: "up"))
        XCTAssertTrue(text.hasPrefix("Report 2026-11: 2026-11-01 to 2026-11-30 (Europe/Berlin), by project\n"), text)
        XCTAssertTrue(text.contains("rounded up to 15m"), text)
        func row(_ name: String) -> [String]? {
            text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first { $0.first == name }
        }
        XCTAssertEqual(row("Writing"), ["Writing", "2:45", "2:37", "85.50", "235.13"], text)
        XCTAssertEqual(row("Free"), ["Free", "0:45", "0:45", "-", "-"], text)
        XCTAssertEqual(row("Total")?.prefix(3), ["Total", "4:30", "3:53"], text)
        XCTAssertTrue(text.contains("Amount EUR"), text)
        XCTAssertEqual(row("2026-11-03"), ["2026-11-03", "0:15"], text)
        let decimal = try tracker.report(range: "2026-11", options: options("text", round: "15m", mode: "up", decimal: true))
        XCTAssertTrue(decimal.contains("2.75"), decimal)

        let svg = try tracker.report(range: "2026-11", options: options("svg"))
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg)
        XCTAssertTrue(svg.contains("Report 2026-11: 3:53"))
        XCTAssertTrue(svg.contains("Ünïcode, Ltd"))
        for day in 1...30 { XCTAssertTrue(svg.contains(">\(day)</text>"), "the label of day \(day)") }
        XCTAssertEqual(svg.components(separatedBy: "fill=\"#3366cc\"><title>").count - 1, 2, "Writing on two days")
        let year = try tracker.report(range: "2026", options: options("svg"))
        for month in ["Jan", "Jun", "Nov", "Dec"] { XCTAssertTrue(year.contains(">\(month)</text>"), month) }
        for picture in [svg, year] {
            try picture.write(toFile: work + "/chart.svg", atomically: true, encoding: .utf8)
            let drawn = try run("/usr/bin/rsvg-convert", ["-o", work + "/chart.png", work + "/chart.svg"])
            XCTAssertEqual(drawn.status, 0, "rsvg-convert refused the chart: \(drawn.errors)")
        }
    }

    func testTheJSONKeysAreTheContracts() throws {
        try month()
        try tracker.updateProject(id: 1, changes: ProjectChanges(weeklyTarget: 72000))
        let json = try JSON.parse(try tracker.report(range: "2026-11", options: options("json")))
        guard case .object(let members) = json else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.0), ["range", "from", "to", "timezone", "group", "columns", "round", "round_mode", "currency",
                                          "total", "total_exact", "amount", "target", "overlapping", "focus", "groups"])
        XCTAssertEqual(json["columns"]?.arrayValue?.first, .object([("label", .string("2026-11-01")), ("from", .string("2026-11-01")), ("to", .string("2026-11-01"))]))
        let writing = try XCTUnwrap(json["groups"]?.arrayValue?.first { $0["name"]?.stringValue == "Writing" })
        guard case .object(let keys) = writing else { return XCTFail("not an object") }
        XCTAssertEqual(keys.map(\.0), ["key", "name", "color", "category", "total", "total_exact", "columns", "rate", "amount", "target", "focus"])
        XCTAssertEqual(writing["key"]?.stringValue, "1")
        XCTAssertEqual(writing["color"]?.stringValue, "#3366cc")
        XCTAssertEqual(writing["category"]?.stringValue, "Work")
        XCTAssertEqual(writing["columns"]?.arrayValue?.count, 30)
        XCTAssertEqual(writing["target"]?.intValue, 308_571)
        XCTAssertEqual(json["timezone"]?.stringValue, "Europe/Berlin")
    }
}
