import Foundation
import TestSupport
import XCTest

/// timectl is linked as Package.swift says: a position-independent executable whose relocations
/// become read-only at start (RELRO, BIND_NOW), with glibc as its only shared library (libdbus,
/// libstdc++ and the Swift runtime linked in: nothing more to load for each keystroke) and no
/// search path of its own. readelf reads the built file; the package's copy is checked the same
/// way, and by hardening-check, in scripts/test-deb.sh.
final class LinkageTests: XCTestCase {
    static let glibc: Set<String> = ["libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"]

    func testTimectlIsAHardenedPIELoadingOnlyGlibc() throws {
        try Binaries.check()
        let result = try Command.run("readelf", ["-h", "-l", "-d", "-W", Products.timectl])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertTrue(lines.contains { $0.hasPrefix("Type:") && $0.contains("DYN") }, "not a position-independent executable:\n\(result.stdout)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("GNU_RELRO") }, "no RELRO segment")
        let flags = lines.filter { $0.contains("(FLAGS_1)") }.joined()
        XCTAssertTrue(flags.split(separator: " ").contains("NOW"), "no BIND_NOW (FLAGS_1 NOW): \(flags)")
        XCTAssertTrue(flags.contains("PIE"), "FLAGS_1 lacks PIE: \(flags)")
        let needed = Set(lines.filter { $0.contains("(NEEDED)") }.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        })
        XCTAssertTrue(needed.contains("libc.so.6"), "timectl is not linked against glibc: \(needed)")
        XCTAssertTrue(needed.isSubset(of: LinkageTests.glibc), "timectl loads more than glibc: \(needed.subtracting(LinkageTests.glibc))")
        XCTAssertFalse(lines.contains { $0.contains("(RUNPATH)") || $0.contains("(RPATH)") },
                       "timectl has a search path of its own (scripts/ld-timectl removes SwiftPM's)")
        let version = try Command.run(Products.timectl, ["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
    }
}
