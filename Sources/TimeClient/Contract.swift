import DBusCore

/// The names of the contract (dbus-interface.md), as every client of the agent uses them.
public enum Time1 {
    public static let busName = "io.github.timetracker.Time1"
    public static let path = "/io/github/timetracker/Time1"
    public static let interface = "io.github.timetracker.Time1"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let errorPrefix = "io.github.timetracker.Time1.Error."

    /// The match rule for the agent's `PropertiesChanged` (the bus routes signals only on request).
    public static let propertiesChangedRule =
        "type='signal',sender='\(busName)',path='\(path)',interface='\(properties)',member='PropertiesChanged'"

    /// The match rule for the agent's name coming and going (a restart, a crash).
    public static let ownerChangedRule =
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(busName)'"

    /// The contract's error name without its prefix (`NoSuchProject`), or the whole name for a
    /// D-Bus error of the bus itself.
    public static func shortErrorName(_ name: String) -> String {
        name.hasPrefix(errorPrefix) ? String(name.dropFirst(errorPrefix.count)) : name
    }
}

extension String {
    /// Without surrounding white space, as the agent compares names.
    public var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

extension DBusValue {
    /// Any integer type as Int64 (the agent's `t` and `x`, and `u`).
    public var integer: Int64? {
        switch self {
        case .byte(let v): return Int64(v)
        case .int16(let v): return Int64(v)
        case .uint16(let v): return Int64(v)
        case .int32(let v): return Int64(v)
        case .uint32(let v): return Int64(v)
        case .int64(let v): return v
        case .uint64(let v): return Int64(clamping: v)
        case .variant(let inner): return inner.integer
        default: return nil
        }
    }
}
