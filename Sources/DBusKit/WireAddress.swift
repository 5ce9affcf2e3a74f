/// The Unix socket a bus address entry names, for `QuickCall`.
struct UnixSocketAddress: Equatable {
    enum Name: Equatable {
        /// `unix:path=` (a file).
        case path([UInt8])
        /// `unix:abstract=` (Linux's abstract namespace).
        case abstract([UInt8])
    }

    var name: Name
    /// `guid=`: the server's id, which the answer to the authentication must name.
    var guid: String?
}

/// D-Bus server addresses (the specification's "Server Addresses"):
/// `transport:key=value,key=value;transport:…`, values %-escaped.
enum WireAddress {
    /// Bytes a value may hold without escaping (`[-0-9A-Za-z_/.\*]`).
    private static func isOptionallyEscaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."),
             UInt8(ascii: "\\"), UInt8(ascii: "*"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "a")...UInt8(ascii: "z"): return true
        default: return false
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// A value with its %XX escapes undone; nil when it is not escaped as libdbus requires.
    static func unescape(_ value: ArraySlice<UInt8>) -> [UInt8]? {
        var result: [UInt8] = []
        var index = value.startIndex
        while index < value.endIndex {
            let byte = value[index]
            if isOptionallyEscaped(byte) {
                result.append(byte)
                index += 1
            } else if byte == UInt8(ascii: "%"), index + 2 < value.endIndex,
                      let high = hexDigit(value[index + 1]), let low = hexDigit(value[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                return nil
            }
        }
        return result
    }

    /// The Unix sockets of `address`, in order; nil when an entry is anything else (another
    /// transport, a key QuickCall does not know, a malformed entry): libdbus then handles the
    /// whole address, and says what is wrong with it.
    static func unixSockets(_ address: String) -> [UnixSocketAddress]? {
        var sockets: [UnixSocketAddress] = []
        for entry in Array(address.utf8).split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false) {
            guard let colon = entry.firstIndex(of: UInt8(ascii: ":")),
                  entry[entry.startIndex..<colon].elementsEqual("unix".utf8) else { return nil }
            var path: [UInt8]?, abstract: [UInt8]?, guid: [UInt8]?
            for pair in entry[(colon + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")),
                      let value = unescape(pair[(equals + 1)...]) else { return nil }
                let key = pair[pair.startIndex..<equals]
                // Each key once; any key but these three is left to libdbus.
                if key.elementsEqual("path".utf8) && path == nil {
                    path = value
                } else if key.elementsEqual("abstract".utf8) && abstract == nil {
                    abstract = value
                } else if key.elementsEqual("guid".utf8) && guid == nil {
                    guid = value
                } else {
                    return nil
                }
            }
            let id = guid.map { String(decoding: $0, as: UTF8.self) }
            switch (path, abstract) {
            case (let path?, nil) where !path.isEmpty: sockets.append(UnixSocketAddress(name: .path(path), guid: id))
            case (nil, let name?): sockets.append(UnixSocketAddress(name: .abstract(name), guid: id))
            default: return nil
            }
        }
        return sockets.isEmpty ? nil : sockets
    }
}
