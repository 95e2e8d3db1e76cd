/// Writes a message's pieces through a pointer into an array's room, which the caller sized first
/// (`Array(room:_:)`): the serializer's and the SDP body's one cursor.
/// `Array.append(contentsOf:)` cost ~130 instructions for each of a message's pieces (issue 33).
struct RoomWriter {
    let out: UnsafeMutableBufferPointer<UInt8>
    /// Bytes written so far: the array's count when the caller's closure ends.
    var n = 0
    /// How far the writer may go, `out.count` unless set lower; checked by the writers that are not sized exactly
    /// by their caller (`put(_:)` of strings and byte arrays, `put(decimal:)` is not).
    var limit: Int

    init(_ out: UnsafeMutableBufferPointer<UInt8>) {
        self.out = out
        limit = out.count
    }

    mutating func put(_ text: StaticString) {
        (out.baseAddress! + n).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        n += text.utf8CodeUnitCount
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        (out.baseAddress! + n).update(from: base, count: bytes.count)
        n += bytes.count
    }

    /// A string's bytes, borrowed (`ValueBytes.with`).
    mutating func put(_ text: String) { ValueBytes.with(text) { put($0) } }

    /// A string's bytes, checked against `limit` (the room was counted by a caller, from the same strings).
    mutating func put(checked text: String) { ValueBytes.with(text) { put(checked: $0) } }

    /// An array's bytes, checked against `limit`.
    mutating func put(checked bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put(checked: $0) } }

    mutating func put(checked bytes: UnsafeBufferPointer<UInt8>) {
        precondition(n + bytes.count <= limit, "a writer's room is too small")
        put(bytes)
    }

    mutating func put(byte: UInt8) {
        out[n] = byte
        n += 1
    }

    /// `number`'s decimal digits, a `-` first when negative.
    mutating func put(decimal number: some BinaryInteger) {
        if number < 0 { put(byte: 0x2D) }
        var v = number.magnitude
        let from = n
        repeat {
            out[n] = UInt8(truncatingIfNeeded: v % 10) + 0x30
            n += 1
            v /= 10
        } while v > 0
        out[from..<n].reverse()
    }
}

extension Array where Element: BitwiseCopyable {
    /// An array whose first elements `fill` writes into room for `room` of them, returning how many it wrote:
    /// what `[Element](unsafeUninitializedCapacity:initializingWith:)` does, without its cost. That initializer
    /// reaches the standard library's unspecialized `_allocateBufferUninitialized`, which looks the storage's
    /// generic metadata up on every call (~520 of its ~640 instructions; 47 arrays a hold call: every serialized
    /// message, response head, in-dialog request and SDP body; issue 33). Here the room is reserved through the
    /// specialized path and counted in without being written (`Unfilled`, for elements with nothing to
    /// initialize), `fill` writes through the array's own buffer, and what it left is cut off. (A sequence that
    /// ran `fill` from `append(contentsOf:)` made a heap box of every variable its closure changed.)
    init(room: Int, _ fill: (UnsafeMutableBufferPointer<Element>) -> Int) {
        self = []
        reserveCapacity(room)
        append(contentsOf: Unfilled<Element>(count: room))
        let n = withUnsafeMutableBufferPointer { fill($0) }
        precondition(n >= 0 && n <= room, "a writer went past its room")
        removeLast(room - n)
    }
}

/// `Array(room:_:)`'s sequence: `count` places taken in an array's free room and left as they are (`fill` writes
/// them next); it has no elements to iterate.
private struct Unfilled<Element>: Sequence {
    let count: Int

    func makeIterator() -> EmptyCollection<Element>.Iterator { EmptyCollection<Element>.Iterator() }

    var underestimatedCount: Int { count }

    func _copyContents(initializing free: UnsafeMutableBufferPointer<Element>)
        -> (EmptyCollection<Element>.Iterator, Int) {
        precondition(free.count >= count, "an array's reserved room is too small")
        return (EmptyCollection<Element>.Iterator(), count)
    }
}
