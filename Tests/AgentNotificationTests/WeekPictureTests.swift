import DBusKit
import Foundation
import TestSupport
import XCTest

/// The week as a picture from a real agent: ShowWeeklyReport attaches the chart (a PNG drawn by
/// librsvg) where dunst shows images, keeping the text totals in the body; WeeklyReportPNG and
/// `timectl report --svg/--png` give the same chart.
final class WeekPictureTests: XCTestCase {
    private static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    func testReportNotificationCarriesTheChart() throws {
        let runtime = TemporaryDirectory("time-runtime")
        defer { runtime.remove() }
        chmod(runtime.path, 0o700)
        let world = try NotificationWorld("week-picture", environment: ["XDG_RUNTIME_DIR": runtime.path])
        defer { world.stop() }
        let writing = try XCTUnwrap(try world.call("CreateProject", [.string("Writing & <Drafts>"), .string("#3465a4"), .string("")]).first?.uint64Value)
        let now = Int64(Date().timeIntervalSince1970)
        try world.call("AddSession", [.uint64(writing), .int64(now - 120), .string("1m"), .string("")])

        try world.call("ShowWeeklyReport", [.string("")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { !world.notifies(category: NotificationWorld.reportCategory).isEmpty }, "no report notification")
        let shown = try XCTUnwrap(world.notifies(category: NotificationWorld.reportCategory).first)
        let path = runtime.file("time-tracker-week.png")
        XCTAssertEqual(shown.hint("image-path"), "string \"\(path)\"", "dunst shows images (icon-static): the chart goes along")
        XCTAssertTrue(shown.body.contains("Total: "), "the text totals stay in the body: \(shown.body)")
        let png = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertEqual(Array(png.prefix(8)), Self.pngMagic)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)

        // The same chart by D-Bus and through timectl; timectl writes what the agent drew.
        let bytes = try XCTUnwrap(try world.call("WeeklyReportPNG", [.string("")]).first?.arrayValue).compactMap(\.byteValue)
        XCTAssertEqual(Array(bytes.prefix(8)), Self.pngMagic)
        XCTAssertGreaterThan(bytes.count, 2000)
        let out = TemporaryDirectory("time-week-files")
        defer { out.remove() }
        let environment = world.bus.environment.merging(["TZ": "Europe/Berlin"]) { $1 }
        let result = try Command.run(Products.timectl, ["report", "--svg", out.file("week.svg"), "--png", out.file("week.png")],
                                     environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let svg = try String(contentsOfFile: out.file("week.svg"), encoding: .utf8)
        XCTAssertTrue(svg.hasPrefix("<svg"), svg)
        XCTAssertTrue(svg.contains("Writing &amp; &lt;Drafts&gt;"))
        let written = try XCTUnwrap(FileManager.default.contents(atPath: out.file("week.png")))
        XCTAssertEqual(Array(written.prefix(8)), Self.pngMagic)

        // Bad input: a named error, nothing written.
        let bad = try Command.run(Products.timectl, ["report", "not-a-week", "--png", out.file("bad.png")], environment: environment)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.file("bad.png")))
        XCTAssertThrowsError(try world.call("WeeklyReportPNG", [.string("2026-W99")])) { error in
            XCTAssertEqual((error as? BusError)?.name, "io.github.timetracker.Time1.Error.InvalidArgument")
        }
    }
}
