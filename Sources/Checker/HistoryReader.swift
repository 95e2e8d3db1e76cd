import CallModel
import Foundation

/// Why a history could not be read; the description names the line and says what is wrong.
public enum HistoryError: Error, Equatable, CustomStringConvertible {
    /// Line `line` (1-based) is not a history event; `column` is the 1-based byte where reading stopped.
    case malformed(line: Int, column: Int, message: String)
    case unreadable(path: String, message: String)

    public var description: String {
        switch self {
        case let .malformed(line, column, message):
            return "history line \(line), column \(column): \(message)"
        case let .unreadable(path, message):
            return "cannot read history \(path): \(message)"
        }
    }
}

/// Decodes `history.jsonl`: one JSON object per line, blank lines ignored.
///
/// A hand-written scanner for the fixed shape of history lines: unknown keys are skipped (servers may put more in a
/// view, such as `capabilities` or `activeMembers`), unknown values of known enums are errors.
public enum HistoryReader {
    public static func read(contentsOf url: URL) throws -> [HistoryEvent] {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw HistoryError.unreadable(path: url.path, message: "\(error.localizedDescription)")
        }
        return try data.withUnsafeBytes { raw in
            try parse(buffer: UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: raw.count))
        }
    }

    public static func parse(lines: some Sequence<Substring>) throws -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        var number = 0
        for var line in lines {
            number += 1
            let event = try line.withUTF8 { try parseLine($0, number: number) }
            if let event { events.append(event) }
        }
        return events
    }

    /// Parses a whole file's bytes, splitting at newlines.
    static func parse(buffer: UnsafeBufferPointer<UInt8>) throws -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        events.reserveCapacity(buffer.count / 160)
        guard let base = buffer.baseAddress else { return events }
        var start = 0
        var number = 0
        let end = buffer.count
        while start < end {
            number += 1
            let rest = end - start
            let stop: Int
            if let nl = memchr(base + start, 0x0A, rest) {
                stop = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            } else {
                stop = end
            }
            let line = UnsafeBufferPointer(start: base + start, count: stop - start)
            if let event = try parseLine(line, number: number) { events.append(event) }
            start = stop + 1
        }
        return events
    }

    /// One line; nil for a blank one.
    static func parseLine(_ bytes: UnsafeBufferPointer<UInt8>, number: Int) throws -> HistoryEvent? {
        var s = JSONScanner(bytes: bytes, line: number)
        s.skipSpace()
        if s.atEnd { return nil }
        let fields = try s.readEvent()
        s.skipSpace()
        guard s.atEnd else { throw s.error("unexpected text after the object") }
        return try fields.event(line: number, scanner: s)
    }
}

// MARK: - Fields of one line

/// Every key a history line may carry, gathered before the line's type decides which are required.
/// One stored property per key of the history format (docs/CHECKER.md), so more than 15 on purpose: a line is
/// scanned once into this flat value on the checker's hot path (a million lines per run).
struct LineFields {
    var t: UInt64?
    var type: String?
    var op: Int?
    var device: String?
    var kind: String?
    var conversation: String?
    var with: String?
    var member: String?
    var outcome: String?
    var reason: String?
    var view: ConversationView?
    var split: ConversationView?
    var event: String?
    var into: String?
    var server: ConversationView?
    var local: LocalView?
    var call: Int?
    var step: String?
    var race: String?
    var offset: Int?

