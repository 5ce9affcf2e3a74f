import TimeClient
import DBusCore
import Glibc

// `timectl start NAME` and `projects add|edit --category C` create what is missing, as Watson,
// Timewarrior and Hamster do. The agent's StartProject never creates (a typo on a hotkey must not
// make a project): timectl asks first, and creates with CreateProject and AddCategory when the
// agent answers that the project or category does not exist. What it creates is said on stderr.

/// `--no-create`, shared by the commands that create what is missing.
let noCreateFlag = Option.flag("--no-create", help: "Refuse instead of creating what does not exist yet.")

extension Option {
    /// `--color #rrggbb` and `--category category`, as the commands that create a project say them.
    static func color(_ help: String) -> Option { .value("--color", valueName: "#rrggbb", help: help) }
    static func category(_ help: String) -> Option { .value("--category", valueName: "category", help: help) }
}

/// A project named on the command line that may be created now (`start`, `projects add`): its
/// name (the positional `named`), `--color`, `--category` and `--no-create`.
struct NewProject {
    var name: String, color: String, category: String, create: Bool

    init(_ arguments: ParsedArguments, named positional: String) throws {
        name = arguments.required(positional)
        if name.trimmed.isEmpty { throw arguments.usageError("the project name is empty") }
        color = try arguments.value("--color").map { try checkColor($0, arguments) } ?? ""
        category = arguments.value("--category") ?? ""
        create = !arguments.flag("--no-create")
    }
}

extension AgentClient {
    /// Runs `change`; when the agent answers NoSuchCategory and `create` is on, adds `category`
    /// (saying so on stderr) and runs `change` once more. If that still fails, the category just
    /// added is deleted again, so a refused command leaves nothing behind.
    func creatingCategory<T>(_ category: String, create: Bool, _ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch let error as RefusedError where error.name == "NoSuchCategory" && create && !category.trimmed.isEmpty {
            try call("AddCategory", [.string(category)])
            do {
                let result = try change()
                printNotice("Created category \(category.trimmed).")
                return result
            } catch {
                _ = try? call("DeleteCategory", [.string(category)])
                throw error
            }
        }
    }

    /// Creates a project (and its category when missing and `create` is on); returns its id.
    func createProject(_ name: String, color: String, category: String, createCategory: Bool) throws -> UInt64 {
        let reply = try creatingCategory(category, create: createCategory) {
            try call("CreateProject", [.string(name), .string(color), .string(category)])
        }
        return UInt64(reply.first?.integer ?? 0)
    }

    func createAndStart(_ project: String, color: String, category: String) throws -> UInt64 {
        _ = try createProject(project, color: color, category: category, createCategory: true)
        printNotice("Created project \(project.trimmed).")
        return UInt64(try call("StartProject", [.string(project)]).first?.integer ?? 0)
    }
}

extension Context {
    /// StartProject and the open session's project name after it (the `Project` property: the
    /// name as the agent spells it), in one round trip; when no project has that name and
    /// `create` is on, creates it first (not for "#ID", which names an id, not a name) and starts
    /// it then. Returns the session id and the name ("" when the agent gave none).
    func startProject(_ project: String, color: String, category: String,
                      create: Bool) throws -> (session: UInt64, name: String) {
        let replies = try quickCalls([.agent("StartProject", [.string(project)]), .property("Project")])
        do {
            let session = UInt64(try replies[0].reply().first?.integer ?? 0)
            return (session, try replies[1].reply().first?.variantValue?.stringValue ?? "")
        } catch let error as RefusedError where error.name == "NoSuchProject" && create && !project.trimmed.hasPrefix("#") {
            let agent = try agent()
            let session = try agent.createAndStart(project, color: color, category: category)
            return (session, try agent.property("Project").stringValue ?? "")
        }
    }
}

/// A line on stderr that is not an error: what timectl did besides what was asked.
func printNotice(_ text: String) {
    writeAll(STDERR_FILENO, text + "\n")
}
