extension DataState {
    /// A SHA-256 of the whole state as text: equal for equal states, so that a process can name a
    /// state it acknowledged and another can check what a recovery brought back (the crash-state tests).
    public var fingerprint: String { SHA256.hex(Array(String(describing: self).utf8)) }
}
