import DBusKit

extension PrivateBus {
    /// Whether someone owns `name` on this bus now (false when the bus cannot be asked).
    public func hasOwner(_ name: String) -> Bool {
        guard let client = try? connect() else { return false }
        defer { client.close() }
        return (try? client.nameHasOwner(name)) == true
    }
}
