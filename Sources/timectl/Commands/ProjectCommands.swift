import TimeClient
import DBusCore
import TimeJSON

let jsonFlag = Option.flag("--json", help: "Print JSON instead of a table.")
/// The project that edit, archive and unarchive change.
let existingProject = Positional(name: "project", help: "The project's name, #ID or ID.", variadic: true)

struct Projects: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "projects",
        abstract: "List projects, or add, edit and archive them.",
        discussion: "Archived projects are listed only with --all.",
        options: [
            jsonFlag,
            .flag("--names", help: "Print only the names, one per line (for shell completion)."),
            .flag("--all", help: "Include archived projects."),
        ],
        subcommands: [AddProject.self, EditProject.self, SetProjectPlan.self, ArchiveProject.self, UnarchiveProject.self])

    var json: Bool, names: Bool, all: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("--json")
        names = arguments.flag("--names")
        all = arguments.flag("--all")
        if json && names { throw arguments.usageError("--json and --names exclude each other") }
    }

    func run(_ context: Context) throws {
        let projects = try context.agent().listProjects().filter { all || !$0.archived }
        if names {
            for project in projects { output(project.name) }
        } else if json {
            output(JSON.array(projects.map { JSON(.vardict($0.raw)) }).text)
        } else if projects.isEmpty {
            output(all ? "No projects yet: add one with 'timectl projects add NAME'."
                       : "No active projects (see 'timectl projects --all', or add one with 'timectl projects add NAME').")
        } else {
            // Rates and targets only when some project has one.
            let planned = projects.contains { ($0.raw["rate"]?.stringValue ?? "") != "" || ($0.raw["weekly_target"]?.integer ?? 0) > 0 }
            var table = Table(headers: ["ID", "PROJECT", "CATEGORY", "COLOR"] + (planned ? ["RATE", "TARGET"] : []) + (all ? ["ARCHIVED"] : []))
            table.rightAligned = planned ? [0, 4, 5] : [0]
            for p in projects {
                let target = p.raw["weekly_target"]?.integer ?? 0
                let plan = planned ? [Cell(p.raw["rate"]?.stringValue ?? ""), Cell(target > 0 ? Format.hoursMinutes(target) : "")] : []
                table.rows.append([Cell(String(p.id)), Cell(p.name, color: p.color), Cell(p.category),
                                   Cell(p.color, color: p.color)] + plan + (all ? [Cell(p.archived ? "yes" : "")] : []))
            }
            fputsOut(table.render(color: context.color))
        }
    }
}

/// Checks a color argument: "#rrggbb".
func checkColor(_ text: String, _ arguments: ParsedArguments) throws -> String {
    let value = text.trimmed
    guard Format.ansi(value) != nil else {
        throw arguments.usageError("a color is written #rrggbb (e.g. #3366cc), not '\(text)'")
    }
    return value.lowercased()
}

struct AddProject: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Create a project.",
        arguments: [Positional(name: "name", help: "The project's name (unique, case-insensitively).", variadic: true)],
        options: [.color("Its color (picked from a palette if omitted)."), .category("Its category (created when missing)."), noCreateFlag])

    var new: NewProject
    init(_ arguments: ParsedArguments) throws { new = try NewProject(arguments, named: "name") }

    func run(_ context: Context) throws {
        let id = try context.agent().createProject(new.name, color: new.color, category: new.category, createCategory: new.create)
        output("Created project \(new.name.trimmed) (id \(id)).")
    }
}

