import XCTest
@testable import TimeCore

/// xorshift64*: small, seeded, the same sequence on every run.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func int64(_ range: ClosedRange<Int64>) -> Int64 {
        range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

/// What the contract says the tracker should hold, written as plainly as possible.
struct Model {
    var projects: [(id: ProjectID, name: String)] = []
    var sessions: [SessionID: WorkSession] = [:]
    var openID: SessionID?

    var open: WorkSession? { openID.flatMap { sessions[$0] } }

    func project(named reference: String) -> ProjectID? {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#") { return Int64(trimmed.dropFirst()).flatMap { id in projects.first { $0.id == id }?.id } }
        return projects.first { $0.name.lowercased() == trimmed.lowercased() }?.id
    }

    /// The project of the session started last (ties: the one entered last).
    var lastProject: ProjectID? {
        sessions.values.max { ($0.start, $0.id) < ($1.start, $1.id) }?.projectID
    }

    var state: TimerState {
        guard let open else { return .idle }
        return open.segments.last?.end == nil && !open.segments.isEmpty ? .running : .paused
    }

    mutating func complete(at now: Int64) {
        guard let id = openID else { return }
        if let last = sessions[id]!.segments.indices.last, sessions[id]!.segments[last].end == nil {
            sessions[id]!.segments[last].end = now
        }
        sessions[id]!.end = now
        openID = nil
    }

    mutating func pause(at now: Int64) {
        guard let id = openID, state == .running else { return }
        sessions[id]!.segments[sessions[id]!.segments.count - 1].end = now
    }

    mutating func resume(at now: Int64) {
        guard let id = openID, state == .paused else { return }
        sessions[id]!.segments.append(Segment(start: now, end: nil))
    }

    /// EditSession on the open session (contract "Fixing what was forgotten"): no duration (that
    /// is StopAt's); a start within 5 s ahead and 24 h back, not past its first stretch's end, and
    /// (when earlier) not over a completed session (Overlap); it moves the first stretch's start.
    /// Returns the error expected, or nil after applying the edit.
    mutating func editOpen(_ session: WorkSession, _ changes: SessionChanges, now: Int64, notes: [(String, String)]) -> String? {
        if changes.duration != nil { return "InvalidArgument" }
        if let p = changes.projectID, !projects.contains(where: { $0.id == p }) { return "NoSuchProject" }
        var edited = session
        if var start = changes.start {
            if start > now + 5 || start < now - 86_400 { return "InvalidArgument" }
            start = min(start, now)
            if let end = session.segments[0].end, start > end { return "InvalidArgument" }
            if start < session.start, sessions.values.contains(where: { other in
                guard let end = other.end else { return false }
                return end > start && end > other.start
            }) { return "Overlap" }
            edited.start = start
            edited.segments[0].start = start
        }
        if let p = changes.projectID { edited.projectID = p }
        if let note = changes.note { edited.note = notes.first { $0.0 == note }!.1 }
        sessions[session.id] = edited
        return nil
    }
}

final class RandomizedTests: TrackerTestCase {
    let notes: [(String, String)] = [
        ("fix bug", "fix bug"), ("  spaced  ", "spaced"), ("a\r\nb", "a\nb"), ("", ""), ("   ", ""),
        ("tab\there", "tab here"), ("ctl\u{7}x", "ctlx"), ("Écriture ✓", "Écriture ✓"), ("\r\n", ""),
    ]
    let durations: [(String, Int64?)] = [
        ("1:30", 5400), ("90m", 5400), ("45s", 45), ("1h 30m", 5400), ("2h", 7200), ("45", 2700), ("1.5h", 5400),
        ("1s", 1), ("10m", 600), ("0:00:07", 7), ("0", nil), ("8d", nil), ("1M", nil), ("abc", nil), ("", nil), ("169h", nil),
    ]

    var model = Model()
    var random = SeededRandom(seed: 0x5EED_2026)
    var operations: [String: Int] = [:]

