import Glibc

/// Where "now" comes from; tests inject their own.
public protocol Clock: AnyObject {
    func now() -> Int64
}

public final class SystemClock: Clock {
    public init() {}
    /// CLOCK_REALTIME's seconds, not time(2)'s: glibc's time() reads the kernel's coarse clock,
    /// which lags the precise one by up to a tick, so a client that read 10:00:00 and asked for a
    /// pause at 10:00:00 could find the agent still at 09:59:59, and the pause clamped there.
    public func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}