struct EditProject: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "edit",
        abstract: "Rename, recolor, recategorize, archive or unarchive a project.",
        arguments: [existingProject],
        options: [
            .value("--name", valueName: "name", help: "A new name."),
            .value("--color", valueName: "#rrggbb", help: "A new color."),
            .value("--category", valueName: "category", help: "A new category ('' for none; created when missing)."),
            noCreateFlag,
            .flag("--archive", help: "Archive it (hidden from lists, its sessions are kept)."),
            .flag("--unarchive", help: "Bring it back from the archive."),
        ])

    var project: String
    var changes: [String: DBusValue] = [:]
    var create: Bool

    init(_ arguments: ParsedArguments) throws {
        project = arguments.required("project")
        create = !arguments.flag("--no-create")
        if let name = arguments.value("--name") {
            if name.trimmed.isEmpty { throw arguments.usageError("the new name is empty") }
            changes["name"] = .string(name)
        }
        if let color = arguments.value("--color") { changes["color"] = .string(try checkColor(color, arguments)) }
        if let category = arguments.value("--category") { changes["category"] = .string(category) }
        switch (arguments.flag("--archive"), arguments.flag("--unarchive")) {
        case (true, true): throw arguments.usageError("--archive and --unarchive exclude each other")
        case (true, false): changes["archived"] = .bool(true)
        case (false, true): changes["archived"] = .bool(false)
        default: break
        }
        if changes.isEmpty {
            throw arguments.usageError("nothing to change: give --name, --color, --category, --archive or --unarchive")
        }
    }

    func run(_ context: Context) throws {
        let category = changes["category"]?.stringValue ?? ""
        let agent = try context.agent()
        let target = try agent.creatingCategory(category, create: create) { try updateProject(project, changes, context) }
        output("Updated project \(changes["name"]?.stringValue ?? target.name).")
    }
}

/// Finds `project` (a name, #ID or ID) and applies `changes` to it; returns the project as it was.
private func updateProject(_ project: String, _ changes: [String: DBusValue], _ context: Context) throws -> Project {
    let agent = try context.agent()
    let target = try agent.resolveProject(project)
    try agent.call("UpdateProject", [.uint64(target.id), .vardict(changes)])
    return target
}

/// `archive` and `unarchive` are one command that sets the archived flag one way or the other.
protocol ArchiveFlagCommand: ParsableCommand {
    /// What the command sets the flag to.
    static var archived: Bool { get }
    var project: String { get }
    init(project: String)
}

extension ArchiveFlagCommand {
    static func projectCommand(name: String, abstract: String) -> CommandConfiguration {
        CommandConfiguration(name: name, abstract: abstract, arguments: [existingProject])
    }

    init(_ arguments: ParsedArguments) throws { self.init(project: arguments.required("project")) }

    func run(_ context: Context) throws {
        let target = try updateProject(project, ["archived": .bool(Self.archived)], context)
        output("\(Self.archived ? "Archived" : "Unarchived") project \(target.name).")
    }
}

struct ArchiveProject: ArchiveFlagCommand {
    static let configuration = projectCommand(name: "archive", abstract: "Archive a project (its sessions are kept).")
    static let archived = true
    var project: String
}

struct UnarchiveProject: ArchiveFlagCommand {
    static let configuration = projectCommand(name: "unarchive", abstract: "Bring a project back from the archive.")
    static let archived = false
    var project: String
}

struct Categories: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "categories",
        abstract: "List categories, or add and delete them.",
        options: [jsonFlag],
        subcommands: [AddCategory.self, DeleteCategory.self])

    var json: Bool
    init(_ arguments: ParsedArguments) throws { json = arguments.flag("--json") }

    func run(_ context: Context) throws {
        let names = (try context.agent().call("ListCategories").first?.arrayValue ?? []).compactMap(\.stringValue)
        if json {
            output(JSON.array(names.map { .string($0) }).text)
        } else {
            for name in names { output(name) }
        }
    }
}

struct AddCategory: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Create a category.",
        arguments: [Positional(name: "name", help: "The category's name.", variadic: true)])
    var name: String
    init(_ arguments: ParsedArguments) throws {
        name = arguments.required("name")
        if name.trimmed.isEmpty { throw arguments.usageError("the category name is empty") }
    }
    func run(_ context: Context) throws {
        try context.agent().call("AddCategory", [.string(name)])
        output("Created category \(name.trimmed).")
    }
}

struct DeleteCategory: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "delete", abstract: "Delete a category (its projects become uncategorized).",
        arguments: [Positional(name: "name", help: "The category's name.", variadic: true)])
    var name: String
    init(_ arguments: ParsedArguments) throws { name = arguments.required("name") }
    func run(_ context: Context) throws {
        try context.agent().call("DeleteCategory", [.string(name)])
        output("Deleted category \(name.trimmed).")
    }
}
