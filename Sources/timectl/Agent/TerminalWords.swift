/// The agent's messages are written for every D-Bus caller and name the contract's methods
/// ("list them with ListProjects (timectl projects)"). A person at a terminal gets the timectl
/// command instead ("list them with 'timectl projects'"); the agent's wording is left as it is.
enum TerminalWords {
    /// Each D-Bus member of the contract that a message may name, and the timectl command that does
    /// the same. A new subcommand that wraps a method adds its line here.
    static let commands: [String: String] = [
        "StartProject": "timectl start PROJECT",
        "Pause": "timectl pause",
        "Resume": "timectl resume",
        "Toggle": "timectl toggle",
        "Stop": "timectl stop",
        "StartProjectAt": "timectl start PROJECT --at TIME",
        "PauseAt": "timectl pause --at TIME",
        "ResumeAt": "timectl resume --at TIME",
        "StopAt": "timectl stop --at TIME",
        "AddNote": "timectl note TEXT",
        "SetNote": "timectl note --session ID TEXT",
        "GetStatus": "timectl status",
        "WeeklyReport": "timectl report",
        "ShowWeeklyReport": "timectl report",
        "ListProjects": "timectl projects",
        "CreateProject": "timectl projects add NAME",
        "UpdateProject": "timectl projects edit PROJECT",
        "ListCategories": "timectl categories",
        "AddCategory": "timectl categories add NAME",
        "DeleteCategory": "timectl categories delete NAME",
        "ListSessions": "timectl sessions",
        "AddSession": "timectl add PROJECT",
        "EditSession": "timectl edit SESSION",
        "DeleteSession": "timectl delete SESSION",
        "ReminderMinutes": "timectl reminders MINUTES",
        "PendingAway": "timectl away",
        "ResolveAway": "timectl away keep|discard|stop ID",
        "Undo": "timectl undo",
        "Redo": "timectl redo",
        "History": "timectl history",
        "CanUndo": "timectl history",
        "Import": "timectl import FORMAT",
        "Export": "timectl export FORMAT",
        "WeeklyReportPNG": "timectl report --png FILE",
        "EnableSync": "timectl sync enable DIR",
        "DisableSync": "timectl sync disable",
        "SyncFolder": "timectl sync status",
        "SyncState": "timectl sync status",
        "SyncMessage": "timectl sync status",
        "Devices": "timectl sync status",
    ]

    /// `message` with every method name replaced by its timectl command.
    static func translate(_ message: String) -> String {
        var text = message
        // "AddCategory (timectl categories add NAME)" and "(Stop, or timectl stop)": the agent already
        // named the command; keep only that.
        for method in commands.keys {
            text = replacingParenthesized(text, method)
        }
        // Any other mention of a method with a compound name: ListProjects → 'timectl projects'.
        // One-word members (Stop, Pause) are English words too and are only replaced above.
        for (method, command) in commands where method.dropFirst().contains(where: \.isUppercase) {
            text = replacingWord(text, method, with: "'\(command)'")
        }
        return text
    }

    /// "M (timectl X)" → "'timectl X'", "(M, or timectl X)" → "('timectl X')".
    private static func replacingParenthesized(_ text: String, _ method: String) -> String {
        var result = text
        for (prefix, keepsParenthesis) in [("\(method) (timectl ", false), ("(\(method), or timectl ", true)] {
            while let start = result.find(prefix),
                  let close = result[start.upperBound...].firstIndex(of: ")") {
                let command = "timectl " + result[start.upperBound..<close]
                let replacement = keepsParenthesis ? "('\(command)')" : "'\(command)'"
                result.replaceSubrange(start.lowerBound...close, with: replacement)
            }
        }
        return result
    }

    /// Replaces `word` where it stands alone (not inside a longer identifier).
    private static func replacingWord(_ text: String, _ word: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let found = rest.find(word) {
            let before = found.lowerBound == rest.startIndex ? result.last : rest[rest.index(before: found.lowerBound)]
            let after = found.upperBound == rest.endIndex ? nil : rest[found.upperBound]
            let standsAlone = !isIdentifier(before) && !isIdentifier(after)
            result += rest[..<found.lowerBound]
            result += standsAlone ? replacement : word
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    private static func isIdentifier(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_" || character == "'"
    }
}

extension String {
    /// The first range of `needle` (plain bytes; timectl does not import Foundation).
    func find(_ needle: String) -> Range<String.Index>? {
        self[...].find(needle)
    }
}

extension Substring {
    func find(_ needle: String) -> Range<String.Index>? {
        guard !needle.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) {
                return index..<self.index(index, offsetBy: needle.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
