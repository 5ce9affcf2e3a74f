/// Reading back this agent's own exports: `json` (complete) and `csv`.
public enum JSONExchange {
    public static let formatName = "time-tracker-export"

    public static func read(_ bytes: [UInt8], file: String, into data: inout ExchangeData) throws {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch let error as JSON.ParseError {
            throw ExchangeError(file: file, line: WatsonReader.line(of: error.offset, in: bytes), expected: "JSON: \(error.reason)")
        }
        guard json["format"]?.stringValue == formatName, json["version"]?.intValue == 1 else {
            throw ExchangeError(file: file, line: 1, expected: "a Time export (\"format\": \"\(formatName)\", \"version\": 1), as `timectl export json` writes")
        }
        let dataID = json["dataId"]?.stringValue ?? ""
        data.categories = try (json["categories"]?.arrayValue ?? []).map {
            guard let name = $0.stringValue else { throw ExchangeError(file: file, line: 0, expected: "category names as strings") }
            return name
        }
        data.projects = try (json["projects"]?.arrayValue ?? []).map {
            guard let name = $0["name"]?.stringValue, let color = $0["color"]?.stringValue,
                  let category = $0["category"]?.stringValue, let archived = $0["archived"]?.boolValue
            else { throw ExchangeError(file: file, line: 0, expected: "projects with name, color, category and archived") }
            var project = ExchangeProject(name: name, color: color, category: category, archived: archived)
            // A rate and a weekly target (exports since v10); absent in older ones.
            let badPlan = ExchangeError(file: file, line: 0, expected: "a project's rate as a decimal string (\"85.50\") and weekly_target in seconds up to a week")
            if let rate = $0["rate"] {
                guard let text = rate.stringValue else { throw badPlan }
                do { project.rateCents = try Money.rateCents(text) } catch { throw badPlan }
            }
            if let target = $0["weekly_target"] {
                guard let seconds = target.intValue, (0...PlanSettings.maximumWeeklyTarget).contains(seconds) else { throw badPlan }
                project.weeklyTarget = seconds
            }
            return project
        }
        for (index, session) in (json["sessions"]?.arrayValue ?? []).enumerated() {
            let what = "session \(index + 1) with id, project, start, end, unrecordedSeconds, note and segments [[start, end]]"
            guard let id = session["id"]?.intValue, let project = session["project"]?.stringValue,
                  let start = session["start"]?.intValue, let end = session["end"]?.intValue, end >= start,
                  let unrecorded = session["unrecordedSeconds"]?.intValue, unrecorded >= 0, start >= 0, unrecorded <= end - start,
                  let note = session["note"]?.stringValue, let list = session["segments"]?.arrayValue
            else { throw ExchangeError(file: file, line: 0, expected: what) }
            let segments = try list.map { pair -> Segment in
                guard let values = pair.arrayValue, values.count == 2, let from = values[0].intValue, let to = values[1].intValue,
                      from <= to, from >= start, to <= end
                else { throw ExchangeError(file: file, line: 0, expected: what + " inside the session") }
                return Segment(start: from, end: to)
            }
            var record = ExchangeRecord(key: "json:\(dataID):\(id)", project: project, start: start, end: end, note: note,
                                        segments: segments)
            if unrecorded > 0 { record.activeSeconds = unrecorded + segments.reduce(0) { $0 + ($1.end! - $1.start) } }
            data.records.append(record)
        }
    }
}

public enum CSVExchange {
    public static func read(_ text: String, file: String, into data: inout ExchangeData) throws {
        let rows = try CSV.parse(text, file: file)
        guard let header = rows.first, header.fields.map({ $0.lowercased() }) == ExportWriter.csvHeader else {
            throw ExchangeError(file: file, line: 1, expected: "the header " + ExportWriter.csvHeader.joined(separator: ","))
        }
        var categories = Set<String>()
        for (line, fields) in rows.dropFirst() {
            func fail(_ expected: String) -> ExchangeError { ExchangeError(file: file, line: line, expected: expected) }
            guard fields.count == 8 else { throw fail("8 fields (\(ExportWriter.csvHeader.joined(separator: ","))), not \(fields.count)") }
            guard !fields[1].trimmingWhitespace().isEmpty else { throw fail("a project name") }
            guard let start = WallClock.parse(fields[3]) else { throw fail("a start such as 2026-11-28T14:00:00+01:00") }
            guard let end = WallClock.parse(fields[4]), end >= start else { throw fail("an end such as 2026-11-28T15:00:00+01:00, not before the start") }
            guard let active = Int64(fields[5]), active >= 0, active <= end - start else {
                throw fail("duration_seconds: whole seconds, at most the span from start to end")
            }
            let category = fields[2].trimmingWhitespace()
            if !category.isEmpty && categories.insert(TextInput.nameKey(category)).inserted { data.categories.append(category) }
            data.records.append(ExchangeRecord(key: "csv:\(TextInput.nameKey(fields[1])):\(start):\(end)", project: fields[1],
                                               category: category, start: start, end: end, note: fields[7],
                                               activeSeconds: active == end - start ? nil : active))
        }
    }
}
