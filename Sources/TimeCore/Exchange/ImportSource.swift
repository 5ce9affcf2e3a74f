import Glibc

/// The formats `Import` reads, where each tool keeps its data, and reading it whole.
public enum ImportFormat: String, CaseIterable, Sendable {
    case hamster, timewarrior, watson, csv, json

    /// Reads everything `path` names ("" = the tool's default location). Throws `ExchangeError`
    /// for a missing or malformed source; nothing is changed by reading.
    public func read(path rawPath: String, environment: (String) -> String? = ImportFormat.environment) throws -> ExchangeData {
        var data = ExchangeData()
        let path = rawPath.trimmingWhitespace()
        let home = environment("HOME") ?? ""
        func xdg(_ variable: String, _ fallback: String) -> String {
            if let value = environment(variable), value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        switch self {
        case .hamster:
            let file = path.isEmpty ? xdg("XDG_DATA_HOME", ".local/share") + "/hamster/hamster.db"
                : Files.kind(path) == .directory ? path + "/hamster.db" : path
            try requireFile(file, "Hamster's database (hamster.db)")
            try HamsterReader.read(database: file, keyPrefix: "hamster:\(absolute(file)):", into: &data)
        case .timewarrior:
            var folder = path
            if path.isEmpty {
                let candidates = [environment("TIMEWARRIORDB").map { $0 + "/data" }, home.isEmpty ? nil : home + "/.timewarrior/data",
                                  xdg("XDG_DATA_HOME", ".local/share") + "/timewarrior/data"].compactMap { $0 }
                guard let found = candidates.first(where: { Files.kind($0) == .directory }) else {
                    throw ExchangeError(file: candidates.joined(separator: ", "), line: 0,
                                        expected: "Timewarrior's data folder; none of these exists (give the folder or a YYYY-MM.data file)")
                }
                folder = found
            } else if Files.kind(path) == .directory, Files.kind(path + "/data") == .directory {
                folder = path + "/data"
            }
            if Files.kind(folder) == .regular {
                try TimewarriorReader.read(try text(folder), file: folder, into: &data)
            } else {
                try requireFolder(folder, "Timewarrior's data folder")
                for name in Files.list(folder) where TimewarriorReader.isDataFile(name) {
                    try TimewarriorReader.read(try text(folder + "/" + name), file: folder + "/" + name, into: &data)
                }
                data.projectFromTags = true
            }
        case .watson:
            let folder = path.isEmpty ? (environment("WATSON_DIR") ?? xdg("XDG_CONFIG_HOME", ".config") + "/watson")
                : Files.kind(path) == .regular ? Files.directoryName(path) : path
            let frames = Files.kind(path) == .regular ? path : folder + "/frames"
            try requireFile(frames, "Watson's frames file")
            try WatsonReader.read(frames: try bytes(frames), file: frames, into: &data)
            if Files.kind(folder + "/state") == .regular, let warning = WatsonReader.runningWarning(state: try bytes(folder + "/state")) {
                data.warnings.append(warning)
            }
        case .csv:
            try requireFile(path, "a CSV file written by `timectl export csv` (give its path)")
            try CSVExchange.read(try text(path), file: path, into: &data)
        case .json:
            try requireFile(path, "a JSON file written by `timectl export json` (give its path)")
            try JSONExchange.read(try bytes(path), file: path, into: &data)
        }
        return data
    }

    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func requireFile(_ path: String, _ what: String) throws {
        guard !path.isEmpty, Files.kind(path) == .regular else {
            throw ExchangeError(file: path.isEmpty ? "(no path)" : path, line: 0, expected: "\(what); there is no such file")
        }
    }

    private func requireFolder(_ path: String, _ what: String) throws {
        guard Files.kind(path) == .directory else { throw ExchangeError(file: path, line: 0, expected: "\(what); there is no such folder or file") }
    }

    private func bytes(_ path: String) throws -> [UInt8] {
        do { return try Files.read(path) } catch {
            throw ExchangeError(file: path, line: 0, expected: "a readable file (\(error))")
        }
    }

    private func text(_ path: String) throws -> String {
        let content = try bytes(path)
        guard let text = String(validating: content, as: UTF8.self) else {
            throw ExchangeError(file: path, line: 0, expected: "UTF-8 text")
        }
        return text
    }

    private func absolute(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
