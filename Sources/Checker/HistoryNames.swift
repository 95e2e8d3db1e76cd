import CallModel
import Foundation
import RunFormats

/// The fixed words of the history format (keys, line types, enum values), matched against a line's bytes without
/// building a `String` for them: a million-operation history has tens of millions of keys, and a `String` per key
/// was the reader's largest cost (see docs/results/issue20-end-of-run.md).
///
/// Strict by construction: a word matches only when its bytes are exactly a name's; a word with a non-ASCII byte that
/// matches none is decoded and compared as a `String` (canonical equivalence, what `init?(rawValue:)` does), so
/// every line reads exactly as it did when each word was decoded first.
struct ByteNames<Value: Sendable>: Sendable {
    /// A name packed into two words; names are at most 16 bytes. No references, so a lookup retains nothing.
    private struct Entry: Sendable {
        var low: UInt64
        var high: UInt64
        var value: Value
    }

    /// Entries sorted by length; those of length `n` are `entries[firstOfLength[n]..<firstOfLength[n + 1]]`.
    private let entries: [Entry]
    private let firstOfLength: [Int]
    /// The names as text, for the comparison of a word with non-ASCII bytes.
    private let names: [(String, Value)]
    static var longest: Int { 16 }

    init(_ names: [(String, Value)]) {
        let sorted = names.sorted { $0.0.utf8.count < $1.0.utf8.count }
        var entries: [Entry] = []
        var first = [Int](repeating: sorted.count, count: Self.longest + 2)
        for (i, (name, value)) in sorted.enumerated() {
            let bytes = Array(name.utf8)
            precondition(bytes.count <= Self.longest && bytes.allSatisfy { $0 < 0x80 }, "bad name \(name)")
            let (low, high) = bytes.withUnsafeBufferPointer { Self.pack($0) }
            entries.append(Entry(low: low, high: high, value: value))
            first[bytes.count] = min(first[bytes.count], i)
        }
        for n in stride(from: Self.longest, through: 0, by: -1) where first[n] > first[n + 1] {
            first[n] = first[n + 1]
        }
        self.entries = entries
        self.firstOfLength = first
        self.names = names
    }

    init(_ cases: some Collection<Value>) where Value: RawRepresentable, Value.RawValue == String {
        self.init(cases.map { ($0.rawValue, $0) })
    }

    /// The value named by these (decoded) bytes, or nil.
    func find(_ bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let n = bytes.count
        if n <= Self.longest {
            let (low, high) = Self.pack(bytes)
            var i = firstOfLength[n]
            let end = firstOfLength[n + 1]
            while i < end {
                if entries[i].low == low, entries[i].high == high { return entries[i].value }
                i += 1
            }
        }
        guard bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return names.first { $0.0 == text }?.1
    }

    /// Up to 16 bytes as two words (zero-padded); only words of equal length are ever compared.
    @inline(__always)
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        guard let base = bytes.baseAddress else { return (0, 0) }
        let n = min(bytes.count, longest)
        @inline(__always) func word(_ from: Int, _ count: Int) -> UInt64 {
            if count >= 8 { return UnsafeRawPointer(base + from).loadUnaligned(as: UInt64.self) }
            var w: UInt64 = 0
            var i = 0
            while i < count {
                w |= UInt64(base[from + i]) << UInt64(8 * i)
                i += 1
            }
            return w
        }
        return (word(0, min(n, 8)), n > 8 ? word(8, n - 8) : 0)
    }
}

/// A word read where the format expects one of a fixed set: the value, or the text that named none (kept for the
/// error, which is raised where the old reader raised it).
enum Named<Value> {
    case known(Value)
    case unknown(String)

    /// The value, or the error `unknown` words for the text, at the scanner's position.
    func value(_ s: JSONScanner, _ unknown: (String) -> String) throws -> Value {
        switch self {
        case .known(let value): return value
        case .unknown(let text): throw s.error(unknown(text))
        }
    }
}

