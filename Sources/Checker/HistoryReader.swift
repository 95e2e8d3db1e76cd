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

/// Decodes `history.jsonl`'s bytes: one JSON object per line, blank lines ignored. No I/O: `HistoryLoading` reads
/// the file.
///
/// A hand-written scanner for the fixed shape of history lines: unknown keys are skipped (servers may put more in a
/// view, such as `capabilities` or `activeMembers`), unknown values of known enums are errors.
public enum HistoryReader {
    public static func parse(lines: some Sequence<Substring>) throws -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        var number = 0
        var texts = TextTable()
        for var line in lines {
            number += 1
            let event = try line.withUTF8 { try parseLine($0, number: number, texts: &texts) }
            if let event { events.append(event) }
        }
        return events
    }

    /// Parses a whole file's bytes, splitting at newlines (`HistoryLoading` maps a file and hands them here).
    ///
    /// `sipMessages: false` reads each `sip` line as before (same errors, same place, time and line number) but
    /// gives it `blankSIP` for payload: no rule reads a `sip` line's texts (only timelines and fault attribution
    /// do), and they were 28 of a hold call's 46 lines, three texts and a box each (~40 k instructions a call in
    /// `callstorm run`'s check; issue 33, round 3). A caller that finds a violation or an injected fault reads
    /// the history again with them.
    public static func parse(buffer: UnsafeBufferPointer<UInt8>, sipMessages: Bool = true) throws -> [HistoryEvent] {
        var pieces = Pieces(sipMessages: sipMessages, expectedBytes: buffer.count)
        try pieces.parse(buffer)
        return pieces.events
    }

    /// A history parsed a piece of its bytes at a time, as `parse(buffer:)` parses them all at once: each piece
    /// but the last ends just after a newline, so the lines, their numbers, the texts and the errors are the same.
    /// `HistoryLoading` reads a file through a few MiB this way rather than mapping it whole: a mapped history's
    /// pages counted in the process's RSS until the check ended (96 MB for a 60 s SIP run at 400 calls/s, on top
    /// of the checker's own memory; docs/CHECKER.md, 2026-12-07).
    public struct Pieces {
        public private(set) var events: [HistoryEvent] = []
        private var number = 0
        /// Optional so that `parse` can move it out for its loop and back without making another.
        private var texts: TextTable? = TextTable()
        private let sipMessages: Bool

        /// `expectedBytes`: the whole history's size, for the events' room.
        public init(sipMessages: Bool = true, expectedBytes: Int = 0) {
            self.sipMessages = sipMessages
            // A SIP run's lines average ~120 bytes: a sixth more room than that, where `/ 160` regrew the array once.
            events.reserveCapacity(expectedBytes / 100)
        }

        /// Parses `buffer`'s lines, splitting at newlines; a last line without its newline is a line. The state is
        /// moved into locals for the loop and back (read and written through `self` at each line, parsing cost
        /// ~0.7 k instructions a SIP call more than the one-buffer loop did).
        public mutating func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws {
            guard let base = buffer.baseAddress else { return }
            var events = self.events, number = self.number, texts = self.texts.take() ?? TextTable()
            self.events = []
            defer { (self.events, self.number, self.texts) = (events, number, texts) }
            var start = 0
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
                if let event = try parseLine(line, number: number, texts: &texts, sipMessages: sipMessages) {
                    events.append(event)
                }
                start = stop + 1
            }
        }
    }

    /// One line; nil for a blank one. `texts` hands out the fixed-shape lines' texts (`TextTable`).
    static func parseLine(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, texts: inout TextTable,
                          sipMessages: Bool = true) throws -> HistoryEvent? {
        if let event = fixedLine(bytes, number: number, texts: &texts, sipMessages: sipMessages) { return event }
        return try generalLine(bytes, number: number, sipMessages: sipMessages)
    }

    /// One line through the general scanner, whatever its shape: what `fixedLine` must agree with wherever it
    /// reads a line (the tests and the `history` fuzz target hold it to that).
    static func generalLine(_ bytes: UnsafeBufferPointer<UInt8>, number: Int,
                            sipMessages: Bool = true) throws -> HistoryEvent? {
        var s = JSONScanner(bytes: bytes, line: number)
        s.skipSpace()
        if s.atEnd { return nil }
        var fields = try s.readEvent()
        s.skipSpace()
        guard s.atEnd else { throw s.error("unexpected text after the object") }
        var event = try fields.event(line: number, scanner: s)
        if !sipMessages, case .sip = event.body { event.body = blankSIP }
        return event
    }

    /// The payload of every `sip` line read with `sipMessages: false`: one box shared by all of them (a retain a
    /// line instead of an allocation and three texts).
    public static let blankSIP = HistoryEvent.Body.sip(SIPLine(device: "", conversation: "", sent: false,
                                                               message: ""))
}

