import Foundation
import Quantities
import Scenario

/// A tiny flag parser: `--name value`, `--name=value` and boolean `--name`. Unknown flags are usage errors.
///
/// Values are read through the typed accessors below, which refuse a value they cannot use with
/// `CLIError.badValue` naming the flag (exit 2), never falling back to a default: a `--threads abc` that ran with
/// one thread hid the mistake. A valued flag given an empty value is refused the same way, unless it is a list
/// that may be empty (`emptyAllowed`, e.g. merge's `--threshold "$THRESHOLDS"` in a manifest with none).
struct Arguments {
    private(set) var positional: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    init(_ args: [String], valued: Set<String>, boolean: Set<String>, emptyAllowed: Set<String> = [])
        throws(CLIError) {
        var i = 0
        while i < args.count {
            let arg = args[i]
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var inline: String?
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if valued.contains(name) {
                    if let inline {
                        values[name] = inline
                    } else {
                        i += 1
                        guard i < args.count else { throw .missingValue(flag: name) }
                        values[name] = args[i]
                    }
                    if values[name]?.isEmpty == true, !emptyAllowed.contains(name) {
                        throw .badValue(flag: name, value: "", expected: "a value")
                    }
                } else if boolean.contains(name), inline == nil {
                    flags.insert(name)
                } else if boolean.contains(name) {
                    throw .badValue(flag: name, value: inline ?? "", expected: "no value (it is a switch)")
                } else {
                    throw .unknownFlag(flag: name, known: valued.union(boolean).sorted())
                }
            } else if arg == "-h" {
                flags.insert("help")
            } else {
                positional.append(arg)
            }
            i += 1
        }
    }

    func value(_ name: String) -> String? { values[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    // MARK: - Typed values

    /// A whole number in `range`, or nil when the flag is absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw .badValue(flag: name, value: text, expected: "a whole number \(Self.describe(range))")
        }
        return n
    }

    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(CLIError) -> Int {
        try integer(name, in: range) ?? fallback
    }

    /// A duration such as `250ms`, `30s` or `2m` (Scenario's `Quantity` rules) in nanoseconds.
    func duration(_ name: String, allowZero: Bool = true) throws(CLIError) -> UInt64? {
        guard let text = values[name] else { return nil }
        let nanos: UInt64
        do {
            nanos = try Quantity.duration(text)
        } catch {
            throw .badValue(flag: name, value: text, expected: "a duration like 250ms, 30s or 2m")
        }
        if nanos == 0 && !allowZero {
            throw .badValue(flag: name, value: text, expected: "a duration longer than zero")
        }
        return nanos
    }

    /// `HOST:PORT` (`[::1]:PORT` for IPv6), with the default text when the flag is absent.
    func hostPort(_ name: String, default fallback: String) throws(CLIError) -> (host: String, port: Int) {
        let text = values[name] ?? fallback
        guard let (host, port) = Loopback.hostPort(text) else {
            throw .badValue(flag: name, value: text, expected: "HOST:PORT, e.g. 127.0.0.1:8080")
        }
        return (host, port)
    }

    /// One of a fixed set of words (`--environment both`), with the default when the flag is absent.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T) throws(CLIError) -> T
        where T.RawValue == String {
        guard let text = values[name] else { return fallback }
        guard let value = T(rawValue: text) else {
            let words = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badValue(flag: name, value: text, expected: "one of \(words)")
        }
        return value
    }

    /// A file callstorm will read (a CA, a certificate, a key), refused now rather than at the first handshake.
    func readableFile(_ name: String) throws(CLIError) -> String? {
        guard let path = values[name] else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .badValue(flag: name, value: path, expected: "a readable file")
        }
        return path
    }

    static func describe(_ range: ClosedRange<Int>) -> String {
        if range.upperBound == Int.max { return "of at least \(range.lowerBound)" }
        return "from \(range.lowerBound) to \(range.upperBound)"
    }
}
