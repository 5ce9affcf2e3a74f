import CGtk
import DBusCore
import GtkKit
import TextEscape
import TimeClient

/// What every view of the window shares: the line to the agent, the projects and categories as
/// last read, the toasts, and one way to send a change and show the agent's answer.
final class WindowContext {
    let link: AgentLink
    var toasts: Toasts?
    var window: UnsafeMutablePointer<GtkWindow>?
    private(set) var projects: [Project] = []
    private(set) var categories: [String] = []
    /// Views that show projects re-read them from here after `reloadProjects`.
    var onProjectsChanged: [() -> Void] = []

    init(link: AgentLink) { self.link = link }

    var canChange: Bool { link.status == .connected && !link.properties.isReadOnly }

    var now: Int64 { Int64(time(nil)) }

    /// Sends `request`; on success `then` runs with the reply, on failure the agent's words go to
    /// `failed`, or to a toast when no one else shows them.
    func send(_ request: AgentRequest) { send(request, failed: nil) { _ in } }

    func send(_ request: AgentRequest, failed: ((AgentError) -> Void)?, then: @escaping ([DBusValue]) -> Void) {
        link.call(request) { [weak self] result in
            switch result {
            case .success(let reply): then(reply)
            case .failure(let error):
                if let failed { failed(error) } else { self?.toasts?.show(error.message) }
            }
        }
    }

    /// Sends `requests` one after another, stopping at the first refusal; `done` gets it, or nil,
    /// with the last reply.
    func sendInOrder(_ requests: [AgentRequest], done: @escaping (AgentError?, [DBusValue]) -> Void) {
        guard let first = requests.first else { return done(nil, []) }
        link.call(first) { [weak self] result in
            switch result {
            case .failure(let error): done(error, [])
            case .success(let reply):
                if requests.count == 1 { return done(nil, reply) }
                self?.sendInOrder(Array(requests.dropFirst()), done: done)
            }
        }
    }

    /// Reads the projects and categories again.
    func reloadProjects() {
        link.call(AgentRequest("ListProjects")) { [weak self] result in
            guard let self, case .success(let reply) = result else { return }
            self.projects = (reply.first?.arrayValue ?? []).compactMap(\.variantDictionary).map(Project.init)
            self.link.call(AgentRequest("ListCategories")) { [weak self] result in
                guard let self else { return }
                if case .success(let reply) = result {
                    self.categories = (reply.first?.arrayValue ?? []).compactMap(\.stringValue)
                }
                for listener in self.onProjectsChanged { listener() }
            }
        }
    }

    /// Projects a person can pick to start or move time to: the archived ones left out,
    /// except `keeping` (the one a session already has).
    func pickableProjects(keeping id: UInt64 = 0) -> [Project] {
        projects.filter { !$0.archived || $0.id == id }.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }
}

/// `<span foreground="#3366cc">●</span> Writing`: a project's color dot and its name, escaped.
func coloredName(_ name: String, color: String) -> String {
    let dot = ProjectForm.isHexColor(color) ? "<span foreground=\"\(color)\">●</span> " : ""
    return dot + TextEscape.markup(name)
}
