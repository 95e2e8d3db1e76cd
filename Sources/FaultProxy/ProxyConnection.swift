import Bytes
import SystemCalls

/// One direction of a proxied connection: the toxic chain and the bytes released to the receiving socket.
final class ProxyFlow {
    let pipeline: Pipeline
    /// The sending socket has not yet given EOF.
    var inputOpen = true
    /// Released bytes the receiving socket has not taken yet.
    var writeBuffer = ByteQueue()
    /// What follows the buffered bytes: `.end` (shut down the receiver's side) or `.close` (the connection).
    private(set) var terminal: Emission?
    /// `shutdown(SHUT_WR)` has been done on the receiving socket.
    var outputShut = false

    init(pipeline: Pipeline) { self.pipeline = pipeline }

    var unwritten: Int { writeBuffer.count }
    var isIdle: Bool { unwritten == 0 && pipeline.isIdle }

    /// Takes what the chain released into the write buffer. Nothing after an end or a close counts.
    func collect() {
        while let emission = pipeline.output.popFirst() {
            guard terminal == nil else { continue }
            switch emission {
            case .data(let bytes): writeBuffer.append(bytes)
            case .end, .close: terminal = emission
            }
        }
    }

    /// Writes the buffer to `fd` as far as the socket takes it; an emptied buffer keeps up to 256 KiB, and a
    /// buffer that does not empty gives its sent front back every 64 KiB.
    func write(to fd: Int32) -> ByteQueue.Drain {
        writeBuffer.drain(keepingCapacityUpTo: 256 * 1024, compactingAt: 64 * 1024) { SystemCall.send(fd, $0) }
    }
}

/// A client connection accepted by the proxy and its connection to the upstream target.
/// Touched only by the loop thread that owns it.
final class ProxyConnection {
    let id: UInt64
    let clientFD: Int32
    let upstreamFD: Int32
    /// The upstream connect has not completed; bytes for the target wait in `up`.
    var connecting = true
    /// Client → server.
    let up: ProxyFlow
    /// Server → client.
    let down: ProxyFlow
    /// The deadline this connection has in the loop's timer heap, `.max` for none.
    var scheduledAt = UInt64.max
    /// The epoll interest registered for each socket; 0 means not in the epoll set.
    var clientInterest: UInt32 = 0
    var upstreamInterest: UInt32 = 0
    /// Each toxic's decision for this connection (made and logged when it first met the toxic).
    var decided: [String: Bool] = [:]

    init(id: UInt64, clientFD: Int32, upstreamFD: Int32) {
        self.id = id
        self.clientFD = clientFD
        self.upstreamFD = upstreamFD
        up = ProxyFlow(pipeline: Pipeline(flow: .upstream, connection: id))
        down = ProxyFlow(pipeline: Pipeline(flow: .downstream, connection: id))
    }
}
