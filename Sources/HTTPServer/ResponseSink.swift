import Synchronization

/// What a handler's `respond` closure holds: where the answer goes, and whether it was already given.
///
/// Sendable by construction (immutable fields plus an `Atomic`), because the closure may be called on any
/// thread. It keeps the loop object alive but not the connection: a closed connection or a stopped loop
/// drops the answer.
final class ResponseSink: Sendable {
    private let loop: EventLoop
    private let fd: Int32
    private let connectionID: UInt64
    private let sequence: UInt64
    private let answered = Atomic<Bool>(false)

    init(loop: EventLoop, fd: Int32, connectionID: UInt64, sequence: UInt64) {
        self.loop = loop
        self.fd = fd
        self.connectionID = connectionID
        self.sequence = sequence
    }

    /// Delivers the first answer; later calls are ignored, so a handler that races two paths is harmless.
    func send(_ response: HTTPResponse) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.deliver(EventLoop.Delivery(fd: fd, connectionID: connectionID, sequence: sequence, response: response))
    }
}
