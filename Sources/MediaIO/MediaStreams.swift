import Media

/// Media streams on a worker's loop: the media seam, beside the SIP signaling seam (`SIPAgentPool`). A SIP device
/// opens a stream before it writes its SDP (the stream's local endpoint is the `c=`/`m=` address and port), starts
/// it at the answer with the far end's SDP address and this end's negotiated direction, updates it on each
/// re-INVITE (hold, resume, a new address) and closes it at the end of the call, keeping the final report.
///
/// `UDPMediaStreams` carries the packets over real UDP sockets on the worker's `EventThread`; `MemoryMediaStreams`
/// carries them over a `MediaWire` in memory under a manual clock, where tests drop, delay and reorder. Both drive
/// one `MediaSession` per stream (Sources/Media), so they measure alike.
///
/// Rules every conformer keeps: every call takes the loop's clock reading itself; events (first audio, one-way
/// audio found or over, audio after a resume) are reported through the handler given at creation, on the owner's
/// thread, in the order they happen; the `datagramFilter` decides every RTP datagram sent or read.
/// Thread rule: one owner thread calls everything.
public protocol MediaStreams: AnyObject {
    /// Binds a stream's local port (from the implementation's range); nothing is sent until `start`.
    func open(_ settings: MediaStreamSettings) -> Result<Int, MediaIOError>
    /// Where stream `id` listens: the address and port its SDP names.
    func localEndpoint(_ id: Int) -> MediaEndpoint?
    /// The answer: sends to `remote` every 20 ms while `direction` sends, and watches the far end's audio while it
    /// receives. The first packet goes `sendAfterNanos` after the call (the app's audio session start-up); the
    /// listening starts at once. A second `start` does nothing (use `update`).
    func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, sendAfterNanos: UInt64)
    /// A re-INVITE changed the far end's address or this end's direction (hold: `sendonly`/`recvonly`/`inactive`).
    func update(_ id: Int, remote: MediaEndpoint, direction: MediaDirection)
    /// This end sent a re-INVITE offering `direction` (a resume): audio the answerer sends with its 2xx may arrive
    /// before the 2xx, and is not a held member's (`OneWayAudioDetector.offered`). The direction changes at `update`.
    func offered(_ id: Int, direction: MediaDirection)
    /// What stream `id` has measured so far.
    func report(_ id: Int) -> MediaStreamReport?
    /// Stops stream `id` (nothing sent or judged after), closes its port and returns its final report.
    @discardableResult func close(_ id: Int) -> MediaStreamReport?
    func closeAll()
    /// Datagrams the transport refused to send (the kernel's errors; a closed port on the wire is not one).
    var sendErrors: Int { get }
    /// Decides the fate of every RTP datagram before it is sent or read (a run's media chaos); nil passes all.
    var datagramFilter: MediaDatagramFilter? { get set }
}

extension MediaStreams {
    /// Starts stream `id` sending at once.
    public func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection) {
        start(id, remote: remote, direction: direction, sendAfterNanos: 0)
    }
}

/// What a stream reports: the stream's id and what its `MediaSession` found.
public typealias MediaEventHandler = (_ stream: Int, _ event: MediaEvent) -> Void

/// What happens to one RTP datagram a stream sends or reads.
public enum MediaDatagramFate: Sendable, Equatable {
    case pass
    case drop
    /// Sent, or read, this much later (a delay per packet is jitter; delaying one past the next reorders).
    case delay(nanos: UInt64)
}

/// Called for every datagram before it is sent (`sending`) or read, with its stream's id and its sequence number
/// (0 for bytes that are not RTP).
public typealias MediaDatagramFilter = (_ stream: Int, _ sending: Bool, _ sequence: UInt16) -> MediaDatagramFate

/// An IPv4 address and UDP port, as an SDP `c=` and `m=` line name them.
public struct MediaEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}

/// Why a stream could not be opened or used.
public enum MediaIOError: Error, Equatable, Sendable, CustomStringConvertible {
    case socket(call: String, errno: Int32)
    /// Every even port of the range is taken.
    case noFreePort(ClosedRange<Int>)
    case badAddress(String)

    public var description: String {
        switch self {
        case .socket(let call, let errno):
            return "media socket: \(call) failed with errno \(errno) (out of file descriptors? raise ulimit -n)"
        case .noFreePort(let range):
            return "media: no free even UDP port in \(range.lowerBound)-\(range.upperBound); widen `media.ports`"
        case .badAddress(let host):
            return "media: '\(host)' is not an IPv4 address (SDP c= lines here name IPv4 literals)"
        }
    }
}
