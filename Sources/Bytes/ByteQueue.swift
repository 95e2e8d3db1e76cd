/// Bytes waiting to be parsed or written: one array and a reader index, as swift-nio's `ByteBuffer` keeps them.
///
/// Every connection buffer in callstorm is this value (a read buffer an unfinished request waits in, a write
/// buffer a slow peer has not taken yet, a parser's unframed input), so the rules live here once: bytes go in at
/// the back (`append`), are read in place from the front (`withReadableBytes`), and leave by moving the reader
/// index (`consume`), not by shifting the array. Each owner states its memory policy where it consumes: how much
/// capacity an emptied queue keeps (0 for the tens of thousands of idle sockets that should hold no buffer), and
/// from what reader index the consumed front is given back (`compactingAt`, so a queue that never empties does
/// not grow without bound).
///
/// Cost: no call allocates except to grow the array, and every member is `@inlinable`, so the loops that read
/// and write sockets keep their unchecked pointer access. A value owned by one connection on one thread.
public struct ByteQueue: Sendable {
    @usableFromInline internal var storage: [UInt8]
    @usableFromInline internal var readerIndex: Int

    @inlinable
    public init() {
        storage = []
        readerIndex = 0
    }

    /// A queue holding `bytes` (the array is taken over, not copied).
    @inlinable
    public init(_ bytes: [UInt8]) {
        storage = bytes
        readerIndex = 0
    }

    /// Bytes appended and not yet consumed.
    @inlinable
    public var count: Int { storage.count &- readerIndex }

    @inlinable
    public var isEmpty: Bool { readerIndex == storage.count }

    /// The array's capacity: what the queue holds on to, consumed bytes included.
    @inlinable
    public var capacity: Int { storage.capacity }

    /// The readable bytes as a slice of the array (for copying them out; the hot paths use `withReadableBytes`).
    @inlinable
    public var readable: ArraySlice<UInt8> { storage[readerIndex...] }

    // MARK: - Appending

    @inlinable
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
    }

    @inlinable
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        storage.append(contentsOf: bytes)
    }

    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        storage.append(contentsOf: bytes)
    }

    /// Lets an encoder that writes into `inout [UInt8]` (HTTP/1.1 responses, WebSocket frames) append in place.
    /// Rule: `body` only appends; the bytes already in the array belong to the queue.
    @inlinable
    public mutating func appending<R>(_ body: (inout [UInt8]) throws -> R) rethrows -> R {
        let before = storage.count
        defer { assert(storage.count >= before, "ByteQueue.appending removed bytes") }
        return try body(&storage)
    }

    // MARK: - Reading

    /// Calls `body` with the readable bytes, in place.
    @inlinable
    public func withReadableBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        // Array's withUnsafeBytes has no typed throws; its withUnsafeBufferPointer has, and the bytes are the same.
        try storage.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) throws(E) -> R in
            try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[readerIndex...])))
        }
    }

    /// Calls `body` with the readable bytes, in place, typed as bytes (for parsers).
    @inlinable
    public func withReadableBuffer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) throws(E) -> R in
            try body(UnsafeBufferPointer(rebasing: all[readerIndex...]))
        }
    }

    /// The readable bytes `offset..<offset + count` as a new array (a parser's payload).
    @inlinable
    public func copyBytes(at offset: Int, count: Int) -> [UInt8] {
        let start = readerIndex &+ offset
        return Array(storage[start..<(start &+ count)])
    }

    // MARK: - Consuming

    /// Drops `count` bytes from the front. Once nothing is left the queue empties, keeping its capacity only
    /// when that is at most `keep` bytes; while bytes are left and `compactAt` or more have been consumed, the
    /// consumed front is given back (one move of what is left).
    @inlinable
    public mutating func consume(_ count: Int, keepingCapacityUpTo keep: Int = 0, compactingAt compactAt: Int = .max) {
        precondition(count >= 0 && count <= self.count, "ByteQueue.consume past the readable bytes")
        readerIndex &+= count
        if readerIndex == storage.count {
            removeAll(keepingCapacityUpTo: keep)
        } else if readerIndex >= compactAt {
            compact()
        }
    }

    /// Empties the queue, keeping its capacity only when that is at most `keep` bytes.
    @inlinable
    public mutating func removeAll(keepingCapacityUpTo keep: Int = 0) {
        storage.removeAll(keepingCapacity: storage.capacity <= keep)
        readerIndex = 0
    }

    /// Gives back the consumed front: the readable bytes move to the start of the array.
    @inlinable
    public mutating func compact() {
        guard readerIndex > 0 else { return }
        storage.removeFirst(readerIndex)
        readerIndex = 0
    }

    /// Empties the queue and returns what was readable (the array itself, moved, when nothing was consumed; an
    /// array holding no capacity when nothing was readable).
    @inlinable
    public mutating func takeAll() -> [UInt8] {
        if isEmpty {
            removeAll()
            return []
        }
        compact()
        var taken: [UInt8] = []
        swap(&taken, &storage)
        return taken
    }
}
