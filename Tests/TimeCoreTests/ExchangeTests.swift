import Foundation
import Glibc
import XCTest
@testable import TimeCore

/// Counts the changes that reached the gate (each would be one verified snapshot).
private final class CountingRecorder: ChangeRecorder {
    var recorded = 0
    func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws {
        recorded += 1
        try meanwhile()
    }
    func changeCommitted() {}
    func changeAbandoned() {}
    func tidyUp() {}
}

/// The readers and writers of other tools' formats, on fixtures the real programs wrote
/// (scripts/test-exchange.sh --keep), in Europe/Berlin.
final class ExchangeTests: TrackerTestCase {
    private var recorder: CountingRecorder!

    override func setUpWithError() throws {
        try super.setUpWithError()
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        clock.time = utc(2026, 12, 1, 12)
        recorder = CountingRecorder()
        tracker.recorder = recorder
    }

    override func tearDownWithError() throws {
        unsetenv("TZ")
        tzset()
        try super.tearDownWithError()
    }

    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/exchange/\(name)").path
    }

    /// The Timewarrior fixtures laid out as Timewarrior's data folder.
    private func timewarriorFolder() throws -> String {
        let folder = directory + "/timewarrior/data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for month in ["2025-03", "2025-10", "2025-11"] {
            try FileManager.default.copyItem(atPath: fixture("timewarrior-\(month).data"), toPath: "\(folder)/\(month).data")
        }
        return folder
    }

    private func hamsterDatabase() throws -> String {
        let path = directory + "/hamster.db"
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try database.execute(String(contentsOfFile: fixture("hamster.sql"), encoding: .utf8))
        return path
    }

    private func session(_ project: String, at start: Int64) throws -> WorkSession? {
        let id = try tracker.resolveProject(project).id
        return try allSessions().first { $0.projectID == id && $0.start == start }
    }

    // MARK: Local wall-clock times

    func testWallClockTimesFollowTheContractAcrossDST() {
        // 2026-10-25: 02:00-03:00 happens twice; the first occurrence counts.
        XCTAssertEqual(WallClock.time(year: 2026, month: 10, day: 25, hour: 1, minute: 30, second: 0), utc(2026, 10, 24, 23, 30))
        XCTAssertEqual(WallClock.time(year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0), utc(2026, 10, 25, 0, 30))
        XCTAssertEqual(WallClock.time(year: 2026, month: 10, day: 25, hour: 2, minute: 40, second: 0), utc(2026, 10, 25, 0, 40))
        XCTAssertEqual(WallClock.time(year: 2026, month: 10, day: 25, hour: 3, minute: 40, second: 0), utc(2026, 10, 25, 2, 40))
        // 2026-03-29: 02:00-03:00 does not exist; 02:30 reads as 03:30.
        XCTAssertEqual(WallClock.time(year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0), utc(2026, 3, 29, 1, 30))
        XCTAssertEqual(WallClock.iso(utc(2026, 3, 29, 1, 30)), "2026-03-29T03:30:00+02:00")
        XCTAssertEqual(WallClock.iso(utc(2026, 11, 28, 13)), "2026-11-28T14:00:00+01:00")
        XCTAssertEqual(WallClock.parse("2026-11-28T14:00:00+01:00"), utc(2026, 11, 28, 13))
        XCTAssertEqual(WallClock.parse("2026-11-28T13:00:00Z"), utc(2026, 11, 28, 13))
        XCTAssertNil(WallClock.parse("2026-02-30 10:00:00"))
    }

    // MARK: Readers on the peers' own files

    func testTimewarriorFilesAsTimewarriorWroteThem() throws {
        var data = ExchangeData()
        try TimewarriorReader.read(try String(contentsOfFile: fixture("timewarrior-2025-11.data"), encoding: .utf8),
                                   file: "2025-11.data", into: &data)
        XCTAssertEqual(data.records.count, 4)
        XCTAssertEqual(data.records[0], ExchangeRecord(key: "timewarrior:\(utc(2025, 11, 24, 21))", project: "",
                                                       start: utc(2025, 11, 24, 21), end: utc(2025, 11, 25, 0, 30),
                                                       tags: ["Writing", "tag with space"]))
        XCTAssertEqual(data.records[1].tags, ["Client, \"Big\"", "Reviews"])
        XCTAssertEqual(data.records[1].note, "fixed \"bug\", commas, and a newline")
        XCTAssertEqual(data.records[2].tags, [])
        XCTAssertTrue(data.projectFromTags)
    }

    func testTimewarriorGrammarErrorsNameFileAndLine() {
        for (line, expected) in [("inc 20251124T210000Z - 2025", "end time"), ("exc 20251124T210000Z", "\"inc\""),
                                 ("inc 20251124T210000Z # \"open", "closing quote"), ("inc 20251124T210000Z junk", "\"#\"")] {
            var data = ExchangeData()
            XCTAssertThrowsError(try TimewarriorReader.read("inc 20251124T200000Z # ok\n\(line)\n", file: "x.data", into: &data)) { error in
                let error = error as! ExchangeError
                XCTAssertEqual(error.line, 2)
                XCTAssertEqual(error.file, "x.data")
                XCTAssertTrue(error.expected.contains(expected), error.expected)
            }
        }
    }

    func testWatsonFramesAsWatsonWroteThem() throws {
        var data = ExchangeData()
        try WatsonReader.read(frames: Array(try Data(contentsOf: URL(fileURLWithPath: fixture("watson-frames.json")))),
                              file: "frames", into: &data)
        XCTAssertEqual(data.records.count, 4)
        XCTAssertEqual(data.records[0].project, "Writing")
        XCTAssertEqual(data.records[0].start, utc(2025, 11, 24, 21))
        XCTAssertEqual(data.records[0].tags, ["tag with space", "draft"])
        XCTAssertEqual(data.records[0].noteWithTags, "#tag_with_space #draft")
        XCTAssertTrue(data.records[0].key.hasPrefix("watson:") && data.records[0].key.count == 7 + 32)
        XCTAssertEqual(data.records[1].project, "Client, \"Big\"")
    }

    func testHamsterDatabaseAsHamsterWroteIt() throws {
        var data = ExchangeData()
        try HamsterReader.read(database: try hamsterDatabase(), keyPrefix: "hamster:test:", into: &data)
        XCTAssertEqual(data.records.count, 7)
        let writing = data.records.first { $0.key == "hamster:test:1" }!
        XCTAssertEqual(writing.project, "Writing")
        XCTAssertEqual(writing.category, "Work")
        XCTAssertEqual(writing.note, "Draft, \"chapter 2\"\nsecond line")
        XCTAssertEqual(writing.tags, ["draft", "tag with space"])
        XCTAssertEqual(writing.start, utc(2025, 11, 24, 21))
        let nights = data.records.filter { $0.project == "Night" }
        XCTAssertEqual(nights.map { $0.end! - $0.start }, [3600, 7200], "01:30-02:30 is one real hour, 02:40-03:40 two")
        XCTAssertEqual(nights[0].category, "", "Hamster's category -1 is Unsorted: no category")
        XCTAssertEqual(data.records.first { $0.project == "Spring" }?.start, utc(2025, 3, 30, 1, 30), "02:30 reads as 03:30")
        XCTAssertNil(data.records.first { $0.project == "Running" }?.end)
        XCTAssertEqual(data.warnings.count, 1)
    }

    func testDefaultLocationsAndAnIntervalInTheWrongMonthFile() throws {
        let home = directory + "/home", xdgData = directory + "/xdg-data", xdgConfig = directory + "/xdg-config"
        // Timewarrior 1.5's XDG location, used when neither $TIMEWARRIORDB nor ~/.timewarrior exists.
        let data = xdgData + "/timewarrior/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        // A month file holds the interval of another month (files are named by local month).
        try Data("inc 20251031T230000Z - 20251101T010000Z # Late\n".utf8).write(to: URL(fileURLWithPath: data + "/2025-11.data"))
        try Data("not a month file\n".utf8).write(to: URL(fileURLWithPath: data + "/tags.data"))
        try FileManager.default.createDirectory(atPath: xdgConfig + "/watson", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("watson-frames.json"), toPath: xdgConfig + "/watson/frames")
        try FileManager.default.createDirectory(atPath: xdgData + "/hamster", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: try hamsterDatabase(), toPath: xdgData + "/hamster/hamster.db")
        let environment: [String: String] = ["HOME": home, "XDG_DATA_HOME": xdgData, "XDG_CONFIG_HOME": xdgConfig]
        let timewarrior = try ImportFormat.timewarrior.read(path: "") { environment[$0] }
        XCTAssertEqual(timewarrior.records.map(\.start), [utc(2025, 10, 31, 23)])
        XCTAssertEqual(try ImportFormat.watson.read(path: "") { environment[$0] }.records.count, 4)
        XCTAssertEqual(try ImportFormat.hamster.read(path: "") { environment[$0] }.records.count, 7)
        // $TIMEWARRIORDB comes first; when it names nothing, the error lists where it looked.
        XCTAssertThrowsError(try ImportFormat.timewarrior.read(path: "") { ["HOME": home, "TIMEWARRIORDB": home + "/tw"][$0] }) { error in
            XCTAssertTrue("\(error)".contains(home + "/tw/data"), "\(error)")
        }
    }

    /// Mangled copies of real files: each is read or refused with a named error, never a crash,
    /// and a refused import changes nothing.
    func testMangledFilesAreReadOrRefusedNeverACrash() throws {
        var generator = SystemRandomNumberGenerator()
        let timewarrior = try String(contentsOfFile: fixture("timewarrior-2025-11.data"), encoding: .utf8)
        let watson = try String(contentsOfFile: fixture("watson-frames.json"), encoding: .utf8)
        try sampleData()
        let csv = try tracker.export(format: "csv", from: 0, to: 0, project: 0)
        let json = try tracker.export(format: "json", from: 0, to: 0, project: 0)
        let before = try DataState(store: tracker.store)
        let alphabet = Array("0123456789-:TZ#\"\\ ,\n\r{}[]eé+".unicodeScalars)
        for round in 0..<400 {
            let (format, original): (ImportFormat, String) = [(.timewarrior, timewarrior), (.watson, watson), (.csv, csv), (.json, json)][round % 4]
            var scalars = Array(original.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !scalars.isEmpty {
                let index = Int.random(in: 0..<scalars.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: scalars.remove(at: index)
                case 1: scalars[index] = alphabet.randomElement(using: &generator)!
                default: scalars.insert(alphabet.randomElement(using: &generator)!, at: index)
                }
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars)
            let file = directory + "/mangled-\(round)" + (format == .timewarrior ? "/2025-11.data" : ".\(format.rawValue)")
            try? FileManager.default.createDirectory(atPath: Files.directoryName(file), withIntermediateDirectories: true)
            try Data(String(text).utf8).write(to: URL(fileURLWithPath: file))
            do {
                _ = try tracker.importData(format: format.rawValue, path: file, dryRun: true)
            } catch let error as TrackerError {
                XCTAssertEqual(error.name, "InvalidArgument", error.message)
            }
        }
        XCTAssertEqual(try DataState(store: tracker.store), before, "dry runs change nothing")
    }

    // MARK: Import through the tracker

    func testTimewarriorImportIsOneChangeAndAReimportAddsNothing() throws {
        let folder = try timewarriorFolder()
        let dry = try tracker.importData(format: "timewarrior", path: folder, dryRun: true)
        XCTAssertEqual(dry.sessions, 6)
        XCTAssertEqual(dry.projects, ["Spring", "Night", "Writing", "Client, \"Big\"", "Timewarrior"])
        XCTAssertEqual(recorder.recorded, 0)
        XCTAssertEqual(try allSessions().count, 0)

        let summary = try tracker.importData(format: "timewarrior", path: folder, dryRun: false)
        XCTAssertEqual(summary.sessions, 6)
        XCTAssertEqual(summary.description, "Imported 6 sessions from Timewarrior")
        XCTAssertEqual(summary.from, utc(2025, 3, 30, 0))
        XCTAssertEqual(summary.to, utc(2025, 11, 27, 14, 30))
        XCTAssertEqual(recorder.recorded, 1, "one import, one change, one snapshot")
        let draft = try XCTUnwrap(session("Writing", at: utc(2025, 11, 27, 13)))
        XCTAssertEqual(draft.note, "#draft")
        XCTAssertEqual(draft.segments, [Segment(start: utc(2025, 11, 27, 13), end: utc(2025, 11, 27, 14, 30))])
        XCTAssertEqual(try session("Client, \"Big\"", at: utc(2025, 11, 25, 8))?.note, "fixed \"bug\", commas, and a newline #Reviews")

        let again = try tracker.importData(format: "timewarrior", path: folder, dryRun: false)
        XCTAssertEqual(again.sessions, 0)
        XCTAssertEqual(again.skipped, 6)
        XCTAssertEqual(recorder.recorded, 1, "nothing new: no change at all")
        XCTAssertEqual(try reopen().store.allSessions().count, 6, "the keys are stored")
    }

    /// A hostile megabyte of "path" is named in a short message, and nothing changes.
    func testAnOverlongPathIsRefusedWithAShortMessage() throws {
        let path = String(repeating: "x", count: 1 << 20)
        for format in ["json", "csv", "watson", "timewarrior", "hamster"] {
            do {
                _ = try tracker.importData(format: format, path: path, dryRun: false)
                XCTFail("\(format): a path that cannot exist was accepted")
            } catch let error as TrackerError {
                XCTAssertEqual(error.name, "InvalidArgument", format)
                XCTAssertLessThan(error.message.utf8.count, 1_000, format)
                XCTAssertTrue(error.message.contains("bytes): "), "\(format): \(error.message.prefix(400))")
            }
        }
        XCTAssertEqual(recorder.recorded, 0)
    }

    /// The whole import is one step of the undo history, named by its summary; undone, the
    /// sessions and the projects it created are gone, and a re-import brings them back.
    func testAnImportIsOneUndoableStep() throws {
        let folder = try timewarriorFolder()
        let summary = try tracker.importData(format: "timewarrior", path: folder, dryRun: false)
        XCTAssertEqual(try tracker.canUndo(), summary.description)
        XCTAssertEqual(try tracker.undo(), "Imported 6 sessions from Timewarrior")
        XCTAssertEqual(try allSessions().count, 0)
        XCTAssertEqual(tracker.projects(), [])
        XCTAssertEqual(try tracker.importData(format: "timewarrior", path: folder, dryRun: false).sessions, 6)
    }

    func testTimewarriorProjectIsTheTagThatNamesAProject() throws {
        try tracker.createProject(name: "reviews", color: "", category: "")
        var data = ExchangeData()
        try TimewarriorReader.read("""
            inc 20251125T080000Z - 20251125T090000Z # "Client, \\"Big\\"" Reviews
            inc 20251125T100000Z - 20251125T110000Z # solo
            inc 20251125T120000Z - 20251125T130000Z # beta alpha
            inc 20251125T140000Z - 20251125T150000Z # alpha zeta
            """, file: "t", into: &data)
        let summary = try tracker.importData(data, from: .timewarrior, dryRun: false)
        XCTAssertEqual(summary.projects, ["solo", "alpha"])
        XCTAssertEqual(summary.warnings.count, 1, "one entry needed the first tag in byte order")
        XCTAssertEqual(try session("Reviews", at: utc(2025, 11, 25, 8))?.note, "#Client,_\"Big\"")
        XCTAssertEqual(try session("solo", at: utc(2025, 11, 25, 10))?.note, "")
        XCTAssertEqual(try session("alpha", at: utc(2025, 11, 25, 12))?.note, "#beta", "no tag named a project: the first in byte order")
        XCTAssertEqual(try session("alpha", at: utc(2025, 11, 25, 14))?.note, "#zeta", "created earlier in the import: it names the project")
    }

    func testWatsonImportKeepsFrameIdsAsKeys() throws {
        let folder = directory + "/watson"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("watson-frames.json"), toPath: folder + "/frames")
        try Data("{\"project\": \"Running\", \"start\": 1764500000, \"tags\": []}".utf8).write(to: URL(fileURLWithPath: folder + "/state"))
        let summary = try tracker.importData(format: "watson", path: folder, dryRun: false)
        XCTAssertEqual(summary.sessions, 4)
        XCTAssertTrue(summary.warnings.contains { $0.contains("running frame (Running") })
        XCTAssertEqual(try tracker.importData(format: "watson", path: folder + "/frames", dryRun: false).skipped, 4)
    }

    func testHamsterImportSkipsAnEditedFactEqualToASession() throws {
        let path = try hamsterDatabase()
        let summary = try tracker.importData(format: "hamster", path: path, dryRun: false)
        XCTAssertEqual(summary.sessions, 6)
        XCTAssertEqual(summary.categories, ["Work"])
        XCTAssertEqual(tracker.categoryName(of: try tracker.resolveProject("Writing")), "Work")
        XCTAssertEqual(tracker.categoryName(of: try tracker.resolveProject("Night")), "")
        // Hamster gives an edited fact a new id: same project, start and end is the same session.
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("INSERT INTO facts SELECT 100, activity_id, start_time, end_time, description FROM facts WHERE id = 2; DELETE FROM facts WHERE id = 2;")
        let again = try tracker.importData(format: "hamster", path: directory, dryRun: false)
        XCTAssertEqual(again.sessions, 0)
        XCTAssertEqual(again.skipped, 6)
    }

    func testABadFileIsRefusedWholeAndNothingChanges() throws {
        let folder = try timewarriorFolder()
        _ = try tracker.importData(format: "timewarrior", path: folder, dryRun: false)
        let before = try DataState(store: tracker.store)
        let bad = folder + "/2025-12.data"
        try Data("inc 20251201T080000Z - 20251201T090000Z # fine\ninc 20251201T100000Z - oops\n".utf8).write(to: URL(fileURLWithPath: bad))
        let message = assertTrackerError("InvalidArgument", try tracker.importData(format: "timewarrior", path: folder, dryRun: false))
        XCTAssertTrue(message.contains("2025-12.data, line 2"), message)
        XCTAssertEqual(try DataState(store: tracker.store), before)
        assertTrackerError("InvalidArgument", try tracker.importData(format: "watson", path: directory + "/nowhere", dryRun: false))
        assertTrackerError("InvalidArgument", try tracker.importData(format: "toggl", path: "", dryRun: false))
        XCTAssertEqual(recorder.recorded, 1)
    }

    // MARK: Exports

    private func sampleData() throws {
        try tracker.addCategory("Work, \"paid\"")
        let writing = try tracker.createProject(name: "Écriture; notes", color: "#3366cc", category: "Work, \"paid\"")
        let reading = try tracker.createProject(name: "Reading", color: "", category: "")
        try tracker.addSession(project: writing, start: utc(2026, 11, 28, 13), duration: "1h", note: "line one, \"two\"\nline 3 \\ end")
        try tracker.addSession(project: reading, start: utc(2026, 11, 27, 22), duration: "3h", note: String(repeating: "é", count: 60))
        // A session with a pause: two segments.
        clock.time = utc(2026, 11, 29, 9)
        try tracker.startProject("Reading")
        clock.time = utc(2026, 11, 29, 10); try tracker.pause()
        clock.time = utc(2026, 11, 29, 11); try tracker.resume()
        clock.time = utc(2026, 11, 29, 11, 30); try tracker.stop()
        try tracker.startProject("Reading") // open: never exported
        clock.time = utc(2026, 12, 1, 12)
    }

    func testCSVIsRFC4180WithLocalTimesAndReadsBack() throws {
        try sampleData()
        let csv = try tracker.export(format: "csv", from: 0, to: 0, project: 0)
        let lines = csv.split(separator: "\r\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[0], "id,project,category,start,end,duration_seconds,duration,note")
        XCTAssertEqual(lines[1], "2,Reading,,2026-11-27T23:00:00+01:00,2026-11-28T02:00:00+01:00,10800,3:00:00,\(String(repeating: "é", count: 60))")
        XCTAssertEqual(lines[2], "1,Écriture; notes,\"Work, \"\"paid\"\"\",2026-11-28T14:00:00+01:00,2026-11-28T15:00:00+01:00,3600,1:00:00,\"line one, \"\"two\"\"\nline 3 \\ end\"")
        XCTAssertEqual(lines[3], "3,Reading,,2026-11-29T10:00:00+01:00,2026-11-29T12:30:00+01:00,5400,1:30:00,")
        XCTAssertEqual(lines.count, 5, "a newline inside a note stays a newline (LF) inside quotes")
        XCTAssertFalse(csv.hasPrefix("\u{FEFF}"))

        var data = ExchangeData()
        try CSVExchange.read(csv, file: "export.csv", into: &data)
        XCTAssertEqual(data.records.count, 3)
        XCTAssertEqual(data.records[1].note, "line one, \"two\"\nline 3 \\ end")
        XCTAssertEqual(data.records[2].activeSeconds, 5400, "active time differs from the span: kept as a total")
        XCTAssertEqual(data.records[0].activeSeconds, nil)
    }

    func testTogglHasOneRowPerSegment() throws {
        try sampleData()
        let rows = try tracker.export(format: "toggl", from: 0, to: 0, project: 0).split(separator: "\r\n")
        XCTAssertEqual(rows[0], "Email,Client,Project,Description,Start date,Start time,Duration,Tags")
        XCTAssertEqual(rows.count, 1 + 4)
        XCTAssertEqual(rows[3], ",,Reading,,2026-11-29,10:00:00,1:00:00,")
        XCTAssertEqual(rows[4], ",,Reading,,2026-11-29,12:00:00,0:30:00,")
    }

    func testJSONReadsBackIntoAnEmptyStoreRecordForRecord() throws {
        try sampleData()
        try tracker.updateProject(id: 2, changes: ProjectChanges(archived: true))
        try tracker.updateProject(id: 1, changes: ProjectChanges(rate: "85.50", weeklyTarget: 72000))
        let json = try tracker.export(format: "json", from: 0, to: 0, project: 0)
        let file = directory + "/export.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let original = try DataState(store: tracker.store)

        let other = try Tracker(store: try Store(path: directory + "/other.sqlite", create: true), clock: clock)
        let summary = try other.importData(format: "json", path: file, dryRun: false)
        XCTAssertEqual(summary.sessions, 3)
        let copy = try DataState(store: other.store)
        XCTAssertEqual(copy.categories.map(\.name), original.categories.map(\.name))
        XCTAssertEqual(copy.projects.map { [$0.name, $0.color, "\($0.archived)", "\($0.categoryID ?? 0)"] },
                       original.projects.map { [$0.name, $0.color, "\($0.archived)", "\($0.categoryID ?? 0)"] })
        XCTAssertEqual(copy.projects.map(\.rateCents), original.projects.map(\.rateCents), "rates travel with the export")
        XCTAssertEqual(copy.projects.map(\.weeklyTarget), original.projects.map(\.weeklyTarget))
        XCTAssertEqual(copy.projects.first?.rateCents, 8550)
        let strip = { (s: WorkSession) -> [Int64] in [s.projectID, s.start, s.end ?? -1, s.unrecordedSeconds] + s.segments.flatMap { [$0.start, $0.end ?? -1] } }
        XCTAssertEqual(copy.sessions.map(strip), original.sessions.filter { !$0.isOpen }.sorted { $0.start < $1.start }.map(strip))
        XCTAssertEqual(copy.sessions.map(\.note), original.sessions.filter { !$0.isOpen }.sorted { $0.start < $1.start }.map(\.note))
        XCTAssertEqual(try other.importData(format: "json", path: file, dryRun: false).skipped, 3)
        XCTAssertEqual(try tracker.importData(format: "json", path: file, dryRun: false).sessions, 0, "the store it came from has them all")
    }

    func testICalendarEscapesFoldsAndKeepsUIDs() throws {
        try sampleData()
        let ical = try tracker.export(format: "ical", from: utc(2026, 11, 28), to: utc(2026, 11, 29), project: 0)
        XCTAssertTrue(ical.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"))
        XCTAssertTrue(ical.hasSuffix("END:VCALENDAR\r\n"))
        let lines = ical.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertTrue(lines.allSatisfy { $0.utf8.count <= 75 && !$0.contains("\n") })
        XCTAssertEqual(lines.filter { $0 == "BEGIN:VEVENT" }.count, 2)
        let unfolded = ical.replacingOccurrences(of: "\r\n ", with: "")
        XCTAssertTrue(unfolded.contains("\r\nSUMMARY:Écriture\\; notes\r\n"))
        XCTAssertTrue(unfolded.contains("\r\nCATEGORIES:Work\\, \"paid\"\r\n"))
        XCTAssertTrue(unfolded.contains("\r\nDESCRIPTION:line one\\, \"two\"\\nline 3 \\\\ end\r\n"))
        XCTAssertTrue(unfolded.contains("\r\nDTSTART:20261128T130000Z\r\nDTEND:20261128T140000Z\r\n"))
        XCTAssertTrue(unfolded.contains("\r\nDESCRIPTION:\(String(repeating: "é", count: 60))\r\n"), "folded only between characters")
        let uids = lines.filter { $0.hasPrefix("UID:session-1-") }
        XCTAssertEqual(uids.count, 1)
        XCTAssertTrue(try tracker.export(format: "ical", from: 0, to: 0, project: 1).contains(uids[0]), "stable across exports")
        XCTAssertEqual(ICalendar.fold(String(repeating: "a", count: 80)), String(repeating: "a", count: 75) + "\r\n aaaaa\r\n")
    }

    // MARK: The store's version 5

    func testTheDataIDIsKeptInSnapshotsAndComesBackWithARestore() throws {
        let folder = directory + "/home"
        let home = try DataHome(directory: folder, clock: clock)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        try home.tracker.addSession(project: 1, start: utc(2026, 11, 28, 13), duration: "1h", note: "")
        let uid = try home.tracker.export(format: "ical", from: 0, to: 0, project: 0)
            .split(separator: "\r\n").first { $0.hasPrefix("UID:") }!
        let dataID = try home.tracker.store.dataID()
        let snapshot = try XCTUnwrap(SnapshotKeeper.scan(folder + "/snapshots").last)
        let state = try SnapshotKeeper.state(at: snapshot.path)
        XCTAssertEqual(state.dataID, dataID)
        let fresh = try Store(path: directory + "/restored.sqlite", create: true)
        try SnapshotKeeper.restore(state, into: fresh, stateHash: nil)
        let restored = try Tracker(store: fresh, clock: clock)
        XCTAssertTrue(try restored.export(format: "ical", from: 0, to: 0, project: 0).contains(uid + "\r\n"), "same UIDs after a restore")
    }

    func testAVersion4StoreGainsImportKeysAndADataID() throws {
        let path = directory + "/v4.sqlite"
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try Schema.migrate(database, upTo: 4)
        try database.execute("""
            INSERT INTO projects(id, name, name_key, color) VALUES(1, 'Writing', 'writing', '#3366cc');
            INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note) VALUES(7, 1, 1000, 4600, 0, 'kept');
            INSERT INTO segments(session_id, start, end) VALUES(7, 1000, 4600);
            """)
        XCTAssertEqual(try database.integerPragma("user_version"), 4)
        let store = try Store(path: path, create: false)
        XCTAssertEqual(try store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try store.allSessions(), [WorkSession(id: 7, projectID: 1, start: 1000, end: 4600, unrecordedSeconds: 0,
                                                             note: "kept", segments: [Segment(start: 1000, end: 4600)])])
        XCTAssertEqual(try store.dataID().count, 16)
        var imported = try store.allSessions()[0]
        imported.importKey = "watson:abc"
        XCTAssertEqual(try SnapshotFormat.decodeSession(SnapshotFormat.sessionJSON(imported)), imported)
        XCTAssertNil(SnapshotFormat.sessionJSON(try store.allSessions()[0])["importKey"], "v4 sessions stay as they were")
    }
}
