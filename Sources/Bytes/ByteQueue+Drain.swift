/// Writing a queue out: the one flush loop every connection's write buffer goes through.
extension ByteQueue {
    /// What one `drain` did.
    public struct Drain: Equatable, Sendable {
        /// Bytes written.
        public var written: Int
        /// Why it stopped: nil when the queue is empty, `.wouldBlock` when the descriptor took no more (wait for
        /// EPOLLOUT), `.closed` or `.error` when a write failed (the connection must close).
        public var stoppedBy: IOResult?

        @inlinable
        public init(written: Int, stoppedBy: IOResult?) {
            self.written = written
            self.stoppedBy = stoppedBy
        }

        /// Whether any byte went out.
        @inlinable
        public var progressed: Bool { written > 0 }

        /// Whether a write failed: the connection must close.
        @inlinable
        public var failed: Bool {
            switch stoppedBy {
            case .closed?, .error?: return true
            case .bytes?, .wouldBlock?, nil: return false
            }
        }
    }

    /// Writes the readable bytes with `write` (one `send(2)`, `write(2)` or TLS write, an interrupted call
    /// already retried inside it) until the queue is empty, the descriptor would block, or a write fails,
    /// consuming what went out with the owner's memory policy (see `consume`).
    @inlinable
    public mutating func drain(keepingCapacityUpTo keep: Int, compactingAt compactAt: Int = .max,
                               through write: (UnsafeRawBufferPointer) -> IOResult) -> Drain {
        var written = 0
        while !isEmpty {
            let result = withReadableBytes(write)
            guard case .bytes(let count) = result, count > 0 else {
                return Drain(written: written, stoppedBy: result)
            }
            written &+= count
            consume(count, keepingCapacityUpTo: keep, compactingAt: compactAt)
        }
        return Drain(written: written, stoppedBy: nil)
    }
}
