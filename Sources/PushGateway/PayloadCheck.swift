import PushModel
import TextEscaping

/// The payload's JSON check, read once with the sink's pattern when it has one (`PushSink.payloadPattern`).
///
/// Why: the gateway checked the body with `JSONShape` (~6,700 instructions a vs-locust push) and the device's
/// worker then scanned the same bytes with `JSONScan` for its fields (~19,000). Scanning here with the device's
/// pattern and handing the scan on reads the bytes once. The verdict stays `JSONShape`'s: JSONScan's grammar
/// (`JSONLite`'s) refuses every ASCII document `JSONShape` refuses (its escapes, numbers, literals, nesting cap and
/// trailing bytes are the same or stricter: surrogate escapes must pair, a number must parse), so an ASCII body
/// that JSONScan accepts and that opens with `{` is one JSON object by `JSONShape` too. Anything else (a byte of
/// 0x80 or above, which JSONLite repairs and `JSONShape` checks, a body JSONScan refuses, a non-object) is decided
/// by `JSONShape` as before; `PayloadCheckTests` pins the rule on mutated payloads.
enum PayloadCheck {
    /// Whether `body` is one JSON object (`JSONShape.isObject`'s answer), and the scan to hand on when a
    /// pattern was given.
    static func read(_ body: [UInt8], pattern: JSONPattern?) -> (isObject: Bool, scanned: ScannedPayload?) {
        guard let pattern else { return (JSONShape.isObject(body), nil) }
        let scan = JSONScan(body, pattern)
        if scan != nil, opensObject(body), isASCII(body) { return (true, ScannedPayload(scan)) }
        return (JSONShape.isObject(body), ScannedPayload(scan))
    }

    /// The first byte after leading whitespace is `{`.
    static func opensObject(_ body: [UInt8]) -> Bool {
        for b in body {
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return b == UInt8(ascii: "{")
            }
        }
        return false
    }

    /// No byte of 0x80 or above: eight bytes a step, their high bits or-ed.
    static func isASCII(_ body: [UInt8]) -> Bool {
        body.withUnsafeBytes { raw in
            var seen: UInt64 = 0
            var i = 0
            while i &+ 8 <= raw.count {
                seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            while i < raw.count {
                seen |= UInt64(raw[i])
                i &+= 1
            }
            return seen & 0x8080_8080_8080_8080 == 0
        }
    }
}
