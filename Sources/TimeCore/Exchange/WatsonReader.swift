/// Watson 2.1's `frames` file: a JSON array of `[start, stop, project, id, [tags], updated_at]`
/// with UTC Unix seconds. The id (32 hex digits) survives edits. The running frame lives in
/// `state` and is not a frame: it is never imported.
public enum WatsonReader {
    public static func read(frames bytes: [UInt8], file: String, into data: inout ExchangeData) throws {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch let error as JSON.ParseError {
            throw ExchangeError(file: file, line: line(of: error.offset, in: bytes), expected: "Watson's frames (a JSON array): \(error.reason)")
        }
        guard let frames = json.arrayValue else { throw ExchangeError(file: file, line: 1, expected: "a JSON array of frames") }
        for (index, frame) in frames.enumerated() {
            let what = "frame \(index + 1) to be [start, stop, \"project\", \"id\", [tags], updated]"
            guard let fields = frame.arrayValue, fields.count >= 4, let start = number(fields[0]), let stop = number(fields[1]),
                  let project = fields[2].stringValue, let id = fields[3].stringValue, stop >= start
            else { throw ExchangeError(file: file, line: 0, expected: what) }
            var tags: [String] = []
            if fields.count > 4 {
                guard let list = fields[4].arrayValue else { throw ExchangeError(file: file, line: 0, expected: what) }
                tags = try list.map {
                    guard let tag = $0.stringValue else { throw ExchangeError(file: file, line: 0, expected: what) }
                    return tag
                }
            }
            data.records.append(ExchangeRecord(key: "watson:\(id)", project: project, start: start, end: stop, tags: tags))
        }
    }

    /// Watson's `state`: a running frame (`{"project": ..., "start": ...}`) or `{}`.
    public static func runningWarning(state bytes: [UInt8]) -> String? {
        guard let json = try? JSON.parse(bytes), let project = json["project"]?.stringValue else { return nil }
        let since = json["start"].flatMap(number).map { " since \(WallClock.iso($0))" } ?? ""
        return "Watson's running frame (\(project)\(since)) was not imported; stop it (watson stop) and import again to bring it in."
    }

    /// Watson writes whole seconds, older versions sometimes with a fraction; JSON's reader takes integers.
    private static func number(_ json: JSON) -> Int64? { json.intValue }

    static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes.prefix(offset).reduce(1) { $0 + ($1 == 0x0a ? 1 : 0) }
    }
}
