import XCTest
@testable import TimeCore

final class SafetySmokeTests: XCTestCase {
    func testSmoke() throws {
        let dir = "/tmp/smoke/\(getpid())"
        Files.remove(dir)
        let clock = FixedClock(1_795_000_000)
        do {
            let home = try DataHome(directory: dir, clock: clock)
            XCTAssertEqual(home.status, .ok)
            let t = home.tracker
            try t.createProject(name: "Writing", color: "", category: "")
            try t.startProject("writing")
            clock.time += 100
            try t.pause()
            clock.time += 50
            try t.resume()
            clock.time += 10
            try t.stop()
            try t.addSession(project: 1, start: 1_700_000_000, duration: "1h30m", note: "hello")
            print(try t.weeklyReport(week: "", format: "text"))
            print(try t.weeklyReport(week: "", format: "json"))
            print(Files.list(dir + "/snapshots"))
        }
        // damage the store
        try Files.writeDurably(Array("garbage".utf8) + [UInt8](repeating: 7, count: 5000), to: dir + "/time.sqlite")
        let home = try DataHome(directory: dir, clock: clock)
        print(home.status)
        XCTAssertEqual(home.status.state, .restored)
        XCTAssertEqual(try home.tracker.sessions(project: 0, from: 0, to: 2_000_000_000).count, 2)
    }
}

final class FixedClock: Clock {
    var time: Int64
    init(_ t: Int64) { time = t }
    func now() -> Int64 { time }
}