    func event(line: Int, scanner s: JSONScanner) throws -> HistoryEvent {
        guard let type else { throw s.error("missing \"type\"") }
        guard let t else { throw s.error("missing \"t\"") }
        func need<T>(_ value: T?, _ key: String) throws -> T {
            guard let value else { throw s.error("\(type) line without \"\(key)\"") }
            return value
        }
        let body: HistoryEvent.Body
        switch type {
        case "invoke":
            let kindText = try need(kind, "kind")
            guard let k = ActionKind(rawValue: kindText) else {
                throw s.error("unknown kind \"\(kindText)\" (start, join, end, pause, resume, merge, unmerge)")
            }
            if k != .start, conversation == nil { throw s.error("\(kindText) invoke without \"conversation\"") }
            body = .invoke(Invoke(op: try need(op, "op"), device: try need(device, "device"), kind: k,
                                  conversation: conversation, with: with, member: member, call: call, step: step,
                                  race: race, offset: offset.map(Int64.init)))
        case "complete":
            let text = try need(outcome, "outcome")
            guard let o = Outcome(rawValue: text) else { throw s.error("unknown outcome \"\(text)\" (ok, fail, info)") }
            body = .complete(Complete(op: try need(op, "op"), outcome: o, conversation: conversation, reason: reason,
                                      view: view, split: split))
        case "push":
            let text = try need(event, "event")
            guard let e = PushEvent(rawValue: text) else {
                throw s.error("unknown push event \"\(text)\" (joined, updated, ended, merged, split, voip)")
            }
            body = .push(Push(device: try need(device, "device"), event: e, conversation: conversation, into: into,
                              view: view))
        case "final":
            body = .final(Final(device: try need(device, "device"), conversation: try need(conversation, "conversation"),
                                server: server, local: try need(local, "local")))
        case "stop":
            body = .stop
        case "target_killed":
            body = .targetKilled
        default:
            throw s.error("unknown type \"\(type)\" (invoke, complete, push, final, stop, target_killed)")
        }
        return HistoryEvent(t: t, line: line, body)
    }
}

// MARK: - Scanner