    /// Runs one operation on the tracker and checks that it fails exactly when the model says, with the same error.
    @discardableResult
    func check<T>(_ what: String, expect error: String?, _ body: () throws -> T, line: UInt = #line) -> T? {
        operations[what + (error.map { " → " + $0 } ?? ""), default: 0] += 1
        do {
            let result = try body()
            if let error { XCTFail("\(what): expected \(error), it succeeded", line: line) }
            return result
        } catch let thrown as TrackerError {
            XCTAssertEqual(thrown.name, error ?? "no error", "\(what): \(thrown.message)", line: line)
        } catch {
            XCTFail("\(what): \(error)", line: line)
        }
        return nil
    }

    func randomSessionID() -> SessionID {
        if model.sessions.isEmpty || random.chance(8) { return random.int64(900...999) }
        if let open = model.openID, random.chance(10) { return open }
        return random.pick(Array(model.sessions.keys).sorted())
    }

    func randomProjectReference() -> (String, ProjectID?) {
        if random.chance(5) { return ("Nope", nil) }
        if random.chance(5) { return ("#77", nil) }
        let project = random.pick(model.projects)
        if random.chance(25) { return ("#\(project.id)", project.id) }
        let name = random.chance(50) ? project.name.uppercased() : project.name
        return (random.chance(30) ? "  \(name) " : name, project.id)
    }

