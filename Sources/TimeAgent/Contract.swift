import DBusKit
import TimeCore
import TimeVersion

/// Names fixed by the D-Bus contract (shared/dbus-interface.md).
public enum Contract {
    public static let busName = "io.github.timetracker.Time1"
    public static let objectPath = "/io/github/timetracker/Time1"
    public static let interface = "io.github.timetracker.Time1"
    public static let errorPrefix = "io.github.timetracker.Time1.Error."
    public static let version = TimeVersion.string
    public static let desktopEntry = "io.github.timetracker.Time"
}

extension TrackerError {
    /// The contract's named D-Bus error.
    var busError: BusError { BusError(name: Contract.errorPrefix + name, message: message) }
}

/// Runs a handler body and turns the core's typed errors into the contract's D-Bus errors.
func contractCall<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as TrackerError {
        throw error.busError
    } catch let error as BusError {
        throw error
    } catch {
        throw TrackerError.storageFailure("The request failed unexpectedly (\(error)); nothing was changed.").busError
    }
}

/// Reads the checked arguments of a call; DBusKit has already matched the signature.
struct Arguments {
    let values: [DBusValue]

    func string(_ index: Int) -> String { values[index].stringValue ?? "" }
    func int64(_ index: Int) -> Int64 { values[index].int64Value ?? 0 }

    /// A `t` id; ids beyond Int64 cannot exist, so they are reported as missing by the caller.
    func id(_ index: Int) -> Int64? {
        guard let value = values[index].uint64Value, value <= UInt64(Int64.max) else { return nil }
        return Int64(value)
    }

    func dictionary(_ index: Int) -> [String: DBusValue] { values[index].variantDictionary ?? [:] }
}

/// One `a{sv}` of changes, read key by key with types checked; unknown keys are refused.
struct ChangeSet {
    let entries: [String: DBusValue]
    let allowed: [String: String]
    let what: String

    init(_ entries: [String: DBusValue], allowed: [String: String], what: String) throws {
        self.entries = entries
        self.allowed = allowed
        self.what = what
        let accepted = allowed.keys.sorted().map { "\($0) (\(allowed[$0]!))" }.joined(separator: ", ")
        for (key, value) in entries {
            guard let signature = allowed[key] else {
                throw TrackerError.invalidArgument("\"\(key.prefix(40))\" is not a key of \(what); accepted keys: \(accepted).")
            }
            guard value.signature == signature else {
                throw TrackerError.invalidArgument("The key \(key) of \(what) takes type \(signature), not \(value.signature).")
            }
        }
    }

    func string(_ key: String) -> String? { entries[key]?.stringValue }
    func bool(_ key: String) -> Bool? { entries[key]?.boolValue }
    func int64(_ key: String) -> Int64? { entries[key]?.int64Value }
    func uint64(_ key: String) -> UInt64? { entries[key]?.uint64Value }
}
