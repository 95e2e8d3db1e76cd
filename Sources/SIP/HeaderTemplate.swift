/// A header value as bytes with slots: the parts fixed for a user agent (its Via's transport and sent-by, its
/// Contact, its address of record) written once, the parts that change per message (a branch, a tag) filled in
/// when a message is built. Written with string interpolation, `slot` marking each place:
///
///     let via: SIPHeaderTemplate = "SIP/2.0/UDP \(host):\(port);branch=\(.slot);rport"
///     via.render("z9hG4bK1")
///
/// Why bytes: a message's fixed header text is the same on every message an agent sends, so it is laid out once
/// and copied into the message's head (`SIPMessage.appendLines`), which the serializer copies into the datagram,
/// instead of concatenating `String`s on every request and answer. A template may hold whole header lines
/// (`Via: …\r\nFrom: …\r\n`): `SIPLocalHeaders` keeps an agent's INVITE and REGISTER heads that way.
public struct SIPHeaderTemplate: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The fixed bytes, slots left out. Written inside the module only where the bytes stay the same length and
    /// the slots where they are (`SIPLocalHeaders.move(toPort:)`: a port's digits over as many old ones).
    public internal(set) var bytes: [UInt8]
    /// Where each slot's value goes, as offsets into `bytes`, in slot order (never decreasing).
    public let slots: [Int]

    /// The marker of a slot inside a template's interpolation.
    public struct Slot: Sendable {
        init() {}
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var bytes: [UInt8] = []
        var slots: [Int] = []

        public init(literalCapacity: Int, interpolationCount: Int) { bytes.reserveCapacity(literalCapacity + 32) }

        public mutating func appendLiteral(_ literal: String) { bytes.appendUTF8(literal) }

        /// Fixed text (a host, a transport): part of the template, not a slot.
        public mutating func appendInterpolation(_ text: String) { bytes.appendUTF8(text) }

        public mutating func appendInterpolation(_ number: Int) { bytes.appendUTF8(String(number)) }

        public mutating func appendInterpolation(_ slot: Slot) { slots.append(bytes.count) }
    }

    public init(stringLiteral value: String) {
        bytes = Array(value.utf8)
        slots = []
    }

    public init(stringInterpolation: StringInterpolation) {
        bytes = stringInterpolation.bytes
        slots = stringInterpolation.slots
    }

    /// A template from its bytes and slot offsets, laid out by a caller (`SIPLocalHeaders`).
    init(bytes: [UInt8], slots: [Int]) {
        precondition(zip(slots, slots.dropFirst()).allSatisfy { $0 <= $1 } && (slots.last ?? 0) <= bytes.count,
                     "a template's slots are offsets into its bytes, in order")
        self.bytes = bytes
        self.slots = slots
    }

    /// The value with `values` in its slots, in order; exactly one value per slot.
    public func write(_ values: [String], into out: inout [UInt8]) {
        precondition(values.count == slots.count, "a template's slots and values must pair up")
        write(into: &out) { slot, out in out.appendUTF8(values[slot]) }
    }

    /// The template with slot `k` filled by `fill(k, &out)`: the send path's writer, no array of values built.
    public func write(into out: inout [UInt8], _ fill: (Int, inout [UInt8]) -> Void) {
        bytes.withUnsafeBufferPointer { b in
            var from = 0
            for k in slots.indices {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from..<slots[k]]))
                fill(k, &out)
                from = slots[k]
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from...]))
        }
    }

    /// `write(into:_:)` through a cursor into room sized first (`SIPHead.appendLines(room:_:)`): the fixed
    /// parts copied through a pointer, not appended to an array piece by piece.
    func write(into w: inout RoomWriter, _ fill: (Int, inout RoomWriter) -> Void) {
        bytes.withUnsafeBufferPointer { b in
            var from = 0
            for k in slots.indices {
                w.put(checked: UnsafeBufferPointer(rebasing: b[from..<slots[k]]))
                fill(k, &w)
                from = slots[k]
            }
            w.put(checked: UnsafeBufferPointer(rebasing: b[from...]))
        }
    }

    /// `write` with one value per slot, for templates of one to four slots.
    public func write(into out: inout [UInt8], _ a: String) {
        precondition(slots.count == 1, "a template's slots and values must pair up")
        write(into: &out) { _, out in out.appendUTF8(a) }
    }

    public func write(into out: inout [UInt8], _ a: String, _ b: String) {
        precondition(slots.count == 2, "a template's slots and values must pair up")
        write(into: &out) { k, out in out.appendUTF8(k == 0 ? a : b) }
    }

    public func write(into out: inout [UInt8], _ a: String, _ b: String, _ c: String) {
        precondition(slots.count == 3, "a template's slots and values must pair up")
        write(into: &out) { k, out in out.appendUTF8(k == 0 ? a : k == 1 ? b : c) }
    }

    public func write(into out: inout [UInt8], _ a: String, _ b: String, _ c: String, _ d: String) {
        precondition(slots.count == 4, "a template's slots and values must pair up")
        write(into: &out) { k, out in out.appendUTF8(k == 0 ? a : k == 1 ? b : k == 2 ? c : d) }
    }

    /// `write(values)` as a header value.
    public func render(_ values: String...) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 32 * values.count)
        write(values, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension SIPHeaderTemplate.Slot {
    /// Written `\(.slot)` inside a template.
    public static let slot = SIPHeaderTemplate.Slot()
}