    func step() throws {
        let now = clock.time
        switch random.int(0...99) {
        case 0..<18:
            let (reference, expected) = randomProjectReference()
            guard let projectID = expected else {
                check("start", expect: "NoSuchProject") { try tracker.startProject(reference) }
                return
            }
            if let open = model.open, open.projectID == projectID {
                model.resume(at: now)
                let id = check("start same", expect: nil) { try tracker.startProject(reference) }
                XCTAssertEqual(id, open.id)
            } else {
                model.complete(at: now)
                guard let id = check("start", expect: nil, { try tracker.startProject(reference) }) else { return }
                XCTAssertNil(model.sessions[id], "a new session gets a new id")
                model.sessions[id] = WorkSession(id: id, projectID: projectID, start: now, end: nil, unrecordedSeconds: 0,
                                                 note: "", segments: [Segment(start: now, end: nil)])
                model.openID = id
            }
        case 18..<30:
            let error = model.open == nil ? "NoCurrentSession" : nil
            model.pause(at: now)
            check("pause", expect: error) { try tracker.pause() }
        case 30..<42:
            let error = model.open == nil ? "NoCurrentSession" : nil
            model.resume(at: now)
            check("resume", expect: error) { try tracker.resume() }
        case 42..<52:
            var expectedState: TimerState
            var error: String?
            switch model.state {
            case .running: model.pause(at: now); expectedState = .paused
            case .paused: model.resume(at: now); expectedState = .running
            default:
                expectedState = .running
                if model.lastProject == nil { error = "NoSuchProject" }
            }
            let state = check("toggle", expect: error) { try tracker.toggle() }
            if error == nil && model.open == nil, let last = model.lastProject, let id = try tracker.status().session?.id {
                XCTAssertNil(model.sessions[id])
                model.sessions[id] = WorkSession(id: id, projectID: last, start: now, end: nil, unrecordedSeconds: 0,
                                                 note: "", segments: [Segment(start: now, end: nil)])
                model.openID = id
            }
            if error == nil { XCTAssertEqual(state, expectedState) }
        case 52..<60:
            let expected = model.openID
            model.complete(at: now)
            let id = check("stop", expect: expected == nil ? "NoCurrentSession" : nil) { try tracker.stop() }
            if let expected { XCTAssertEqual(id, expected) }
        case 60..<67:
            let (raw, normalized) = random.pick(notes)
            var error: String?
            if let id = model.openID {
                if normalized.isEmpty { error = "InvalidArgument" } else {
                    let note = model.sessions[id]!.note
                    model.sessions[id]!.note = note.isEmpty ? normalized : note + "\n" + normalized
                }
            } else { error = "NoCurrentSession" }
            check("addNote", expect: error) { try tracker.addNote(raw) }
        case 67..<74:
            let id = randomSessionID()
            let (raw, normalized) = random.pick(notes)
            let error = model.sessions[id] == nil ? "NoSuchSession" : nil
            if error == nil { model.sessions[id]!.note = normalized }
            check("setNote", expect: error) { try tracker.setNote(session: id, note: raw) }
        case 74..<82:
            let projectID = random.chance(5) ? 99 : random.pick(model.projects).id
            let (duration, seconds) = random.pick(durations)
            let start = now - random.int64(0...200_000)
            let (raw, normalized) = random.pick(notes)
            var error: String?
            if model.projects.first(where: { $0.id == projectID }) == nil { error = "NoSuchProject" }
            else if seconds == nil || start + seconds! > now { error = "InvalidArgument" }
            guard let id = check("addSession", expect: error, {
                try tracker.addSession(project: projectID, start: start, duration: duration, note: raw)
            }) else { return }
            XCTAssertNil(model.sessions[id], "a new session gets a new id")
            model.sessions[id] = WorkSession(id: id, projectID: projectID, start: start, end: start + seconds!, unrecordedSeconds: 0,
                                             note: normalized, segments: [Segment(start: start, end: start + seconds!)])
        case 82..<90:
            let id = randomSessionID()
            var changes = SessionChanges()
            if random.chance(30) { changes.projectID = random.chance(10) ? 99 : random.pick(model.projects).id }
            if random.chance(40) { changes.start = now - random.int64(0...300_000) }
            if random.chance(30) { changes.duration = random.pick(durations).0 }
            if random.chance(30) { changes.note = random.pick(notes).0 }
            var error: String?
            if let session = model.sessions[id] {
                if session.end == nil { error = model.editOpen(session, changes, now: now, notes: notes) }
                else if let p = changes.projectID, !model.projects.contains(where: { $0.id == p }) { error = "NoSuchProject" }
                else {
                    var edited = session
                    if let p = changes.projectID { edited.projectID = p }
                    if let start = changes.start {
                        let shift = start - edited.start
                        edited.start = start
                        edited.end = edited.end! + shift
                        edited.segments = edited.segments.map { Segment(start: $0.start + shift, end: $0.end! + shift) }
                    }
                    if let duration = changes.duration {
                        if let seconds = durations.first(where: { $0.0 == duration })!.1 {
                            edited.end = edited.start + seconds
                            edited.segments = [Segment(start: edited.start, end: edited.start + seconds)]
                        } else { error = "InvalidArgument" }
                    }
                    if let note = changes.note { edited.note = notes.first { $0.0 == note }!.1 }
                    if (changes.start != nil || changes.duration != nil) && edited.end! > now { error = "InvalidArgument" }
                    if error == nil { model.sessions[id] = edited }
                }
            } else { error = "NoSuchSession" }
            check("editSession", expect: error) { try tracker.editSession(id: id, changes: changes) }
        case 90..<94:
            let id = randomSessionID()
            var error: String?
            if let session = model.sessions[id] { if session.end == nil { error = "InvalidArgument" } } else { error = "NoSuchSession" }
            if error == nil { model.sessions[id] = nil }
            check("deleteSession", expect: error) { try tracker.deleteSession(id: id) }
        default:
            clock.advance(random.pick([0, 0, 1, random.int64(0...59), random.int64(0...3600), random.int64(0...20_000)]))
        }
    }

    func compareStatus(_ context: String, line: UInt = #line) throws {
        let status = try tracker.status()
        XCTAssertEqual(status.state, model.state, context, line: line)
        XCTAssertEqual(status.session, model.open, context, line: line)
        XCTAssertEqual(status.project?.id, model.open?.projectID, context, line: line)
        XCTAssertEqual(status.lastProjectName, model.lastProject.flatMap { id in model.projects.first { $0.id == id }?.name } ?? "",
                       context, line: line)
        if let open = model.open {
            let settled = open.segments.compactMap { segment in segment.end.map { $0 - segment.start } }.reduce(0, +)
            XCTAssertEqual(status.settledSeconds, settled, context, line: line)
            XCTAssertEqual(status.runningSince, model.state == .running ? open.segments.last!.start : 0, context, line: line)
        }
    }

