import CallModel
import Foundation
import TextEscaping

/// The reader's fast paths for `sip` lines, most of a SIP run's history (28 of a hold call's 46 lines) and read by no
/// rule (timelines and fault attribution only): a line in exactly the shape `HistoryText.sip` writes, with no escape
/// in its texts, is read by comparing its fixed bytes instead of through the general scanner (the keys matched one by
/// one, a `LineFields` filled and emptied). Any other line, a `sip` line written another way included, returns nil
/// and goes through the general path, so what a line reads as and every error stay as they were.
extension HistoryReader {
    /// A `sip` line after its head (`FixedLine.head`).
    static func sipLine(_ cursor: inout FixedLine, t: UInt64, number: Int, texts: inout TextTable,
                        messages: Bool = true) -> HistoryEvent? {
        guard messages else { return blankSIPLine(&cursor, t: t, number: number) }
        guard cursor.literal("sip\",\"device\":\""), let device = cursor.text(&texts),
              cursor.literal(",\"conversation\":\""), let conversation = cursor.text(&texts) else { return nil }
        let sent: Bool
        if cursor.literal(",\"sent\":true,\"message\":\"") {
            sent = true
        } else if cursor.literal(",\"sent\":false,\"message\":\"") {
            sent = false
        } else {
            return nil
        }
        guard let message = cursor.text(&texts), cursor.literal("}"), cursor.atEnd else { return nil }
        return HistoryEvent(t: t, line: number,
                            .sip(SIPLine(device: device, conversation: conversation, sent: sent, message: message)))
    }

    /// `sipLine` for `parse(buffer:sipMessages: false)`: the same shape matched, the texts checked but not made.
    static func blankSIPLine(_ cursor: inout FixedLine, t: UInt64, number: Int) -> HistoryEvent? {
        guard cursor.literal("sip\",\"device\":\""), cursor.skipText(),
              cursor.literal(",\"conversation\":\""), cursor.skipText() else { return nil }
        guard cursor.literal(",\"sent\":true,\"message\":\"") || cursor.literal(",\"sent\":false,\"message\":\""),
              cursor.skipText(), cursor.literal("}"), cursor.atEnd else { return nil }
        return HistoryEvent(t: t, line: number, blankSIP)
    }
}

extension HistoryReader {
    /// After its head (`FixedLine.head`), the same for `dialog` lines in `HistoryText.dialog`'s shape (8 of a
    /// hold call's 46), their optional `user`, `reason` and `call` included; a state word that names none goes to
    /// the general path, which names it.
    static func dialogLine(_ cursor: inout FixedLine, t: UInt64, number: Int,
                           texts: inout TextTable) -> HistoryEvent? {
        guard cursor.literal("dialog\",\"device\":\""), let device = cursor.text(&texts) else { return nil }
        var user: String?
        if cursor.literal(",\"user\":\"") {
            guard let text = cursor.text(&texts) else { return nil }
            user = text
        }
        guard cursor.literal(",\"conversation\":\""), let conversation = cursor.text(&texts),
              cursor.literal(",\"state\":\""), let state = cursor.word(HistoryNames.dialogStates) else { return nil }
        var reason: String?
        if cursor.literal(",\"reason\":\"") {
            guard let text = cursor.text(&texts) else { return nil }
            reason = text
        }
        var call: Int?
        if cursor.literal(",\"call\":") {
            guard let digits = cursor.digits() else { return nil }
            call = Int(digits)
        }
        guard cursor.literal("}"), cursor.atEnd else { return nil }
        return HistoryEvent(t: t, line: number, .dialog(DialogLine(device: device, conversation: conversation,
                                                                   state: state, reason: reason, call: call,
                                                                   user: user)))
    }
}

extension HistoryReader {
    /// After its head (`FixedLine.head`), the same for `invoke` lines in `HistoryText.invoke`'s shape; a
    /// negative `offset`, an unknown kind or a non-`start` invoke without a conversation goes to the general path.
    static func invokeLine(_ c: inout FixedLine, t: UInt64, number: Int, texts: inout TextTable) -> HistoryEvent? {
        guard c.literal("invoke\",\"op\":"), let op = c.digits(), c.literal(",\"device\":\""),
              let device = c.text(&texts) else { return nil }
        var inv = Invoke(op: Int(op), device: device, kind: .start)
        guard c.optionalText(",\"user\":\"", into: &inv.user, &texts), c.literal(",\"kind\":\""),
              let kind = c.word(HistoryNames.kinds),
              c.optionalText(",\"conversation\":\"", into: &inv.conversation, &texts),
              c.optionalText(",\"with\":\"", into: &inv.with, &texts),
              c.optionalText(",\"member\":\"", into: &inv.member, &texts) else { return nil }
        inv.kind = kind
        if c.literal(",\"call\":") {
            guard let call = c.digits() else { return nil }
            inv.call = Int(call)
        }
        guard c.optionalText(",\"step\":\"", into: &inv.step, &texts),
              c.optionalText(",\"race\":\"", into: &inv.race, &texts) else { return nil }
        if inv.race != nil {
            guard c.literal(",\"offset\":"), let offset = c.digits() else { return nil }
            inv.offset = Int64(offset)
        }
        guard c.literal("}"), c.atEnd, kind == .start || inv.conversation != nil else { return nil }
        return HistoryEvent(t: t, line: number, .invoke(inv))
    }