/// Every key the reader looks at, in any of the format's objects; other keys are skipped.
enum HistoryKey: String, CaseIterable, Sendable {
    case t, type, op, device, kind, conversation, with, member, outcome, reason, event, into, view, split, server
    case local, call, step, race, offset, id, version, ended, members, state, active, sent, message
    case user
}

extension HistoryKey {
    /// The key these (decoded) bytes name. Keys are the most frequent words of a history (about thirty a line), so
    /// they are told apart by length and first byte without a table; a key with a non-ASCII byte that names none is
    /// compared as text, as `init?(rawValue:)` would.
    init?(bytes b: UnsafeBufferPointer<UInt8>) {
        @inline(__always) func equals(_ word: StaticString) -> Bool {
            memcmp(b.baseAddress!, word.utf8Start, b.count) == 0
        }
        var key: HistoryKey?
        switch (b.count, b.first ?? 0) {
        case (1, UInt8(ascii: "t")): key = .t
        case (2, UInt8(ascii: "o")): key = equals("op") ? .op : nil
        case (2, UInt8(ascii: "i")): key = equals("id") ? .id : nil
        case (4, UInt8(ascii: "t")): key = equals("type") ? .type : nil
        case (4, UInt8(ascii: "k")): key = equals("kind") ? .kind : nil
        case (4, UInt8(ascii: "w")): key = equals("with") ? .with : nil
        case (4, UInt8(ascii: "i")): key = equals("into") ? .into : nil
        case (4, UInt8(ascii: "v")): key = equals("view") ? .view : nil
        case (4, UInt8(ascii: "c")): key = equals("call") ? .call : nil
        case (4, UInt8(ascii: "s")): key = equals("step") ? .step : equals("sent") ? .sent : nil
        case (4, UInt8(ascii: "r")): key = equals("race") ? .race : nil
        case (4, UInt8(ascii: "u")): key = equals("user") ? .user : nil
        case (5, UInt8(ascii: "e")): key = equals("event") ? .event : equals("ended") ? .ended : nil
        case (5, UInt8(ascii: "s")): key = equals("split") ? .split : equals("state") ? .state : nil
        case (5, UInt8(ascii: "l")): key = equals("local") ? .local : nil
        case (6, UInt8(ascii: "d")): key = equals("device") ? .device : nil
        case (6, UInt8(ascii: "m")): key = equals("member") ? .member : nil
        case (6, UInt8(ascii: "r")): key = equals("reason") ? .reason : nil
        case (6, UInt8(ascii: "s")): key = equals("server") ? .server : nil
        case (6, UInt8(ascii: "o")): key = equals("offset") ? .offset : nil
        case (6, UInt8(ascii: "a")): key = equals("active") ? .active : nil
        case (7, UInt8(ascii: "o")): key = equals("outcome") ? .outcome : nil
        case (7, UInt8(ascii: "v")): key = equals("version") ? .version : nil
        case (7, UInt8(ascii: "m")): key = equals("members") ? .members : equals("message") ? .message : nil
        case (12, UInt8(ascii: "c")): key = equals("conversation") ? .conversation : nil
        default: key = nil
        }
        if key == nil, b.contains(where: { $0 >= 0x80 }) {
            key = HistoryKey(rawValue: String(decoding: b, as: UTF8.self))
        }
        guard let key else { return nil }
        self = key
    }
}

/// A line's `type`: the words RunFormats' `HistoryText` writes.
typealias LineType = HistoryLineType

/// The tables, built once.
enum HistoryNames {
    static let types = ByteNames(LineType.allCases)
    static let kinds = ByteNames(ActionKind.allCases)
    static let outcomes = ByteNames(Outcome.allCases)
    static let pushEvents = ByteNames(PushEvent.allCases)
    static let memberStates = ByteNames(MemberState.allCases)
    static let dialogStates = ByteNames(DialogState.allCases)
}
