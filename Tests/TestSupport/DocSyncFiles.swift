import Foundation

/// Change files written as docs/sync.md describes them, by hand, independently of TimeCore (its
/// JSON and its SHA-256 are not used): a device of another version, or a second implementation.
public struct DocSyncDevice {
    public let root: String
    public let id: String
    public private(set) var sequence: Int64 = 0
    public private(set) var lines: [String] = []
    public var clock: Int64

    /// A device of `root` (`<folder>/time-tracker`), with a `device.json` of `format`.
    public init(root: String, id: String = DocSyncDevice.newID(), format: Int = 1, clock: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws {
        self.root = root; self.id = id; self.clock = clock
        try FileManager.default.createDirectory(atPath: root + "/" + id, withIntermediateDirectories: true)
        try Data("{\"device\":\"\(id)\",\"format\":\(format)}\n".utf8).write(to: URL(fileURLWithPath: root + "/" + id + "/device.json"))
    }

    public static func newID() -> String { (0..<32).map { _ in String("0123456789abcdef".randomElement()!) }.joined() }

    /// One record's line: canonical JSON (keys sorted by their bytes, no whitespace) with `sum`,
    /// the SHA-256 of the same object's canonical line without it (sha256sum computes it).
    public static func line(_ object: [String: Any]) throws -> String {
        let body = canonical(object)
        let sum = try sha256(body)
        var withSum = object
        withSum["sum"] = sum
        return canonical(withSum) + "\n"
    }

    /// Appends a record (`dev`, `seq` and `hlc` filled in) to the device's first change file.
    @discardableResult
    public mutating func append(kind: String, id entity: String, op: String, fields: [String: Any], extra: [String: Any] = [:],
                                sum override: String? = nil) throws -> String {
        sequence += 1
        clock += 1000
        var object: [String: Any] = ["dev": id, "seq": sequence, "hlc": [clock, 0], "kind": kind, "id": entity, "op": op, "fields": fields]
        for (key, value) in extra { object[key] = value }
        var line = try DocSyncDevice.line(object)
        if let override { line = line.replacingOccurrences(of: "\"sum\":\"", with: "\"sum\":\"\(override)") }
        lines.append(line)
        let path = root + "/" + id + "/changes-000001.jsonl"
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(line.utf8))
        try handle.close()
        return line
    }

    public static func canonical(_ value: Any) -> String {
        switch value {
        case let text as String:
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
                }
            }
            return out + "\""
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int64: return String(number)
        case let number as Int: return String(number)
        case let list as [Any]: return "[" + list.map(canonical).joined(separator: ",") + "]"
        case let object as [String: Any]:
            let keys = object.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            return "{" + keys.map { canonical($0) + ":" + canonical(object[$0]!) }.joined(separator: ",") + "}"
        default: return "null"
        }
    }

    static func sha256(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
