import TimeClient
import DBusCore
import TimeJSON

/// `timectl sync`: across devices through a folder that Syncthing (or any folder sync) replicates.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "sync",
        abstract: "Keep one history on several computers through a shared folder (Syncthing).",
        discussion: """
            Each computer writes only its own files into the folder; every computer merges all of them.
            Share one folder with Syncthing (or Nextcloud, Dropbox...) and run 'timectl sync enable DIR'
            on each computer with that folder. See 'timectl sync status' for the devices seen.
            """,
        subcommands: [SyncEnable.self, SyncStatus.self, SyncDisable.self])

    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws { try SyncStatus(json: false).run(context) }
}

struct SyncEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "enable",
        abstract: "Start syncing through DIR; this computer's whole history is published once.",
        arguments: [Positional(name: "dir", help: "The shared folder (created when its parent exists).")],
        options: [.value("--name", valueName: "name", help: "This computer's name as other devices show it (default: its host name).")])

    var folder: String, name: String

    init(_ arguments: ParsedArguments) throws {
        folder = absolutePath(arguments.required("dir"))
        if folder.isEmpty { throw arguments.usageError("the folder is empty") }
        name = arguments.value("--name") ?? ""
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        _ = try agent.call("EnableSync", [.string(folder), .string(name)])
        output("Syncing through \(folder).")
    }
}

struct SyncDisable: OneCallCommand {
    static let call = OneCall("DisableSync", name: "disable", abstract: "Stop syncing; nothing already merged is removed.") { _ in "Sync is off." }
}

struct SyncStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "Show the sync folder, its state and every device seen.", options: [jsonFlag])

    var json: Bool
    init(json: Bool) { self.json = json }
    init(_ arguments: ParsedArguments) throws { json = arguments.flag("--json") }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let folder = try agent.property("SyncFolder").stringValue ?? ""
        let state = try agent.property("SyncState").stringValue ?? ""
        let message = try agent.property("SyncMessage").stringValue ?? ""
        let devices: [(String, String, Int64)] = (try agent.property("Devices").arrayValue ?? []).compactMap {
            guard case .structure(let fields) = $0, fields.count == 3 else { return nil }
            return (fields[0].stringValue ?? "", fields[1].stringValue ?? "", fields[2].int64Value ?? 0)
        }
        if json {
            output(JSON.sortedObject([
                "folder": .string(folder), "state": .string(state), "message": .string(message),
                "devices": .array(devices.map { .sortedObject(["id": .string($0.0), "name": .string($0.1), "newest": .int($0.2)]) }),
            ]).text)
            return
        }
        if state == "off" {
            output("Sync is off. Start it with 'timectl sync enable DIR'.")
            return
        }
        output("Sync: \(state) · \(folder)")
        if !message.isEmpty { output(message) }
        for device in devices {
            output("  \(device.1) (\(device.0.prefix(8)))  newest change \(device.2 > 0 ? LocalTime.dateTimeString(device.2) : "none")")
        }
    }
}
