import CGLib
import CKernel
import Glibc

/// The kernel's clocks, read with `clock_gettime`.
public final class KernelClock: PresenceClock {
    public init() {}
    private func read(_ id: clockid_t) -> Int64 {
        var value = timespec()
        clock_gettime(id, &value)
        return Int64(value.tv_sec) * 1_000_000_000 + Int64(value.tv_nsec)
    }
    public func realtime() -> Int64 { read(CLOCK_REALTIME) }
    public func monotonic() -> Int64 { read(CLOCK_MONOTONIC) }
    public func boottime() -> Int64 { read(CLOCK_BOOTTIME) }
}

/// How long the machine was suspended, from the growth of `CLOCK_BOOTTIME − CLOCK_MONOTONIC`
/// (BOOTTIME counts suspended time, MONOTONIC does not). Pure decision logic: the clock is given.
public struct SuspendMeter {
    /// Growth below this is clock noise, not a suspend.
    public static let threshold: Int64 = 2_000_000_000
    private var lastOffset: Int64

    public init(clock: PresenceClock) { lastOffset = clock.boottime() - clock.monotonic() }

    /// The suspend since the last check, as Unix seconds (left, back), measured on BOOTTIME:
    /// `back` is the wall clock now, `left` that minus the time spent suspended. Nil when the
    /// machine did not sleep (a wall clock change alone also wakes the timer).
    public mutating func check(clock: PresenceClock) -> (left: Int64, back: Int64)? {
        let offset = clock.boottime() - clock.monotonic()
        let slept = offset - lastOffset
        lastOffset = offset
        guard slept >= SuspendMeter.threshold else { return nil }
        let back = clock.realtime() / 1_000_000_000
        return (back - slept / 1_000_000_000, back)
    }
}

/// A `CLOCK_REALTIME` timerfd armed far ahead with `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`:
/// it never expires, but the kernel cancels it (the fd becomes readable) whenever the wall
/// clock is set, which includes every resume from suspend. No wake-up otherwise.
final class ClockChangeWatch {
    private var fd: Int32 = -1
    private var source: UInt32 = 0
    private let onChange: () -> Void

    init?(onChange: @escaping () -> Void) {
        self.onChange = onChange
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0, arm() else {
            if fd >= 0 { close(fd) }
            return nil
        }
        source = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, clockChanged,
                                    Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    private func arm() -> Bool {
        var spec = itimerspec()
        spec.it_value.tv_sec = time(nil) + 10 * 365 * 86400
        return timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil) == 0
    }

    fileprivate func fired() {
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, 8) // ECANCELED after a clock change: that is the event
        _ = arm()
        onChange()
    }

    func stop() {
        if source != 0 { g_source_remove(source); source = 0 }
        if fd >= 0 { close(fd); fd = -1 }
    }

    deinit { stop() }
}

private func clockChanged(_ fd: Int32, _ condition: GIOCondition, _ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<ClockChangeWatch>.fromOpaque(data!).takeUnretainedValue().fired()
    return 1 // G_SOURCE_CONTINUE
}
