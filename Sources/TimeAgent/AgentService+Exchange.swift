import DBusKit
import TimeCore

/// `Import` and `Export` (the contract's "Import and export").
extension AgentService {
    var exchangeMethods: [Method] {
        [
            changing("Import", [Argument("format", "s"), Argument("path", "s"), Argument("dry_run", "b")], [Argument("result", "a{sv}")],
                     "Imports hamster, timewarrior, watson, csv or json (path \"\" = the tool's default location) as one change; with dry_run nothing changes. Returns sessions, skipped, projects, categories, from, to, warnings.") { args in
                let summary = try self.tracker.importData(format: args.string(0), path: args.string(1),
                                                          dryRun: args.values[2].boolValue ?? false)
                return [.vardict([
                    "sessions": .uint64(UInt64(summary.sessions)), "skipped": .uint64(UInt64(summary.skipped)),
                    "projects": .stringArray(summary.projects), "categories": .stringArray(summary.categories),
                    "from": .int64(summary.from), "to": .int64(summary.to), "warnings": .stringArray(summary.warnings),
                    "description": .string(summary.description),
                ])]
            },
            reading("Export", [Argument("format", "s"), Argument("from", "x"), Argument("to", "x"), Argument("project", "t")],
                    [Argument("data", "s")],
                    "The completed sessions overlapping [from, to) (0, 0 = all; project 0 = all) as csv, toggl, json or ical.") { args in
                guard let project = args.id(3) else {
                    throw TrackerError.noSuchProject("There is no project with id \(args.values[3].uint64Value ?? 0); list them with ListProjects (timectl projects).")
                }
                return [.string(try self.tracker.export(format: args.string(0), from: args.int64(1), to: args.int64(2), project: project))]
            },
        ]
    }
}