/// A cursor over one line's bytes; every error carries the line and column.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let line: Int
    var pos = 0

    init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        self.bytes = bytes
        self.line = line
    }

    var atEnd: Bool { pos >= bytes.count }

    func error(_ message: String) -> HistoryError {
        .malformed(line: line, column: pos + 1, message: message)
    }

    mutating func skipSpace() {
        while pos < bytes.count {
            let b = bytes[pos]
            if b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A { pos += 1 } else { return }
        }
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard pos < bytes.count, bytes[pos] == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        pos += 1
    }

    /// Consumes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        if pos < bytes.count, bytes[pos] == byte {
            pos += 1
            return true
        }
        return false
    }

    var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    /// Calls `body` for each key of an object, with the scanner positioned at the value.
    mutating func object(_ body: (inout JSONScanner, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return }
        repeat {
            skipSpace()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            try body(&self, key)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout JSONScanner) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if take(UInt8(ascii: "]")) { return }
        repeat {
            skipSpace()
            try body(&self)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    mutating func string() throws -> String {
        guard peek == UInt8(ascii: "\"") else { throw error("expected a string") }
        pos += 1
        let start = pos
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
                pos += 1
                return s
            }
            if b == UInt8(ascii: "\\") { pos = start; return try escapedString() }
            pos += 1
        }
        throw error("unterminated string")
    }

    /// The slow path, for strings with escapes; `pos` is just after the opening quote.
    private mutating func escapedString() throws -> String {
        var out: [UInt8] = []
        while pos < bytes.count {
            let b = bytes[pos]
            pos += 1
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard pos < bytes.count else { throw error("unterminated string") }
                let e = bytes[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard pos + 4 <= bytes.count,
                          let code = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[pos..<pos + 4]),
                                                   as: UTF8.self), radix: 16)
                    else { throw error("bad \\u escape") }
                    pos += 4
                    // Surrogate halves are replaced rather than paired: ids and reasons are ASCII in practice.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(e)
                }
            default:
                out.append(b)
            }
        }
        throw error("unterminated string")
    }

    mutating func integer() throws -> Int {
        skipSpace()
        var negative = false
        if peek == UInt8(ascii: "-") { negative = true; pos += 1 }
        let start = pos
        var value = 0
        while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(bytes[pos] - 0x30))
            if o1 || o2 { throw error("number too large") }
            value = a
            pos += 1
        }
        if pos == start { throw error("expected a number") }
        if let p = peek, p == UInt8(ascii: ".") || p == UInt8(ascii: "e") || p == UInt8(ascii: "E") {
            throw error("expected an integer")
        }
        return negative ? -value : value
    }

    mutating func bool() throws -> Bool {
        if match("true") { return true }
        if match("false") { return false }
        throw error("expected true or false")
    }

    /// True (and consumed) when `null` is next.
    mutating func null() -> Bool { match("null") }

    private mutating func match(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + n <= bytes.count else { return false }
        let w = word.utf8Start
        for i in 0..<n where bytes[pos + i] != w[i] { return false }
        pos += n
        return true
    }

    /// Skips any JSON value.
    mutating func skipValue() throws {
        skipSpace()
        guard let b = peek else { throw error("expected a value") }
        switch b {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"): try object { s, _ in try s.skipValue() }
        case UInt8(ascii: "["): try array { s in try s.skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw error("expected a value") }
        default:
            let start = pos
            while pos < bytes.count {
                let c = bytes[pos]
                if (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                    || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                    pos += 1
                } else { break }
            }
            if pos == start { throw error("expected a value") }
        }
    }

    /// A string, or nil for `null`.
    mutating func optionalString() throws -> String? {
        if null() { return nil }
        return try string()
    }

    // MARK: - History shapes

    mutating func readEvent() throws -> LineFields {
        var f = LineFields()
        try object { s, key in
            switch key {
            case "t":
                let v = try s.integer()
                guard v >= 0 else { throw s.error("\"t\" is negative") }
                f.t = UInt64(v)
            case "type": f.type = try s.string()
            case "op": f.op = try s.integer()
            case "device": f.device = try s.string()
            case "kind": f.kind = try s.string()
            case "conversation": f.conversation = try s.optionalString()
            case "with": f.with = try s.optionalString()
            case "member": f.member = try s.optionalString()
            case "outcome": f.outcome = try s.string()
            case "reason": f.reason = try s.optionalString()
            case "event": f.event = try s.string()
            case "into": f.into = try s.optionalString()
            case "view": f.view = try s.optionalView()
            case "split": f.split = try s.optionalView()
            case "server": f.server = try s.optionalView()
            case "local": f.local = try s.localView()
            case "call": f.call = try s.integer()
            case "step": f.step = try s.optionalString()
            case "race": f.race = try s.optionalString()
            case "offset": f.offset = try s.integer()
            default: try s.skipValue()
            }
        }
        return f
    }

    mutating func optionalView() throws -> ConversationView? {
        if null() { return nil }
        var id: String?
        var version: Int?
        var ended = false
        var members: [ConversationView.Member] = []
        try object { s, key in
            switch key {
            case "id": id = try s.string()
            case "version": version = try s.integer()
            case "ended": ended = try s.bool()
            case "members":
                try s.array { s in
                    var device: String?
                    var state: MemberState?
                    try s.object { s, key in
                        switch key {
                        case "device": device = try s.string()
                        case "state": state = try s.memberState()
                        default: try s.skipValue()
                        }
                    }
                    guard let device, let state else { throw s.error("a member needs \"device\" and \"state\"") }
                    members.append(.init(device: device, state: state))
                }
            default: try s.skipValue()
            }
        }
        guard let id else { throw error("a view without \"id\"") }
        // A server whose views carry no version (a mapping without one) writes none.
        var view = ConversationView(uuid: id, version: version ?? 0, ended: ended, members: members)
        view.hasVersion = version != nil
        return view
    }

    mutating func memberState() throws -> MemberState {
        let text = try string()
        guard let state = MemberState(rawValue: text) else {
            throw error("unknown member state \"\(text)\" (ringing, joined, held, left)")
        }
        return state
    }

    mutating func localView() throws -> LocalView {
        var state: MemberState?
        var members: [String] = []
        var active: [String] = []
        try object { s, key in
            switch key {
            case "state": state = try s.memberState()
            case "members": try s.array { s in members.append(try s.string()) }
            case "active": try s.array { s in active.append(try s.string()) }
            default: try s.skipValue()
            }
        }
        guard let state else { throw error("\"local\" without \"state\"") }
        return LocalView(state: state, members: members, active: active)
    }
}
