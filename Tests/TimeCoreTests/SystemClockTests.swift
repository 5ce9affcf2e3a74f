import Glibc
import XCTest
@testable import TimeCore

/// The agent's "now" is never behind the clock a client reads: a correction given as "now" by a
/// client whose clock just began a new second must not be clamped to the second before.
final class SystemClockTests: XCTestCase {
    func testNowIsNeverBehindThePreciseClock() {
        var spec = timespec()
        for _ in 0..<3 {
            // At the instant the precise clock begins a second, ask at once: the coarse clock
            // that time(2) reads is still in the second before for up to a tick.
            clock_gettime(CLOCK_REALTIME, &spec)
            let second = spec.tv_sec
            repeat { clock_gettime(CLOCK_REALTIME, &spec) } while spec.tv_sec == second
            let asked = Int64(spec.tv_sec)
            XCTAssertGreaterThanOrEqual(SystemClock().now(), asked)
        }
    }
}
