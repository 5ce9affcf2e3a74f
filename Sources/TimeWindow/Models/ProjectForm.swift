import DBusCore
import TimeClient

/// The project dialog's fields, turned into the agent's calls in order (a new category first),
/// or into a message saying what to fix (and then no call is made).
public struct ProjectForm {
    public var name: String
    public var color: String
    public var category: String
    public var archived: Bool
    public var rate: String
    public var weeklyTarget: String

    public init(name: String, color: String, category: String, archived: Bool, rate: String = "", weeklyTarget: String = "") {
        (self.name, self.color, self.category, self.archived, self.rate, self.weeklyTarget) = (name, color, category, archived, rate, weeklyTarget)
    }

    public init(_ project: Project) {
        self.init(name: project.name, color: project.color, category: project.category, archived: project.archived,
                  rate: project.rate, weeklyTarget: project.weeklyTarget > 0 ? Shown.hoursMinutes(project.weeklyTarget) : "")
    }

    /// The calls that save the form: `CreateProject` (`existing` nil) or `UpdateProject` with
    /// what changed, preceded by `AddCategory` when the category is new.
    public func requests(existing: Project?, categories: [String]) throws -> [AgentRequest] {
        let name = self.name.trimmed
        guard !name.isEmpty else { throw SessionForm.Invalid(message: "Name: a project needs a name.") }
        let color = self.color.trimmed.lowercased()
        guard color.isEmpty || Self.isHexColor(color) else {
            throw SessionForm.Invalid(message: "Color: '\(color)' is not a color. Type it as #rrggbb, e.g. #3366cc, or leave it empty.")
        }
        let category = self.category.trimmed
        let rate = self.rate.trimmed
        guard rate.isEmpty || Self.isRate(rate) else {
            throw SessionForm.Invalid(message: "Rate: '\(rate)' is not an hourly rate. Type a number with at most 2 decimals, e.g. 85 or 85.50.")
        }
        let targetText = weeklyTarget.trimmed
        var target: Int64 = 0
        if !targetText.isEmpty {
            guard let seconds = DurationInput.seconds(targetText) else {
                throw SessionForm.Invalid(message: "Weekly target: '\(targetText)' is not a duration. Type it as 20h, 7:30 or 90m.")
            }
            target = seconds
        }
        var calls: [AgentRequest] = []
        let known = categories.contains { $0.lowercased() == category.lowercased() }
        if !category.isEmpty && !known { calls.append(AgentRequest("AddCategory", [.string(category)])) }
        let canonicalCategory = categories.first { $0.lowercased() == category.lowercased() } ?? category
        guard let existing else {
            calls.append(AgentRequest("CreateProject", [.string(name), .string(color), .string(canonicalCategory)]))
            return calls
        }
        var changes: [String: DBusValue] = [:]
        if name != existing.name { changes["name"] = .string(name) }
        if !color.isEmpty, color != existing.color.lowercased() { changes["color"] = .string(color) }
        if canonicalCategory != existing.category { changes["category"] = .string(canonicalCategory) }
        if archived != existing.archived { changes["archived"] = .bool(archived) }
        if rate != existing.rate { changes["rate"] = .string(rate) }
        if target != existing.weeklyTarget { changes["weekly_target"] = .uint64(UInt64(target)) }
        if !changes.isEmpty { calls.append(AgentRequest("UpdateProject", [.uint64(existing.id), .vardict(changes)])) }
        return calls
    }

    /// After `CreateProject` answered with the new id: the rate, target and archived state, which it does not take.
    public func settingsAfterCreate(id: UInt64) -> AgentRequest? {
        var changes: [String: DBusValue] = [:]
        if !rate.trimmed.isEmpty { changes["rate"] = .string(rate.trimmed) }
        if let seconds = DurationInput.seconds(weeklyTarget.trimmed), seconds > 0 { changes["weekly_target"] = .uint64(UInt64(seconds)) }
        if archived { changes["archived"] = .bool(true) }
        return changes.isEmpty ? nil : AgentRequest("UpdateProject", [.uint64(id), .vardict(changes)])
    }

    static func isHexColor(_ text: String) -> Bool {
        text.count == 7 && text.first == "#" && text.dropFirst().allSatisfy { $0.isHexDigit }
    }

    static func isRate(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 9,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) }) else { return false }
        return parts.count == 1 || (1...2).contains(parts[1].count)
    }
}
