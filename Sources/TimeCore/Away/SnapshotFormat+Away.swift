/// Snapshot payload v5: `away` holds the away setting and the unanswered spans, canonically
/// `{"lastId":…,"minutes":…,"spans":[{"end":…,"id":…,"reason":"…","sessionId":…,"start":…}]}`.
extension SnapshotFormat {
    static func awayJSON(_ state: AwayState) -> String {
        JSON.sortedObject([
            "lastId": .int(state.lastID),
            "minutes": .int(Int64(state.minutes)),
            "spans": .array(state.spans.map { span in
                .sortedObject([
                    "end": span.end.map(JSON.int) ?? .null,
                    "id": .int(span.id),
                    "reason": .string(span.reason.rawValue),
                    "sessionId": .int(span.sessionID),
                    "start": .int(span.start),
                ])
            }),
        ]).serialized
    }

    /// v4 → v5: the default away setting and no spans.
    static func migrateV4toV5(_ payload: JSON) throws -> JSON {
        guard case .object(let members) = payload else { throw Failure.malformed("the payload is not an object") }
        let away = try JSON.parse(awayJSON(AwayState()))
        return .object([("away", away)] + members.filter { $0.0 != "away" })
    }

    static func decodeAway(_ json: JSON?) throws -> AwayState {
        guard let json, let minutes = json["minutes"]?.intValue, let lastID = json["lastId"]?.intValue,
              let list = json["spans"]?.arrayValue,
              minutes >= 0, minutes <= Int64(AwayState.maximumMinutes)
        else { throw Failure.malformed("missing or bad away settings") }
        let spans = try list.map { item -> AwaySpan in
            guard let id = item["id"]?.intValue, let session = item["sessionId"]?.intValue,
                  let start = item["start"]?.intValue, let end = item["end"],
                  let reason = item["reason"]?.stringValue.flatMap(AwayReason.init(rawValue:))
            else { throw Failure.malformed("bad away span") }
            guard end.isNull || end.intValue != nil else { throw Failure.malformed("bad away span end") }
            return AwaySpan(id: id, sessionID: session, start: start, end: end.intValue, reason: reason)
        }
        return AwayState(minutes: UInt32(minutes), lastID: lastID, spans: spans)
    }
}
