#if canImport(Glibc)
import Glibc
#endif

/// The header lines a connection sent before, byte for byte, each with the field its parse made.
///
/// Why: a client sends most of its header lines again on every request of a connection (a push provider's host,
/// `authorization`, topic, push type, content type: seven of nine lines a push). Validating each line (colon,
/// token name, value bytes), trimming it and making or comparing its two Strings cost ~1,600 instructions a line,
/// ~15,000 a push in the gateway. A line whose bytes equal one parsed before parses to the same field (the parse
/// depends on nothing but the line: invalid UTF-8 is repaired the same way each time), so a hit is a length test
/// and a `memcmp`. Only lines that do not frame the request are kept (`FramingHeader`: Content-Length,
/// Transfer-Encoding, Connection and Expect are interpreted on every request).
///
/// Bounded: `capacity` lines of at most `maxLineBytes` each, per connection, made only from lines the client
/// sent. Replaced by the clock rule (a line found again is passed over once), so a client whose every request
/// carries a new value (a request id) does not push out the lines that repeat.
struct HTTP1LineCache {
    static let capacity = 16
    static let maxLineBytes = 512

    private var lines: [[UInt8]] = []
    /// Each line's length, apart: the search compares lengths first without touching the lines' buffers.
    private var counts: [Int] = []
    private var fields: [HTTPHeader] = []
    /// Set when a line is found again; the clock hand clears it once before it may replace that line.
    private var used: [Bool] = []
    private var hand = 0

    /// The field `input[start..<end]` (one header line without its CR LF) made when it was parsed before.
    @inline(__always)
    mutating func field(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTPHeader? {
        let count = end - start
        guard count > 0, let base = input.baseAddress else { return nil }
        for i in counts.indices where counts[i] == count {
            let same = lines[i].withUnsafeBufferPointer { memcmp($0.baseAddress!, base + start, count) == 0 }
            if same {
                used[i] = true
                return fields[i]
            }
        }
        return nil
    }

    /// Keeps `input[start..<end]` with the field its parse made (a line that passed every check).
    mutating func add(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ field: HTTPHeader) {
        let count = end - start
        guard count > 0, count <= Self.maxLineBytes else { return }
        let line = Array(UnsafeBufferPointer(rebasing: input[start..<end]))
        if lines.count < Self.capacity {
            lines.append(line)
            counts.append(count)
            fields.append(field)
            used.append(false)
            return
        }
        while used[hand] {
            used[hand] = false
            hand = (hand + 1) % Self.capacity
        }
        lines[hand] = line
        counts[hand] = count
        fields[hand] = field
        hand = (hand + 1) % Self.capacity
    }

    /// How many lines are kept (tests).
    var count: Int { lines.count }
}
