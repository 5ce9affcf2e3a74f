import CSQLite

/// Hamster 3.0's `hamster.db` (schema version 9), opened read-only: facts with local wall-clock
/// times without a zone (read with the zone rules of their own date), `activity@category`
/// (category -1 or none is "Unsorted": no category), tags in `fact_tags`. An edited fact gets a
/// new id, so the import also matches facts by project, start and end.
public enum HamsterReader {
    public static func read(database path: String, keyPrefix: String, into data: inout ExchangeData) throws {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly)
        } catch {
            throw ExchangeError(file: path, line: 0, expected: "a Hamster database that can be opened (\(error))")
        }
        do {
            let tables = Set(try database.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(0) })
            guard tables.isSuperset(of: ["facts", "activities", "categories", "fact_tags", "tags"]) else {
                throw ExchangeError(file: path, line: 0, expected: "Hamster's tables facts, activities, categories, fact_tags and tags")
            }
            if tables.contains("version"),
               let version = try database.queryFirst("SELECT version FROM version", row: { $0.int(0) }), version != 9 {
                data.warnings.append("\(path) is a Hamster database of version \(version); it was read as Hamster 3.0's version 9.")
            }
            var tagsByFact: [Int64: [String]] = [:]
            for (fact, tag) in try database.query(
                "SELECT fact_tags.fact_id, tags.name FROM fact_tags JOIN tags ON tags.id = fact_tags.tag_id ORDER BY fact_tags.fact_id, tags.name",
                row: { ($0.int(0), $0.string(1)) }) {
                tagsByFact[fact, default: []].append(tag)
            }
            let rows = try database.query("""
                SELECT facts.id, facts.start_time, facts.end_time, coalesce(facts.description, ''),
                       coalesce(activities.name, ''), coalesce(categories.name, ''), coalesce(activities.category_id, -1)
                FROM facts LEFT JOIN activities ON activities.id = facts.activity_id
                LEFT JOIN categories ON categories.id = activities.category_id
                ORDER BY facts.start_time, facts.id
                """) { row in
                (row.int(0), row.string(1), row.optionalString(2), row.string(3), row.string(4), row.string(5), row.int(6))
            }
            for (id, startText, endText, description, activity, category, categoryID) in rows {
                guard let start = WallClock.parse(startText) else {
                    throw ExchangeError(file: path, line: 0, expected: "fact \(id)'s start_time as YYYY-MM-DD HH:MM:SS, not \"\(startText.prefix(40))\"")
                }
                var end: Int64?
                if let endText, !endText.isEmpty {
                    guard let value = WallClock.parse(endText), value >= start else {
                        throw ExchangeError(file: path, line: 0, expected: "fact \(id)'s end_time as YYYY-MM-DD HH:MM:SS after its start, not \"\(endText.prefix(40))\"")
                    }
                    end = value
                }
                let project = activity.trimmingWhitespace().isEmpty ? "Hamster" : activity
                let record = ExchangeRecord(key: "\(keyPrefix)\(id)", project: project,
                                            category: categoryID == -1 ? "" : category, start: start, end: end,
                                            note: description, tags: tagsByFact[id] ?? [])
                if end == nil {
                    data.warnings.append("Hamster's running activity \(project) (since \(WallClock.iso(start))) was not imported; stop it in Hamster and import again to bring it in.")
                }
                data.records.append(record)
            }
        } catch let error as ExchangeError {
            throw error
        } catch {
            throw ExchangeError(file: path, line: 0, expected: "a readable Hamster database (\(error))")
        }
    }
}
