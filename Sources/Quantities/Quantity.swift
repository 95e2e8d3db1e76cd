#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing the quantities scenario files are made of: durations (`250ms`, `1m30s`) and rates
/// (`50/s`, `3000/m`).
///
/// Units are mandatory because a bare `10` is ambiguous (seconds? milliseconds?) and a wrong guess silently
/// changes a test by orders of magnitude.
public enum Quantity {
    /// Why a text is not a valid quantity, with the fix when one is evident.
    public struct ParseError: Error, Equatable, Sendable {
        /// A message that completes "expected ...": says what was expected and what was found.
        public var message: String
        /// The corrected text, when the intent is clear (`10 seconds` → `10s`).
        public var suggestion: String?

        public init(message: String, suggestion: String? = nil) {
            self.message = message
            self.suggestion = suggestion
        }
    }

    static let durationUnits: [(name: String, nanos: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    /// Long spellings people write, mapped to the unit we expect instead.
    static let unitAliases: [String: String] = [
        "nanosecond": "ns", "nanoseconds": "ns", "nsec": "ns",
        "microsecond": "us", "microseconds": "us", "usec": "us",
        "millisecond": "ms", "milliseconds": "ms", "msec": "ms", "millis": "ms",
        "second": "s", "seconds": "s", "sec": "s", "secs": "s",
        "minute": "m", "minutes": "m", "min": "m", "mins": "m",
        "hour": "h", "hours": "h", "hr": "h", "hrs": "h",
    ]

    // MARK: - Durations

    /// Parses a duration such as `250ms`, `2s`, `1m30s`, `1.5s` or `500us` into nanoseconds.
    public static func duration(_ text: String) throws(ParseError) -> UInt64 {
        let trimmed = text.trimmingSpaces
        let expected = "expected a duration like 250ms or 2s, got '\(text)'"
        if trimmed.hasPrefix("-") {
            throw ParseError(message: "a duration cannot be negative, got '\(text)'")
        }
        if Double(trimmed) != nil {
            throw ParseError(message: "\(expected); add a unit (ns, us, ms, s, m or h)", suggestion: "\(trimmed)s")
        }
        guard let components = splitComponents(trimmed), !components.isEmpty else {
            throw ParseError(message: expected, suggestion: suggestDuration(trimmed))
        }
        var total = 0.0
        for (number, unit) in components {
            guard let value = Double(number), let scale = durationUnits.first(where: { $0.name == unit })?.nanos
            else {
                throw ParseError(message: expected, suggestion: suggestDuration(trimmed))
            }
            total += value * scale
        }
        guard total < 18_446_744_073_709_551_615.0 else {
            throw ParseError(message: "the duration '\(text)' is too long (the limit is about 584 years)")
        }
        return UInt64(total.rounded())
    }

    /// Splits `1m30.5s` into `[("1", "m"), ("30.5", "s")]`; nil when the text is not number-unit pairs.
    private static func splitComponents(_ text: String) -> [(String, String)]? {
        var result: [(String, String)] = []
        var index = text.startIndex
        while index < text.endIndex {
            let numberStart = index
            while index < text.endIndex, text[index].isASCII, text[index].isNumber || text[index] == "." {
                index = text.index(after: index)
            }
            let unitStart = index
            while index < text.endIndex, text[index].isLetter {
                index = text.index(after: index)
            }
            guard numberStart < unitStart, unitStart < index else { return nil }
            result.append((String(text[numberStart..<unitStart]), String(text[unitStart..<index])))
        }
        return result
    }

    /// `10 seconds` → `10s`, `2 min` → `2m`: a number followed by a unit word we recognise.
    private static func suggestDuration(_ text: String) -> String? {
        let number = String(text.prefix { $0.isASCII && ($0.isNumber || $0 == ".") })
        guard !number.isEmpty, Double(number) != nil else { return nil }
        let word = text.dropFirst(number.count).trimmingSpaces.lowercased()
        if let unit = unitAliases[word] { return number + unit }
        if durationUnits.contains(where: { $0.name == word }) { return number + word }
        return nil
    }

    /// Formats nanoseconds the way a person would write them in a scenario: `250ms`, `1.5s`, `1m30s`, `2h`.
    /// A signed offset in scenario units: `-5ms`, `0s`, `2ms`.
    public static func format(signedNanos: Int64) -> String {
        signedNanos < 0 ? "-" + format(nanos: UInt64(-signedNanos)) : format(nanos: UInt64(signedNanos))
    }

    public static func format(nanos: UInt64) -> String {
        if nanos == 0 { return "0s" }
        if nanos < 1_000 { return "\(nanos)ns" }
        if nanos < 1_000_000 { return decimal(Double(nanos) / 1e3) + "us" }
        if nanos < 1_000_000_000 { return decimal(Double(nanos) / 1e6) + "ms" }
        if nanos < 60_000_000_000 { return decimal(Double(nanos) / 1e9) + "s" }
        let hours = nanos / 3_600_000_000_000
        let minutes = nanos % 3_600_000_000_000 / 60_000_000_000
        let rest = nanos % 60_000_000_000
        var text = hours > 0 ? "\(hours)h" : ""
        if minutes > 0 { text += "\(minutes)m" }
        if rest > 0 { text += decimal(Double(rest) / 1e9) + "s" }
        return text
    }

    // MARK: - Rates

    static let rateUnits: [String: Double] = [
        "s": 1, "sec": 1, "second": 1, "m": 1.0 / 60, "min": 1.0 / 60, "minute": 1.0 / 60,
        "h": 1.0 / 3600, "hour": 1.0 / 3600,
    ]

    /// Parses a rate such as `50/s`, `3000/m`, `2.5/s` or `0/s` into events per second.
    public static func rate(_ text: String) throws(ParseError) -> Double {
        let trimmed = text.trimmingSpaces
        let expected = "expected a rate like 50/s or 3000/m, got '\(text)'"
        if Double(trimmed) != nil {
            if trimmed.hasPrefix("-") { throw ParseError(message: "a rate cannot be negative, got '\(text)'") }
            throw ParseError(message: "\(expected); add a unit ('/s', '/m' or '/h')", suggestion: "\(trimmed)/s")
        }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let value = Double(String(parts[0]).trimmingSpaces), value.isFinite else {
            throw ParseError(message: expected)
        }
        let unit = String(parts[1]).trimmingSpaces.lowercased()
        guard let scale = rateUnits[unit] else {
            throw ParseError(message: "\(expected); the unit after '/' must be s, m or h")
        }
        if value < 0 || trimmed.hasPrefix("-") {
            throw ParseError(message: "a rate cannot be negative, got '\(text)'")
        }
        return value * scale
    }

    /// Formats a per-second rate as `50/s` (or `2.5/s`).
    public static func format(ratePerSecond rate: Double) -> String {
        decimal(rate) + "/s"
    }

    // MARK: - Numbers

    /// A number with at most three decimals and no trailing zeros, without Foundation's formatters.
    public static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 9e15 { return "\(Int64(rounded))" }
        let thousandths = Int64((abs(rounded) * 1000).rounded())
        var fraction = String(thousandths % 1000)
        while fraction.count < 3 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (rounded < 0 ? "-" : "") + "\(thousandths / 1000).\(fraction)"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (no Foundation needed).
    public var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }

}
