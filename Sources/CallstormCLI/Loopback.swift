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

    /// Hosts named by `--allow-remote HOST[,HOST…]` (the flag may be given once; commas list more).
    static func allowedHosts(_ flag: String?) throws(CLIError) -> Set<String> {
        guard let flag else { return [] }
        let hosts = flag.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                .lowercased()
        }
        if hosts.isEmpty || hosts.contains(where: { $0.isEmpty || $0.hasPrefix("-") }) {
            throw .badValue(flag: "allow-remote", value: flag,
                            expected: "the host it allows, e.g. 10.1.2.3 (comma-separated for more than one)")
        }
        return Set(hosts)
    }

    /// The interlock: throws unless `host` is loopback or named by `--allow-remote`. Called before anything
    /// connects or listens, so a refused run sends nothing.
    static func require(_ host: String, role: String, allowed: Set<String>) throws(CLIError) {
        let h = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if isLoopback(h) || allowed.contains(h) { return }
        throw .nonLoopback(host: host, role: role)
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
