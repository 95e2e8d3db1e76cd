import Foundation
import Results

extension MergeCommand {
    /// Joins the shards' `history.jsonl` into one history on the merged time axis, so `callstorm check` (and the
    /// checker run by the merge) judges the union: a conversation's operations all live in one shard, but a rule
    /// such as "versions only increase" must hold however the shards' lines interleave.
    ///
    /// Each line's `t` moves by the whole seconds between its shard's origin and `baseUnixSeconds`; op ids get the
    /// shard index in their top byte (workers number theirs `worker << 48 | n`, so shards would otherwise collide).
    /// Lines are ordered by the new `t`, ties keeping shard order. Returns the number of lines written.
    static func concatenateHistories(_ parts: [Part], baseUnixSeconds: Int64, into out: URL) throws -> Int {
        var lines: [(t: UInt64, line: String)] = []
        for part in parts {
            let url = RunBundle(part.directory).history
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            let shiftNanos = UInt64(max(0, (part.record?.originUnixSeconds ?? baseUnixSeconds) - baseUnixSeconds))
                * 1_000_000_000
            let shard = UInt64(part.record?.shardIndex ?? 0)
            for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
                let (t, line) = rewrite(raw, shiftNanos: shiftNanos, opTag: shard << 56)
                lines.append((t, line))
            }
        }
        guard !lines.isEmpty else { return 0 }
        try RunResults.writeHistory(lines, run: out)
        return lines.count
    }

    /// One history line with its leading `{"t":N` shifted and its `"op":N` tagged; other text is kept as is.
    /// A line that does not start with `{"t":` is kept unchanged at t = 0, where the checker will name it.
    static func rewrite(_ line: Substring, shiftNanos: UInt64, opTag: UInt64) -> (UInt64, String) {
        let prefix = "{\"t\":"
        guard line.hasPrefix(prefix) else { return (0, String(line)) }
        let digits = line.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
        guard let t = UInt64(digits) else { return (0, String(line)) }
        let shifted = t + shiftNanos
        var rest = line[digits.endIndex...]
        var text = prefix + String(shifted)
        let opKey = ",\"op\":"
        if opTag != 0, let range = rest.range(of: opKey) {
            let opDigits = rest[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if let op = UInt64(opDigits) {
                text += rest[..<range.upperBound]
                text += String(op | opTag)
                rest = rest[opDigits.endIndex...]
            }
        }
        text += rest
        return (shifted, text)
    }
}
