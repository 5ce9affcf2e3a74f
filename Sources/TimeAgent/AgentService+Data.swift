import DBusKit

/// Where the data is, for the window's Preferences ("Open folder"): the folder this agent was
/// started with (`--data-dir`, `TIME_TRACKER_DATA_DIR` or the XDG default), which a client
/// cannot know (a D-Bus activated agent has the bus's environment, not the client's).
extension AgentService {
    var dataProperties: [Property] {
        [
            Property(name: "DataFolder", signature: "s", emitsChange: .const,
                     doc: "The folder holding the store, its snapshots and archives.") { [unowned self] in
                .string(self.dataFolder)
            },
        ]
    }
}
