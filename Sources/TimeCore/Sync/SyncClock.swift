/// A hybrid logical clock reading: wall milliseconds and a counter (docs/sync.md).
public struct HLC: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var time: Int64
    public var counter: Int64

    public init(time: Int64, counter: Int64) { self.time = time; self.counter = counter }

    public static func < (a: HLC, b: HLC) -> Bool { (a.time, a.counter) < (b.time, b.counter) }
    public var description: String { "\(time).\(counter)" }
}

/// Where a record stands in the total order of all records: (hlc, device, sequence).
public struct SyncStamp: Comparable, Hashable, Sendable {
    public var hlc: HLC
    public var device: String
    public var sequence: Int64

    public init(hlc: HLC, device: String, sequence: Int64) {
        self.hlc = hlc; self.device = device; self.sequence = sequence
    }

    public static func < (a: SyncStamp, b: SyncStamp) -> Bool {
        if a.hlc != b.hlc { return a.hlc < b.hlc }
        if a.device != b.device { return a.device.utf8.lexicographicallyPrecedes(b.device.utf8) }
        return a.sequence < b.sequence
    }
}

/// The device's hybrid logical clock: never goes backwards, and moves past everything merged.
public struct HybridClock: Sendable {
    public private(set) var last: HLC

    public init(last: HLC = HLC(time: 0, counter: 0)) { self.last = last }

    /// The reading for a local change made at `wallMilliseconds`.
    public mutating func tick(wallMilliseconds: Int64) -> HLC {
        last = wallMilliseconds > last.time ? HLC(time: wallMilliseconds, counter: 0)
                                            : HLC(time: last.time, counter: last.counter + 1)
        return last
    }

    /// Takes in a merged record's reading, so the next local change comes after it.
    public mutating func observe(_ reading: HLC) {
        if reading > last { last = reading }
    }
}
