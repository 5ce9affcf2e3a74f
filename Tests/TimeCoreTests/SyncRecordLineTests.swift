import TimeJSON
import XCTest
@testable import TimeCore

/// A record's line is written straight into bytes (SyncRecord.lineBytes). Its checksum covers the
/// canonical JSON of the record, and other devices (and other implementations, docs/sync.md)
/// check it against that form: the bytes must be exactly the sorted body, serialized.
final class SyncRecordLineTests: XCTestCase {
    func testALineIsTheCanonicalBodyWithItsChecksumByteForByte() throws {
        var random = SeededRandom(seed: 20261201)
        for round in 0..<500 {
            var fields: [String: JSON] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                fields[randomKey(&random)] = randomValue(&random, depth: 0)
            }
            let record = SyncRecord(device: SyncRecord.newID(using: &random), sequence: Int64.random(in: 1...Int64.max, using: &random),
                                    hlc: HLC(time: Int64.random(in: Int64.min...Int64.max, using: &random), counter: Int64.random(in: 0...9, using: &random)),
                                    kind: SyncKind.allCases.randomElement(using: &random)!, id: SyncRecord.newID(using: &random),
                                    operation: [.create, .set, .delete].randomElement(using: &random)!, fields: fields)
            let canonical = JSON.sortedObject(record.body).serialized
            let expected = String(canonical.dropLast()) + ",\"sum\":\"" + SHA256.hex(canonical) + "\"}\n"
            XCTAssertEqual(String(decoding: record.lineBytes, as: UTF8.self), expected, "round \(round)")
            let decoded = try SyncRecord.decode(record.lineBytes.dropLast(), folderDevice: record.device)
            XCTAssertEqual(decoded, SyncRecord(device: record.device, sequence: record.sequence, hlc: record.hlc, kind: record.kind,
                                               id: record.id, operation: record.operation,
                                               fields: fields.mapValues { SyncRecord.canonical($0) }), "round \(round)")
            // Another writer's layout (keys in another order, spaces) is the same record: the sum covers the canonical form.
            guard case .object(let members) = try JSON.parse(Array(record.lineBytes.dropLast())) else { return XCTFail() }
            let other = Array(JSON.object(members.reversed()).serialized(.spaced).utf8)
            XCTAssertEqual(try SyncRecord.decode(other[...], folderDevice: record.device), decoded, "round \(round)")
            var damaged = other
            damaged[damaged.count / 2] = damaged[damaged.count / 2] == 0x20 ? 0x09 : 0x20
            // A byte changed outside the layout (inside a string or a number) no longer matches its sum.
            if let changed = try? JSON.parse(damaged), changed != (try JSON.parse(other)) {
                XCTAssertThrowsError(try SyncRecord.decode(damaged[...], folderDevice: record.device), "round \(round)")
            }
        }
    }

    /// A global id is 32 hex digits: each word's nibbles, lowest first (the ids a seed replays
    /// depend on it). The oracle: each word's hex text, padded and read backwards.
    func testAGlobalIDIsItsWordsNibblesLowestFirst() {
        var random = SeededRandom(seed: 20261206)
        func oracle(_ word: UInt64) -> String {
            let text = String(word, radix: 16)
            return String((String(repeating: "0", count: 16 - text.count) + text).reversed())
        }
        for word in [UInt64.min, .max, 0x0123_4567_89ab_cdef] + (0..<1000).map({ _ in random.next() }) {
            let other = random.next()
            XCTAssertEqual(SyncRecord.hexID(word, other), oracle(word) + oracle(other))
        }
        var replay = SeededRandom(seed: 7), again = SeededRandom(seed: 7)
        XCTAssertEqual(SyncRecord.newID(using: &replay), oracle(again.next()) + oracle(again.next()))
        let made = (0..<200).map { _ in SyncRecord.newID() }
        XCTAssertEqual(Set(made).count, made.count, "ids from the system's randomness repeat")
        for id in made { XCTAssertTrue(id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, id) }
    }

    func testJSONWrittenAsBytesIsTheSerializedText() {
        var random = SeededRandom(seed: 7)
        for round in 0..<2000 {
            let value = randomValue(&random, depth: 0)
            var bytes: [UInt8] = []
            value.write(to: &bytes)
            XCTAssertEqual(bytes, Array(value.serialized.utf8), "round \(round): \(value.serialized)")
        }
        for number in [Int64.min, Int64.min + 1, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_000_000_007, Int64.max - 1, Int64.max] {
            var bytes: [UInt8] = []
            JSON.writeDecimal(number, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(number))
        }
    }

    /// The parser reads back whatever the writers write, in either layout, and refuses what is
    /// not JSON (or not the whole numbers Time uses) with an error, never a wrong value.
    func testTheParserReadsBackWhatIsWrittenAndRefusesTheRest() throws {
        var random = SeededRandom(seed: 11)
        for round in 0..<2000 {
            let value = randomValue(&random, depth: 0)
            XCTAssertEqual(try JSON.parse(value.serialized), value, "round \(round)")
            XCTAssertEqual(try JSON.parse(value.serialized(.spaced)), value, "round \(round)")
        }
        let read: [(String, JSON)] = [
            ("-9223372036854775808", .int(.min)), ("9223372036854775807", .int(.max)), ("-0", .int(0)), ("007", .int(7)),
            (#""\u00e9\n\t\"\\\/""#, .string("é\n\t\"\\/")), (#""\ud83d\udd70""#, .string("🕰")), (" [ true , false , null ] ", .array([.bool(true), .bool(false), .null])),
            (#"{"a":1,"a":2}"#, .object([("a", .int(1)), ("a", .int(2))])), (#""日本""#, .string("日本")),
        ]
        for (text, expected) in read { XCTAssertEqual(try JSON.parse(text), expected, text) }
        let refused = ["", "-", "9223372036854775808", "-9223372036854775809", "1.5", "1e3", "nul", "tru", "[1,]", "{\"a\"}",
                       "\"open", "\"a\u{01}b\"", "\"\\x\"", "\"\\u12\"", "[1] 2", "{\"a\":1,}"]
        for text in refused { XCTAssertThrowsError(try JSON.parse(text), text) }
        XCTAssertThrowsError(try JSON.parse([0x22, 0xff, 0xfe, 0x22]), "invalid UTF-8")
        XCTAssertThrowsError(try JSON.parse([0x22, 0x5c, 0x6e, 0xff, 0x22]), "invalid UTF-8 after an escape")
    }

    private func randomKey(_ random: inout SeededRandom) -> String {
        ["name", "start", "end", "segments", "note", "Zebra", "zebra", "é", "a\"b", "", "origin", "\u{2028}"].randomElement(using: &random)!
    }

    private func randomText(_ random: inout SeededRandom) -> String {
        let pieces = ["plain", "", " ", "\"", "\\", "\n", "\t", "\r", "\u{01}", "\u{7f}", "é", "日本", "🕰", "\u{2028}", "\u{2029}", "–", "/"]
        return (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    private func randomValue(_ random: inout SeededRandom, depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random))
        case 3: return .string(randomText(&random))
        case 4: return .int(Int64.random(in: -20...20, using: &random))
        case 5, 6: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            // Keys out of order on purpose: the line must sort them.
            return .object((0..<Int.random(in: 0...4, using: &random)).map { _ in (randomKey(&random), randomValue(&random, depth: depth + 1)) })
        }
    }
}
