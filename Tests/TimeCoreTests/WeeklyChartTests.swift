import Foundation
import XCTest
@testable import TimeCore

/// The week as an SVG chart: pure text, checked as text, and read back by librsvg's own
/// rsvg-convert to prove it is a drawable document.
final class WeeklyChartTests: TrackerTestCase {
    private func week(_ build: (Tracker) throws -> Void) throws -> WeeklyReport {
        try withTimeZone("UTC") {
            try build(tracker)
            return try tracker.weeklyReport(week: "2026-W23")
        }
    }

    func testColumnsLegendAndTotalsWithNamesEscaped() throws {
        let report = try week { tracker in
            let writing = try tracker.createProject(name: "Writing & <Drafts>", color: "#3465a4", category: "")
            let code = try tracker.createProject(name: "Code \"main\"", color: "#cc0000", category: "")
            clock.advance(6 * 86_400)
            try tracker.addSession(project: writing, start: base, duration: "2h", note: "")              // Monday
            try tracker.addSession(project: code, start: base + 3 * 3600, duration: "1h30m", note: "")   // Monday
            try tracker.addSession(project: writing, start: base + 86_400, duration: "3h15m", note: "")  // Tuesday
            try tracker.addSession(project: code, start: base + 4 * 86_400, duration: "45m", note: "")   // Friday
        }
        let svg = report.svg
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg)
        XCTAssertTrue(svg.hasSuffix("</svg>\n"))
        XCTAssertTrue(svg.contains("Week 2026-W23: 7:30"), "the title holds the week and its total")
        XCTAssertTrue(svg.contains("Writing &amp; &lt;Drafts&gt;"), "names are escaped")
        XCTAssertTrue(svg.contains("Code &quot;main&quot;"))
        XCTAssertFalse(svg.contains("<Drafts>"))
        // One bar per project and day with time, in the project's color.
        XCTAssertEqual(svg.components(separatedBy: "fill=\"#3465a4\"><title>").count - 1, 2)
        XCTAssertEqual(svg.components(separatedBy: "fill=\"#cc0000\"><title>").count - 1, 2)
        // Each day's total above its column, and the legend's totals.
        for text in [">3:30</text>", ">3:15</text>", ">0:45</text>", ">5:15</text>", ">2:15</text>"] {
            XCTAssertTrue(svg.contains(text), "\(text) missing")
        }
        for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] { XCTAssertTrue(svg.contains(">\(day)</text>")) }
        XCTAssertTrue(svg.contains("prefers-color-scheme: dark"), "a dark variant for dark themes")
        try assertDrawable(svg, name: "week-chart")
    }

    func testAnEmptyWeekSaysSo() throws {
        let svg = try week { _ in }.svg
        XCTAssertTrue(svg.contains("No time tracked."))
        XCTAssertTrue(svg.contains("Week 2026-W23: -"))
        try assertDrawable(svg, name: "week-chart-empty")
    }

    func testReportFormatSVGThroughTheContractCall() throws {
        let text = try withTimeZone("UTC") { try tracker.weeklyReport(week: "2026-W23", format: " SVG ") }
        XCTAssertTrue(text.hasPrefix("<svg"))
        XCTAssertThrowsError(try tracker.weeklyReport(week: "", format: "png"))
    }

    /// librsvg's rsvg-convert reads the document and draws it at the size it declares.
    private func assertDrawable(_ svg: String, name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try svg.write(toFile: directory + "/\(name).svg", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rsvg-convert")
        process.arguments = ["-o", directory + "/\(name).png", directory + "/\(name).svg"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, "rsvg-convert refused the chart: \(message)", file: file, line: line)
        let png = FileManager.default.contents(atPath: directory + "/\(name).png") ?? Data()
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], file: file, line: line)
        if let output = ProcessInfo.processInfo.environment["TIME_TEST_OUTPUT"] {
            try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            try? png.write(to: URL(fileURLWithPath: output + "/\(name).png"))
        }
    }
}
