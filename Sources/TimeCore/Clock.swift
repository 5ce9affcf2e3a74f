import Glibc

/// Where "now" comes from; tests inject their own.
public protocol Clock: AnyObject {
    func now() -> Int64
}

public final class SystemClock: Clock {
    public init() {}
    public func now() -> Int64 { Int64(time(nil)) }
}
