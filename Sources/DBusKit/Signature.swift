import CDBus

/// Signature utilities.
public enum Signature {
    /// Whether `signature` is a valid D-Bus signature (any number of complete types).
    public static func isValid(_ signature: String) -> Bool {
        guard !signature.utf8.contains(0) else { return false }
        return dbus_signature_validate(signature, nil) != 0
    }

    /// Whether `signature` is exactly one complete type.
    public static func isSingleCompleteType(_ signature: String) -> Bool {
        guard !signature.utf8.contains(0) else { return false }
        return dbus_signature_validate_single(signature, nil) != 0
    }

    /// Splits a valid signature into its complete types: "sa{sv}(xx)" → ["s", "a{sv}", "(xx)"].
    public static func split(_ signature: String) -> [String] {
        var result: [String] = []
        let bytes = Array(signature.utf8)
        var index = 0
        while index < bytes.count {
            let end = completeTypeEnd(bytes, from: index)
            result.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return result
    }

    /// The index just past the complete type starting at `start`.
    static func completeTypeEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count && bytes[index] == UInt8(ascii: "a") { index += 1 }
        guard index < bytes.count else { return bytes.count }
        let open = bytes[index]
        guard open == UInt8(ascii: "(") || open == UInt8(ascii: "{") else { return index + 1 }
        let close = open == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
        var depth = 0
        while index < bytes.count {
            if bytes[index] == open { depth += 1 }
            if bytes[index] == close { depth -= 1; if depth == 0 { return index + 1 } }
            index += 1
        }
        return bytes.count
    }
}

/// Validation applied before anything is handed to libdbus, which aborts the process on
/// invalid input.
enum Validation {
    static func checkString(_ string: String) throws {
        try checkStringBytes(Array(string.utf8))
    }

    /// The check on raw bytes: no NUL, valid UTF-8 according to libdbus itself.
    static func checkStringBytes(_ bytes: [UInt8]) throws {
        if bytes.contains(0) {
            throw BusError(name: BusError.invalidArgs, message: "String contains a NUL character")
        }
        let valid = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_validate_utf8($0.baseAddress, nil) }
        }
        if valid == 0 {
            throw BusError(name: BusError.invalidArgs, message: "String is not valid UTF-8")
        }
    }

    static func checkObjectPath(_ path: String) throws { try check(path, is: "object path", dbus_validate_path) }

    static func checkSignature(_ signature: String) throws {
        guard Signature.isValid(signature) else {
            throw BusError(name: BusError.invalidArgs, message: "Invalid signature '\(signature)'")
        }
    }

    static func checkInterface(_ name: String) throws { try check(name, is: "interface name", dbus_validate_interface) }
    static func checkMember(_ name: String) throws { try check(name, is: "member name", dbus_validate_member) }
    static func checkBusName(_ name: String) throws { try check(name, is: "bus name", dbus_validate_bus_name) }
    static func checkErrorName(_ name: String) throws { try check(name, is: "error name", dbus_validate_error_name) }

    /// Checks `text` with one of libdbus's validators, which stop at a NUL byte: such text is refused first.
    private static func check(_ text: String, is kind: String,
                              _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<DBusError>?) -> dbus_bool_t) throws {
        guard !text.utf8.contains(0), validate(text, nil) != 0 else {
            throw BusError(name: BusError.invalidArgs, message: "Invalid \(kind) '\(text)'")
        }
    }
}
