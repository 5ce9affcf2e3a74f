import Glibc
import TimeCore

// The write path the crash-state tests record (Tests/AgentTests/CrashStateTests.swift):
//   time-bench --crash-workload FOLDER ACKS CHANGES
// opens the data folder and makes CHANGES changes of every kind through the change gate. After
// each one has returned (been acknowledged) it appends "A <n> <fingerprint of the state>" to ACKS,
// which is also the crash recorder's log, so each acknowledgment sits between the file operations.

/// The ACKS file, open for appending: one line "A <n> <fingerprint>" per acknowledged change.
final class Acknowledgments {
    private let descriptor: Int32
    private(set) var count = 0

    init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            printError("cannot open \(path)")
            return nil
        }
    }

    deinit { close(descriptor) }

    func add(_ fingerprint: String) {
        let line = Array("A \(count) \(fingerprint)\n".utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        count += 1
    }
}

func runCrashWorkload(folder: String, acks: String, changes: Int) -> Int32 {
    guard let log = Acknowledgments(path: acks) else { return 1 }
    // Acknowledged as the agent acknowledges: the answer first, then the files it writes after
    // the answer (the kept state file, the chunk files: SnapshotKeeper.writeAfterAnswer).
    func acknowledge(_ tracker: Tracker) throws {
        log.add(try DataState(store: tracker.store).fingerprint)
        tracker.tidyUp()
    }
    do {
        let home = try DataHome(directory: folder)
        home.keeper?.writeAfterAnswer = true
        let tracker = home.tracker
        // Focus phases of no length: each ends as soon as it starts, so a round records a
        // completed phase with its session without waiting for one.
        tracker.focusMinuteSeconds = 0
        try acknowledge(tracker)
        let now = Int64(time(nil))
        let year: Int64 = 365 * 86400
        try tracker.addCategory("Work")
        try acknowledge(tracker)
        _ = try tracker.createProject(name: "Writing", color: "#3366cc", category: "Work")
        try acknowledge(tracker)
        // Years of history in one change: its chunks pass the slot's carried limit, so a batch
        // flush makes them durable and the edits years back below carry their index chunks as
        // patches against them (IndexPatch). The source file lies outside the recorded folder.
        let source = Files.directoryName(acks) + "/timewarrior"
        try writeTimewarrior(count: 140, endingBefore: now - 2 * year, into: source, spacing: 4 * 86400, projects: 1)
        _ = try tracker.importData(format: "timewarrior", path: source, dryRun: false)
        try acknowledge(tracker)
        _ = try tracker.createProject(name: "Email", color: "", category: "")
        try acknowledge(tracker)
        for step in correctionSteps(tracker, project: "Writing", other: "Email", now: now) where log.count <= changes {
            try step()
            try acknowledge(tracker)
        }
        var round = 0
        var failedInARow = 0
        while log.count <= changes && failedInARow < 40 {
            // One round touches every kind of change: the timer, sessions years back, a rename, a category.
            let r = round
            let steps: [() throws -> Void] = [
                { try tracker.addCategory("Leisure \(r)") },
                { _ = try tracker.createProject(name: "Reading \(r)", color: "", category: "Leisure \(r)") },
                { _ = try tracker.startProject(r == 0 ? "Writing" : "Reading \(r)") },
                { _ = try tracker.startFocus("") },
                { try tracker.advanceFocus() },
                { try tracker.skipPhase() },
                { try tracker.setFocusMinutes(UInt32(20 + r % 10)) },
                { try tracker.addSession(project: 1, start: now - 3 * year - Int64(r) * 86400, duration: "30m", note: "years back") },
                { try tracker.pause() },
                { try tracker.resume() },
                { try tracker.setNote(session: 1, note: "edited years later \(r)") },
                { try tracker.editSession(id: 1, changes: SessionChanges(duration: "\(40 + r)m")) },
                { _ = try tracker.stop() },
                { try tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing \(r)")) },
                { try tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing")) },
                { try tracker.addSession(project: 1, start: now - 40 * 86400, duration: "1h", note: "") },
                { try tracker.deleteSession(id: try tracker.sessions(project: 1, from: now - 41 * 86400, to: now - 39 * 86400).first?.id ?? 0) },
                { try tracker.deleteCategory("Leisure \(r)") },
            ]
            for step in steps where log.count <= changes {
                do { try step() } catch {
                    // A step that does not apply now is refused and changes nothing; a storage failure ends the run.
                    if case TrackerError.storageFailure = error { throw error }
                    failedInARow += 1
                    continue
                }
                failedInARow = 0
                try acknowledge(tracker)
            }
            round += 1
        }
        return 0
    } catch {
        printError("crash workload: \(error)")
        return 1
    }
}

// The write path with sync on (CrashStateTests, the sync folder):
//   time-bench --crash-workload-sync FOLDER ACKS CHANGES
// FOLDER/data is the data folder and FOLDER/sync the sync folder, both recorded; the device id is
// `crashDevice`. Each change is made as the agent makes it (the change, then the publish safety
// net; the log flushed every few changes, as the agent's idle timer does). Each acknowledgment is
// "A <n> <fingerprint>;records=<this device's records stamped so far>": the recovered store must
// be that state or a later acknowledged one, and the recovered log must hold those records, line
// for line as they were written.

let crashDevice = String(repeating: "c", count: 32)

func runCrashWorkloadWithSync(folder: String, acks: String, changes: Int) -> Int32 {
    guard let log = Acknowledgments(path: acks) else { return 1 }
    do {
        let home = try DataHome(directory: folder + "/data")
        home.keeper?.writeAfterAnswer = true
        let tracker = home.tracker
        let now = Int64(time(nil))
        // A history made before sync, and another device's in the folder: enabling publishes the
        // one and merges the other in batches of 3 (docs/sync.md, "Enabling, disabling"), each
        // batch acknowledged as the agent's idle source would leave it.
        try tracker.createProject(name: "History", color: "", category: "")
        for day in 0..<7 { _ = try tracker.addSession(project: 1, start: now - 86400 * Int64(20 + day), duration: "1h", note: "before sync \(day)") }
        let other = try SyncLogWriter(layout: SyncLayout(folder: folder + "/sync"), device: String(repeating: "d", count: 32))
        let project = String(repeating: "e", count: 32)
        try other.append([SyncDraft(kind: .project, id: project, operation: .create, fields: [
            "name": .string("Elsewhere"), "color": .string("#3465a4"), "category": .string(""), "archived": .bool(false)])]
            + (0..<8).map { index in
                let start = now - 86400 * Int64(30 + index)
                return SyncDraft(kind: .session, id: String(repeating: "f", count: 31) + String(index), operation: .create, fields: [
                    "project": .string(project), "start": .int(start), "end": .int(start + 1800), "note": .string("elsewhere \(index)"),
                    "segments": .array([.array([.int(start), .int(start + 1800)])]), "unrecorded": .int(0), "origin": .string(other.device)])
            }, wallMilliseconds: now * 1000)
        let engine = try SyncEngine(tracker: tracker, folder: folder + "/sync", device: crashDevice, deviceName: "crash",
                                    wallMilliseconds: Int64(time(nil)) * 1000, deferringWork: true, batchLimit: 3)
        // Answered first, then the files the agent writes after the answer (`tidyUp`).
        func acknowledge() throws {
            log.add("\(try DataState(store: tracker.store).fingerprint);records=\(engine.lastSequence)")
            tracker.tidyUp()
        }
        try acknowledge()
        while try engine.step(wallMilliseconds: Int64(time(nil)) * 1000) { try acknowledge() }
        try acknowledge()
        var round = 0
        var made = 0  // the local changes (the batches above are acknowledged too, but are not those)
        _ = try tracker.createProject(name: "Corrected", color: "", category: "")
        try acknowledge()
        for (index, step) in correctionSteps(tracker, project: "History", other: "Corrected", now: now).enumerated() where made < changes {
            try step()
            made += 1
            try engine.publish(wallMilliseconds: Int64(time(nil)) * 1000)
            try acknowledge()
            if index % 4 == 3 { try engine.flushLog() }
        }
        while made < changes {
            let r = round
            let steps: [() throws -> Void] = [
                { try tracker.addCategory("Area \(r)") },
                { _ = try tracker.createProject(name: "Project \(r)", color: "", category: "Area \(r)") },
                { _ = try tracker.startProject("Project \(r)") },
                { try tracker.pause() },
                { try tracker.resume() },
                { try tracker.addNote("note \(r)") },
                { _ = try tracker.stop() },
                { try tracker.addSession(project: 1, start: now - 86400 * Int64(2 + r), duration: "45m", note: "by hand \(r)") },
                { try tracker.updateProject(id: 1, changes: ProjectChanges(name: "Project 0 (\(r))")) },
            ]
            for (index, step) in steps.enumerated() where made < changes {
                try step()
                made += 1
                try engine.publish(wallMilliseconds: Int64(time(nil)) * 1000)
                try acknowledge()
                if index % 4 == 3 { try engine.flushLog() }
            }
            round += 1
        }
        try engine.stop()
        return 0
    } catch {
        printError("crash workload with sync: \(error)")
        return 1
    }
}
