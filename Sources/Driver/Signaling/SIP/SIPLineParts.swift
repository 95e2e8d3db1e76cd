import RunFormats

/// The history's `sip` lines' parts, made once (`HistoryText.sipMiddle`, `sipEnd`): each device's middle by its
/// worker-local index, each label's end for sent and for received messages, all in one buffer read in place, so a
/// line writes only its time and its Call-ID (issue 33, s54).
///
/// A label's end is found by the label's representation (its two words), not by comparing text: the tap's labels
/// are the same `String` values each time (a method's literal, `SIPResponseLabels`' kept strings), and equal words
/// are the same text (a large string's words hold its storage, which `labels` keeps alive). The same text in other
/// words only makes another entry, up to `maxEnds`; past that the caller writes the line whole.
struct SIPLineParts {
    private(set) var bytes: [UInt8] = []
    /// Each device's middle in `bytes` by worker-local index; empty until its first line.
    private var middles: [Range<Int>] = []
    private var ends: [(words: (UInt64, UInt64), sent: Bool, range: Range<Int>)] = []
    /// The ends of the usual labels by number and direction (`end(code:sent:label:)`): the range's bounds packed
    /// in a word (start high, end low; 0 for none: an end is never empty).
    private var codeEnds: [UInt64] = []
    private var codeCount = 0
    /// The labels whose words key `ends`, kept so their storage lives as long as the keys.
    private var labels: [String] = []
    static let maxEnds = 64

    /// Device `local`'s middle, made from `device()` at its first line.
    mutating func middle(_ local: Int, device: () -> String) -> Range<Int> {
        if local < middles.count, !middles[local].isEmpty { return middles[local] }
        if local >= middles.count { middles.append(contentsOf: repeatElement(0..<0, count: local + 1 - middles.count)) }
        let start = bytes.count
        HistoryText.sipMiddle(device: device(), into: &bytes)
        middles[local] = start..<bytes.count
        return middles[local]
    }

    /// The end of a line of `label`, sent or received; nil when the table is full.
    mutating func end(_ label: String, sent: Bool) -> Range<Int>? {
        let words = Self.words(label)
        for i in ends.indices where ends[i].words == words && ends[i].sent == sent { return ends[i].range }
        guard ends.count < Self.maxEnds else { return nil }
        let start = bytes.count
        HistoryText.sipEnd(sent: sent, message: label, into: &bytes)
        ends.append((words, sent, start..<bytes.count))
        labels.append(label)
        return start..<bytes.count
    }

    /// The end of a line whose label has number `code` (`SIPLabelCode`), sent or received, made from `label()` at
    /// its first use; nil when the table is full. Found by one array read at the number (a word per number up to
    /// the highest seen: ~45 KB for a 699 response): no label `String` is made or compared per message.
    mutating func end(code: Int, sent: Bool, label: () -> String) -> Range<Int>? {
        let key = code << 1 | (sent ? 1 : 0)
        if key < codeEnds.count, codeEnds[key] != 0 {
            let packed = codeEnds[key]
            return Int(packed >> 32)..<Int(packed & 0xFFFF_FFFF)
        }
        guard codeCount < Self.maxEnds else { return nil }
        let start = bytes.count
        HistoryText.sipEnd(sent: sent, message: label(), into: &bytes)
        if key >= codeEnds.count { codeEnds.append(contentsOf: repeatElement(0, count: key + 1 - codeEnds.count)) }
        codeEnds[key] = UInt64(start) << 32 | UInt64(bytes.count)
        codeCount += 1
        return start..<bytes.count
    }

    static func words(_ text: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: text) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }
}
