import Foundation
import TextEscaping

/// Number and text formatting shared by every output, so the CSV, JSON and HTML show identical figures.
enum ReportFormat {
    /// Microseconds as milliseconds with exactly three decimals, by integer arithmetic so no value is rounded
    /// twice ("1234" µs → "1.234").
    static func millis(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000)
        return sign + String(magnitude / 1_000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `millis(micros)`'s text appended as bytes (no `String`s): for tables with a figure per metric and second.
    static func appendMillis(_ micros: Int64, to out: inout [UInt8]) {
        if micros < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        JSONText.appendInteger(magnitude / 1_000, to: &out)
        let fraction = magnitude % 1_000
        out.append(UInt8(ascii: "."))
        out.append(UInt8(truncatingIfNeeded: fraction / 100) &+ UInt8(ascii: "0"))
        out.append(UInt8(truncatingIfNeeded: fraction / 10 % 10) &+ UInt8(ascii: "0"))
        out.append(UInt8(truncatingIfNeeded: fraction % 10) &+ UInt8(ascii: "0"))
    }

    /// Milliseconds without trailing zeros ("2000", "2.5") for labels people read, not for tables.
    static func shortMillis(_ micros: Int64) -> String {
        var text = millis(micros)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A mean in microseconds, rounded to the nearest microsecond, as milliseconds with three decimals.
    static func millis(mean micros: Double) -> String {
        millis(roundedMicros(micros))
    }

    static func roundedMicros(_ micros: Double) -> Int64 {
        guard micros.isFinite else { return 0 }
        return Int64(Swift.min(Swift.max(micros.rounded(), -9e18), 9e18))
    }

    /// Milliseconds as a JSON number; microsecond values convert exactly to the shortest decimal.
    static func jsonMillis(_ micros: Int64) -> Double {
        Double(micros) / 1_000
    }

    /// Gauge values: integral values without a fraction ("12"), others in Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }

    /// Fixed decimals for labels and facts (not on a hot path, so `String(format:)` is fine).
    static func fixed(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(Swift.max(decimals, 0))f", value)
    }

    /// A date as ISO 8601 in UTC, `2026-12-06T05:10:55Z`. Written from `gmtime_r`'s fields: an `ISO8601DateFormatter`
    /// made per call cost ~0.7 M instructions, once per .hlog file of every report (~18 M a run). Seconds are
    /// truncated, as the formatter does.
    static func iso8601UTC(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(date)" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(parts.tm_year + 1900)
        return "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.tm_mon + 1))-"
            + "\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// "3m 05.2s"-style duration for people; the raw seconds are in summary.json.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "\(seconds) s" }
        if seconds < 60 { return fixed(seconds, decimals: 1) + " s" }
        let minutes = Int(seconds / 60)
        let rest = seconds - Double(minutes * 60)
        let hours = minutes / 60
        let restText = (rest < 10 ? "0" : "") + fixed(rest, decimals: 1) + "s"
        if hours > 0 { return "\(hours)h \(minutes % 60)m \(restText)" }
        return "\(minutes)m \(restText)"
    }
}