    /// After its head (`FixedLine.head`), the same for `complete` lines, with views in `HistoryText.view`'s shape
    /// (HistoryReader+ViewLines.swift) or without (a SIP call's).
    static func completeLine(_ c: inout FixedLine, t: UInt64, number: Int,
                             texts: inout TextTable) -> HistoryEvent? {
        var reason: String?
        var conversation: String?
        var view: ConversationView?
        var split: ConversationView?
        guard c.literal("complete\",\"op\":"), let op = c.digits(), c.literal(",\"outcome\":\""),
              let outcome = c.word(HistoryNames.outcomes),
              c.optionalText(",\"reason\":\"", into: &reason, &texts),
              c.optionalText(",\"conversation\":\"", into: &conversation, &texts),
              c.optionalView(",\"view\":", into: &view, &texts), c.optionalView(",\"split\":", into: &split, &texts),
              c.literal("}"), c.atEnd else { return nil }
        return HistoryEvent(t: t, line: number, .complete(Complete(op: Int(op), outcome: outcome,
                                                                   conversation: conversation, reason: reason,
                                                                   view: view, split: split)))
    }

    /// The line's event when it is in one of the shapes above, nil for the general path. The type is told by
    /// the byte after `{"t":<digits>,"type":"`.
    static func fixedLine(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, texts: inout TextTable,
                          sipMessages: Bool = true) -> HistoryEvent? {
        // The head read once, each shape going on from after it.
        guard var (c, t) = FixedLine.head(bytes), c.pos < c.count else { return nil }
        switch c.base[c.pos] {
        case UInt8(ascii: "s"): return sipLine(&c, t: t, number: number, texts: &texts, messages: sipMessages)
        case UInt8(ascii: "d"): return dialogLine(&c, t: t, number: number, texts: &texts)
        case UInt8(ascii: "i"): return invokeLine(&c, t: t, number: number, texts: &texts)
        case UInt8(ascii: "c"): return completeLine(&c, t: t, number: number, texts: &texts)
        case UInt8(ascii: "p"): return pushLine(&c, t: t, number: number, texts: &texts)
        case UInt8(ascii: "f"): return finalLine(&c, t: t, number: number, texts: &texts)
        default: return nil
        }
    }
}

/// A cursor over a line whose shape is known: each step either matches and moves on, or says no.
struct FixedLine {
    let base: UnsafePointer<UInt8>
    let count: Int
    var pos = 0

    var atEnd: Bool { pos == count }

    /// A line's `{"t":<digits>,"type":"`: the cursor after it, and the time; nil for a line that starts otherwise.
    static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> (FixedLine, UInt64)? {
        guard let base = bytes.baseAddress else { return nil }
        var c = FixedLine(base: base, count: bytes.count)
        guard c.literal("{\"t\":"), let t = c.digits(), c.literal(",\"type\":\"") else { return nil }
        return (c, t)
    }

    /// Consumes `word`'s bytes if they come next.
    @inline(__always)
    mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard count - pos >= n, memcmp(base + pos, word.utf8Start, n) == 0 else { return false }
        pos += n
        return true
    }

    /// One to 18 decimal digits (no overflow possible); nil when there are none. More digits leave the 19th next,
    /// where the caller's next literal fails.
    mutating func digits() -> UInt64? {
        let start = pos
        var value: UInt64 = 0
        // Eight at a time while eight more stay within the 18 (a history time has ~10 digits, 46 a SIP call).
        while pos + 8 <= count, pos - start <= 10, let eight = DecimalDigits.eight(base + pos) {
            value = value &* 100_000_000 &+ eight
            pos += 8
        }
        while pos < count, pos - start < 18 {
            let d = base[pos] &- 0x30
            guard d < 10 else { break }
            value = value &* 10 &+ UInt64(d)
            pos += 1
        }
        return pos > start ? value : nil
    }

    /// The text up to the next quote, which is consumed (the opening one is part of the literal before); nil for a
    /// text with an escape or without its closing quote. Decoded as the general reader decodes it.
    mutating func text(_ texts: inout TextTable) -> String? {
        let start = pos
        guard skipText() else { return nil }
        return texts.string(base + start, count: pos - 1 - start)
    }

    /// Moves past a plain text and its closing quote, as `text` does, without making its `String`; false (the
    /// cursor unmoved) where `text` returns nil.
    mutating func skipText() -> Bool {
        // Two `memchr`s (the quote, then a backslash before it) instead of a loop over each byte: a Call-ID is ~20.
        // (An eight-bytes-a-step scan for either byte, `ByteWords`, was tried: ~82 instructions a text against
        // ~75 for the two calls on a SIP call's 5-to-21-byte texts, so it was not kept; issue 33, s52.)
        let start = pos
        guard let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), count - start) else { return false }
        let end = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
        guard memchr(base + start, Int32(UInt8(ascii: "\\")), end - start) == nil else { return false }
        pos = end + 1
        return true
    }

    /// When `key` (with the text's opening quote) comes next, the text after it into `value`: false when the key
    /// is there but the text is not plain; true, `value` untouched, when the key is not there.
    mutating func optionalText(_ key: StaticString, into value: inout String?, _ texts: inout TextTable) -> Bool {
        guard literal(key) else { return true }
        guard let text = text(&texts) else { return false }
        value = text
        return true
    }

    /// One of `names`' words up to the next quote, which is consumed; nil for any other text.
    mutating func word<Value>(_ names: ByteNames<Value>) -> Value? {
        let start = pos
        while pos < count, base[pos] != UInt8(ascii: "\""), base[pos] != UInt8(ascii: "\\") { pos += 1 }
        guard pos < count, base[pos] == UInt8(ascii: "\""),
              let value = names.find(UnsafeBufferPointer(start: base + start, count: pos - start)) else { return nil }
        pos += 1
        return value
    }
}
