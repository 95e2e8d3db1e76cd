import Foundation

/// The safety rule: load goes only to this machine unless the user says otherwise.
enum Loopback {
    /// The host part of an http(s) URL, without brackets.
    static func host(ofURL url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return nil
        }
        return host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// Splits `host:port` (IPv6 as `[::1]:port`).
    static func hostPort(_ text: String) -> (String, Int)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
            return (host, port)
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        return (String(text[..<colon]), port)
    }
}