// MARK: - Fields of one line

/// Every key a history line may carry, gathered before the line's type decides which are required.
/// One stored property per key of the history format (docs/CHECKER.md), so more than 15 on purpose: a line is
/// scanned once into this flat value on the checker's hot path (a million lines per run).
struct LineFields {
    var t: UInt64?
    var type: Named<LineType>?
    var op: Int?
    var device: String?
    var kind: Named<ActionKind>?
    var conversation: String?
    var with: String?
    var member: String?
    var outcome: Named<Outcome>?
    var reason: String?
    var view: ConversationView?
    var split: ConversationView?
    var event: Named<PushEvent>?
    var into: String?
    var server: ConversationView?
    var local: LocalView?
    var call: Int?
    var step: String?
    var race: String?
    var offset: Int?
    /// SIP lines: a message's direction and words, a dialog's state.
    var sent: Bool?
    var message: String?
    var state: Named<DialogState>?
    /// The device's user (`users:`); absent in histories without users.
    var user: String?

    /// The line's event, its texts and views moved out of the fields (`take()`), not copied and then released with
    /// them: a retain and a release per text a line, ~5 % of reading a history.
    mutating func event(line: Int, scanner s: JSONScanner) throws -> HistoryEvent {
        guard let typeName = type else { throw s.error("missing \"type\"") }
        guard let t else { throw s.error("missing \"t\"") }
        let type = try typeName.value(s) {
            "unknown type \"\($0)\" (invoke, complete, push, final, stop, target_killed, sip, dialog, media)"
        }
        func need<T>(_ value: T?, _ key: String) throws -> T {
            guard let value else { throw s.error("\(type.rawValue) line without \"\(key)\"") }
            return value
        }
        let body: HistoryEvent.Body
        switch type {
        case .invoke:
            let k = try need(kind, "kind").value(s) {
                "unknown kind \"\($0)\" (start, join, end, pause, resume, merge, unmerge)"
            }
            if k != .start, conversation == nil { throw s.error("\(k.rawValue) invoke without \"conversation\"") }
            body = .invoke(Invoke(op: try need(op, "op"), device: try need(device.take(), "device"), kind: k,
                                  conversation: conversation.take(), with: with.take(), member: member.take(),
                                  call: call, step: step.take(), race: race.take(), offset: offset.map(Int64.init),
                                  user: user.take()))
        case .complete:
            let o = try need(outcome, "outcome").value(s) { "unknown outcome \"\($0)\" (ok, fail, info)" }
            body = .complete(Complete(op: try need(op, "op"), outcome: o, conversation: conversation.take(),
                                      reason: reason.take(), view: view.take(), split: split.take()))
        case .push:
            let e = try need(event, "event").value(s) {
                "unknown push event \"\($0)\" (joined, updated, ended, merged, split, voip)"
            }
            body = .push(Push(device: try need(device.take(), "device"), event: e, conversation: conversation.take(),
                              into: into.take(), view: view.take(), user: user.take(), reason: reason.take()))
        case .final:
            body = .final(Final(device: try need(device.take(), "device"),
                                conversation: try need(conversation.take(), "conversation"),
                                server: server.take(), local: try need(local.take(), "local"), user: user.take()))
        case .stop:
            body = .stop
        case .targetKilled:
            body = .targetKilled
        case .sip:
            body = .sip(SIPLine(device: try need(device.take(), "device"),
                                conversation: try need(conversation.take(), "conversation"),
                                sent: try need(sent, "sent"), message: try need(message.take(), "message")))
        case .dialog:
            let state = try need(self.state, "state").value(s) {
                "unknown dialog state \"\($0)\" (early, confirmed, held, terminated)"
            }
            body = .dialog(DialogLine(device: try need(device.take(), "device"),
                                      conversation: try need(conversation.take(), "conversation"), state: state,
                                      reason: reason.take(), call: call, user: user.take()))
        case .media:
            let text = try need(reason.take(), "reason")
            guard let finding = MediaFinding(rawValue: text) else {
                throw s.error("unknown media finding \"\(text)\" (silent, flowing_while_held)")
            }
            body = .media(MediaLine(device: try need(device.take(), "device"),
                                    conversation: try need(conversation.take(), "conversation"), finding: finding,
                                    call: call))
        }
        return HistoryEvent(t: t, line: line, body)
    }
}