    func compareEverything(_ context: String) throws {
        let stored = try allSessions()
        XCTAssertEqual(stored.count, model.sessions.count, context)
        let expected = model.sessions.values.sorted { $0.id < $1.id }
        for (got, want) in zip(stored, expected) {
            XCTAssertEqual(got, want, context)
            if got != want { break }
        }
        try compareStatus(context)
        let orphans = try tracker.store.database.queryFirst(
            "SELECT count(*) FROM segments WHERE session_id NOT IN (SELECT id FROM sessions)") { $0.int(0) }
        XCTAssertEqual(orphans, 0, context)
        let segmentRows = model.sessions.values.reduce(0) { $0 + $1.segments.count }
        XCTAssertEqual(try segmentRowCount(), Int64(segmentRows), context)
    }

    /// The week of `day` in UTC, computed from the model's segments.
    func modelWeek(containing time: Int64) -> [Int64] {
        let dayNumber = time / 86400
        let monday = dayNumber - ((dayNumber + 3) % 7)
        var days = [Int64](repeating: 0, count: 7)
        for session in model.sessions.values {
            for segment in session.segments {
                let end = segment.end ?? clock.time
                for day in 0..<7 {
                    let low = max(segment.start, (monday + Int64(day)) * 86400)
                    let high = min(end, (monday + Int64(day) + 1) * 86400)
                    if high > low { days[day] += high - low }
                }
            }
        }
        return days
    }

    func testRandomOperationsMatchTheModel() throws {
        for name in ["Alpha", "beta", "Gamma", "écriture"] {
            let id = try tracker.createProject(name: name, color: "", category: "")
            model.projects.append((id, name))
        }
        let total = 4000
        for index in 1...total {
            try step()
            try compareStatus("after operation \(index)")
            if index % 500 == 0 {
                try compareEverything("before reopening at \(index)")
                try reopen()
                try compareEverything("after reopening at \(index)")
            }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        try reopen()
        try compareEverything("at the end")

        // The report of the last weeks, in UTC, agrees with the model's segments.
        try withTimeZone("UTC") {
            for weeksBack in 0..<4 {
                let time = clock.time - Int64(weeksBack) * 7 * 86400
                let report = try tracker.weeklyReport(week: "").days
                let json = try JSON.parse(tracker.weeklyReport(week: weeksBack == 0 ? "" : dateString(time), format: "json"))
                XCTAssertEqual(json["days"]?.arrayValue?.map { $0.intValue ?? -1 }, modelWeek(containing: time), "\(weeksBack) weeks back")
                if weeksBack == 0 { XCTAssertEqual(report, modelWeek(containing: time)) }
            }
        }
        // Every kind of operation and every expected error was exercised.
        for kind in ["start", "start same", "pause", "resume", "toggle", "stop", "addNote", "setNote", "addSession",
                     "editSession", "deleteSession", "start → NoSuchProject", "pause → NoCurrentSession",
                     "resume → NoCurrentSession", "stop → NoCurrentSession", "addNote → NoCurrentSession",
                     "addNote → InvalidArgument", "setNote → NoSuchSession", "addSession → NoSuchProject",
                     "addSession → InvalidArgument", "editSession → NoSuchSession", "editSession → InvalidArgument",
                     "editSession → NoSuchProject", "deleteSession → NoSuchSession", "deleteSession → InvalidArgument"] {
            XCTAssertGreaterThan(operations[kind] ?? 0, 0, "never ran: \(kind)")
        }
        XCTAssertGreaterThan(model.sessions.count, 100)
    }

    func dateString(_ time: Int64) -> String {
        var seconds = time_t(time)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }
}
