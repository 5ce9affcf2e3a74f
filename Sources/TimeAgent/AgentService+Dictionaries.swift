import DBusKit
import TimeCore

/// The contract's dictionaries (a{sv}) of the status, a project and a session.
extension AgentService {
    func statusDictionary() throws -> DBusValue {
        let status = try tracker.status()
        let now = tracker.clock.now()
        let totals = try tracker.todayAndWeekSeconds()
        return .vardict([
            "state": .string(status.state.rawValue),
            "project": .string(status.project?.name ?? ""),
            "project_id": .uint64(UInt64(max(0, status.project?.id ?? 0))),
            "color": .string(status.project?.color ?? ""),
            "category": .string(status.categoryName),
            "session": .uint64(UInt64(max(0, status.session?.id ?? 0))),
            "elapsed": .uint64(UInt64(max(0, status.session?.activeSeconds(at: now) ?? 0))),
            "today": .uint64(UInt64(max(0, totals.today))),
            "week": .uint64(UInt64(max(0, totals.week))),
            "week_target": .uint64(UInt64(max(0, tracker.planSettings.weeklyTarget))),
            "note": .string(status.session?.note ?? ""),
        ])
    }

    func projectDictionary(_ project: Project) -> DBusValue {
        .vardict([
            "id": .uint64(UInt64(project.id)), "name": .string(project.name), "color": .string(project.color),
            "category": .string(tracker.categoryName(of: project)), "archived": .bool(project.archived),
            "rate": .string(project.rateCents.map(Money.rateText) ?? ""), "weekly_target": .uint64(UInt64(max(0, project.weeklyTarget))),
        ])
    }

    func sessionDictionary(_ session: WorkSession, overlaps: [SessionID]) -> DBusValue {
        let now = tracker.clock.now()
        return .vardict([
            "id": .uint64(UInt64(session.id)), "project_id": .uint64(UInt64(session.projectID)),
            "project": .string(tracker.project(id: session.projectID)?.name ?? ""),
            "start": .int64(session.start), "end": .int64(session.end ?? 0),
            "active": .uint64(UInt64(max(0, session.activeSeconds(at: now)))),
            "state": .string(session.state.rawValue), "note": .string(session.note), "device": .string(deviceName(of: session)),
            "overlaps": .array(elementSignature: "t", overlaps.map { .uint64(UInt64($0)) }),
            "segments": .array(elementSignature: "(xx)", session.segments.map {
                .structure([.int64($0.start), .int64($0.end ?? 0)])
            }),
        ])
    }
}
