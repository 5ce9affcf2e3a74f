import Glibc

/// Names in the shared folder (docs/sync.md, "Layout").
public struct SyncLayout: Sendable {
    /// `<folder>/time-tracker`: every device's sub-folder lives here.
    public let root: String

    public init(folder: String) { root = folder.hasSuffix("/") ? folder + "time-tracker" : folder + "/time-tracker" }

    public func deviceFolder(_ device: String) -> String { root + "/" + device }

    public static func changeFileName(_ number: Int) -> String {
        var digits = String(number)
        while digits.count < 6 { digits = "0" + digits }
        return "changes-" + digits + ".jsonl"
    }

    /// The number of a change file, or nil for every other name (temporary files, conflict copies).
    public static func changeFileNumber(_ name: String) -> Int? {
        let bytes = Array(name.utf8)
        guard bytes.count == 20, name.hasPrefix("changes-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = bytes[8..<14]
        guard digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// Device ids: 32 lower-case hex digits. Anything else in the root is not a device.
    public static func isDeviceID(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// The devices that have a folder here, in a fixed order.
    public func devices() -> [String] {
        Files.list(root).filter(SyncLayout.isDeviceID).sorted()
    }

    /// A device's change files by number, in order.
    public func changeFiles(of device: String) -> [Int] {
        Files.list(deviceFolder(device)).compactMap(SyncLayout.changeFileNumber).sorted()
    }
}
