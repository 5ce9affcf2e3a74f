import TimeCore

/// A made-up but realistic history: about 8 sessions a day over 30 projects in 6 categories,
/// some running across midnight, some paused once, notes of about 40 characters.
enum History {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let notes = [
        "Drafted the introduction and fixed typos",
        "Call with the client about the next steps",
        "Reviewed pull requests and left comments",
        "Planning for the sprint, estimates updated",
        "Read two papers on scheduling; took notes",
    ]

    /// Writes projects, categories and `count` completed sessions ending before `now` into `tracker`.
    static func generate(into tracker: Tracker, sessions count: Int, now: Int64) throws {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        for category in ["Work", "Study", "Home", "Clients", "Writing", "Admin"] { try tracker.addCategory(category) }
        let categories = tracker.categories().map(\.name)
        for index in 0..<30 {
            try tracker.createProject(name: "Project \(index + 1)", color: "", category: index % 5 == 4 ? "" : categories[index % categories.count])
        }
        let projects = tracker.projects().map(\.id)
        let days = (count + 7) / 8
        var sessions: [WorkSession] = []
        sessions.reserveCapacity(count)
        let firstDay = now - Int64(days + 1) * 86400
        for index in 0..<count {
            sessions.append(session(day: firstDay + Int64(index / 8) * 86400, slot: Int64(index % 8), projects: projects, random: &random))
        }
        try tracker.importSessions(sessions)
    }

    /// Gives each of `days` (their UTC starts) that holds no session eight, as a generated day
    /// has, in one change.
    static func fill(days: [Int64], into tracker: Tracker) throws {
        var random = Random(state: 0x2545_F491_4F6C_DD1D)
        let projects = tracker.projects().map(\.id)
        var sessions: [WorkSession] = []
        for day in days where try tracker.sessions(project: 0, from: day, to: day + 86400).isEmpty {
            for slot in 0..<Int64(8) { sessions.append(session(day: day, slot: slot, projects: projects, random: &random)) }
        }
        if !sessions.isEmpty { try tracker.importSessions(sessions) }
    }

    /// The session in one of a day's eight slots from 08:00 UTC; the last one of some days runs
    /// across midnight.
    private static func session(day: Int64, slot: Int64, projects: [ProjectID], random: inout Random) -> WorkSession {
        var start = day + 8 * 3600 + slot * 5400 + Int64(random.below(900))
        var length = Int64(900 + random.below(3600))
        if slot == 7 && random.below(10) == 0 {
            start = day + 22 * 3600 + 1800
            length = 3 * 3600
        }
        var segments = [Segment(start: start, end: start + length)]
        var end = start + length
        if random.below(4) == 0 {
            // Paused once for a few minutes in the middle.
            let pauseAt = start + length / 2, pause = Int64(120 + random.below(600))
            segments = [Segment(start: start, end: pauseAt), Segment(start: pauseAt + pause, end: end + pause)]
            end += pause
        }
        return WorkSession(id: 0, projectID: projects[random.below(projects.count)], start: start, end: end,
                           unrecordedSeconds: 0, note: random.below(3) == 0 ? "" : notes[random.below(notes.count)],
                           segments: segments)
    }
}
