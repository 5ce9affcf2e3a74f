import Foundation
import XCTest
@testable import TimeCore

/// The chart drawn for a dark colour scheme (the window's Week view in dark mode): librsvg reads
/// no media query, so the dark chart carries the dark colours themselves. Checked where it shows:
/// the pixels librsvg draws (rsvg-convert, then ImageMagick reads the card's colour).
final class ChartSchemeTests: TrackerTestCase {
    func testTheDarkChartIsDrawnDarkAndTheLightOneLight() throws {
        let report = try withTimeZone("UTC") { () throws -> RangeReport in
            let writing = try tracker.createProject(name: "Writing", color: "#3465a4", category: "")
            clock.advance(6 * 86_400)
            try tracker.addSession(project: writing, start: base, duration: "2h", note: "")
            return try tracker.rangeReport(range: "2026-W23", options: ReportOptions())
        }
        let light = report.svg, dark = report.svg(dark: true)
        XCTAssertEqual(light, report.svg(dark: false))
        XCTAssertTrue(light.contains("prefers-color-scheme: dark"), "the light chart still follows a viewer that asks for dark")
        XCTAssertFalse(dark.contains("@media"), "the dark chart is dark whatever the renderer reads")
        XCTAssertEqual(dark.replacingOccurrences(of: "<style>[^<]*</style>", with: "", options: .regularExpression),
                       light.replacingOccurrences(of: "<style>[^<]*</style>", with: "", options: .regularExpression),
                       "only the colours differ")
        XCTAssertEqual(try cardPixel(light), "srgba(255,255,255,1)")
        XCTAssertEqual(try cardPixel(dark), "srgba(36,36,36,1)")
    }

    /// The colour librsvg draws just inside the card's corner.
    private func cardPixel(_ svg: String) throws -> String {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try svg.write(toFile: directory + "/chart.svg", atomically: true, encoding: .utf8)
        try run("/usr/bin/rsvg-convert", ["-o", directory + "/chart.png", directory + "/chart.svg"])
        return try run("/usr/bin/convert", [directory + "/chart.png", "-format", "%[pixel:p{12,12}]", "info:"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    private func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(program) \(arguments)")
        return text
    }
}
