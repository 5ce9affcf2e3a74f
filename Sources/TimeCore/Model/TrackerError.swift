/// Every way a request can be refused. Each case maps one to one to an error name of the
/// D-Bus contract (`io.github.timetracker.Time1.Error.<name>`) and carries a sentence a person can act on.
public enum TrackerError: Error, Equatable, CustomStringConvertible {
    case noSuchProject(String)
    case noSuchCategory(String)
    case noSuchSession(String)
    case noCurrentSession(String)
    case alreadyExists(String)
    case invalidArgument(String)
    /// A time given would put the open session over a completed one (contract: "Fixing what was forgotten").
    case overlap(String)
    case readOnly(String)
    case storageFailure(String)
    case noSuchAway(String)
    case nothingToUndo(String)
    case nothingToRedo(String)

    /// The contract's error name, without the interface prefix.
    public var name: String {
        switch self {
        case .noSuchProject: "NoSuchProject"
        case .noSuchCategory: "NoSuchCategory"
        case .noSuchSession: "NoSuchSession"
        case .noCurrentSession: "NoCurrentSession"
        case .alreadyExists: "AlreadyExists"
        case .invalidArgument: "InvalidArgument"
        case .overlap: "Overlap"
        case .readOnly: "ReadOnly"
        case .storageFailure: "StorageFailure"
        case .noSuchAway: "NoSuchAway"
        case .nothingToUndo: "NothingToUndo"
        case .nothingToRedo: "NothingToRedo"
        }
    }

    public var message: String {
        switch self {
        case .noSuchProject(let m), .noSuchCategory(let m), .noSuchSession(let m), .noCurrentSession(let m),
             .alreadyExists(let m), .invalidArgument(let m), .overlap(let m), .readOnly(let m), .storageFailure(let m),
             .noSuchAway(let m),
             .nothingToUndo(let m), .nothingToRedo(let m):
            m
        }
    }

    public var description: String { "\(name): \(message)" }

    static let idle = TrackerError.noCurrentSession(
        "No session is open: start one with StartProject (timectl start PROJECT) first.")
}
