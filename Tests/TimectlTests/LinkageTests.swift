import Foundation
import TestSupport
import XCTest

/// timectl is linked as Package.swift says: a static PIE (no interpreter, no shared library, no
/// search path that glibc's static-PIE start-up would refuse) whose relocations become read-only
/// at start (RELRO, BIND_NOW). readelf reads the built file; the package's own copy is checked
/// the same way by scripts/test-deb.sh.
final class LinkageTests: XCTestCase {
    func testTimectlIsAStaticPositionIndependentExecutableWithRelroAndBindNow() throws {
        try Binaries.check()
        let result = try Command.run("readelf", ["-h", "-l", "-d", "-W", Products.timectl])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func has(_ prefix: String, containing word: String? = nil) -> Bool {
            lines.contains { $0.hasPrefix(prefix) && (word.map($0.contains) ?? true) }
        }
        XCTAssertTrue(has("Type:", containing: "DYN"), "not a position-independent executable:\n\(result.stdout)")
        XCTAssertTrue(has("GNU_RELRO"), "no RELRO segment")
        XCTAssertTrue(lines.contains { $0.contains("(FLAGS_1)") && $0.split(separator: " ").contains("NOW") }, "no BIND_NOW (FLAGS_1 NOW)")
        XCTAssertTrue(lines.contains { $0.contains("(FLAGS_1)") && $0.contains("PIE") }, "FLAGS_1 lacks PIE")
        XCTAssertFalse(has("INTERP"), "timectl asks for a dynamic loader: it is no longer static")
        XCTAssertFalse(lines.contains { $0.contains("(NEEDED)") }, "timectl needs shared libraries")
        XCTAssertFalse(lines.contains { $0.contains("(RUNPATH)") || $0.contains("(RPATH)") },
                       "a search path in a static PIE stops glibc's start-up (scripts/ld-static-pie removes it)")
        // And it starts: glibc's start-up relocated it and made its RELRO read-only.
        let version = try Command.run(Products.timectl, ["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
    }
}
