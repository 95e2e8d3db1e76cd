import Heaps
import Media

/// The streams of one `MediaStreams` implementation and their timing, shared by the real sockets and the twin so
/// both schedule, filter and judge alike: each stream's `MediaSession` and remote endpoint, a heap of when each
/// is next due (lazy cancellation: a stale entry is skipped when it comes out), and the datagrams the filter
/// held back. The transport only moves bytes.
struct MediaStreamTable {
    struct Stream {
        var session: MediaSession
        var remote: MediaEndpoint?
        /// The deadline this stream has in the heap (nil: none).
        var scheduled: UInt64?
    }

    /// A datagram the filter delayed.
    struct Held {
        var due: UInt64
        var stream: Int
        var bytes: [UInt8]
        var sending: Bool
    }

    private(set) var streams: [Int: Stream] = [:]
    private var deadlines = MinHeap<UInt64, Int>()
    private(set) var held: [Held] = []
    var filter: MediaDatagramFilter?
    private var lastID = 0
    private var scratch: [UInt8] = []

    init() { scratch.reserveCapacity(256) }

    mutating func add(_ settings: MediaStreamSettings) -> Int {
        lastID += 1
        streams[lastID] = Stream(session: MediaSession(settings: settings))
        return lastID
    }

    mutating func remove(_ id: Int, now: UInt64, onEvent: MediaEventHandler) -> MediaStreamReport? {
        guard var stream = streams.removeValue(forKey: id) else { return nil }
        if let event = stream.session.stop(at: now) { onEvent(id, event) }
        held.removeAll { $0.stream == id }
        return stream.session.report
    }

    func report(_ id: Int) -> MediaStreamReport? { streams[id]?.session.report }

    mutating func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, now: UInt64,
                        sendAfterNanos: UInt64 = 0) {
        guard streams[id] != nil else { return }
        streams[id]!.remote = remote
        streams[id]!.session.start(at: now, direction: direction, sendAfterNanos: sendAfterNanos)
        note(id)
    }

    mutating func update(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, now: UInt64,
                         onEvent: MediaEventHandler) {
        guard streams[id] != nil else { return }
        streams[id]!.remote = remote
        if let event = streams[id]!.session.setDirection(direction, at: now) { onEvent(id, event) }
        note(id)
    }

    /// This end sent an offer for stream `id` with `direction` (`MediaSession.offered`).
    mutating func offered(_ id: Int, direction: MediaDirection) {
        streams[id]?.session.offered(direction)
    }

    /// The earliest instant anything is due: a stream's send or check, or a held datagram.
    var nextDeadline: UInt64? {
        let stream = deadlines.top?.priority
        guard let heldDue = held.lazy.map(\.due).min() else { return stream }
        return min(stream ?? heldDue, heldDue)
    }

    /// Sends what is due at `now` through `send` (stream, bytes, remote) and reports what the checks find;
    /// returns the held datagrams to read now (the transport feeds them back to `receive(filtered: false)`).
    mutating func runDue(now: UInt64, send: (Int, [UInt8], MediaEndpoint) -> Void,
                         onEvent: MediaEventHandler) -> [Held] {
        var reads: [Held] = []
        if !held.isEmpty {
            let due = held.filter { $0.due <= now }
            held.removeAll { $0.due <= now }
            for item in due {
                if item.sending, let remote = streams[item.stream]?.remote {
                    send(item.stream, item.bytes, remote)
                } else if !item.sending {
                    reads.append(item)
                }
            }
        }
        while let entry = deadlines.popDue(now) {
            guard var stream = streams[entry.value], stream.scheduled == entry.priority else { continue }
            stream.scheduled = nil
            while stream.session.nextPacket(now: now, into: &scratch) {
                guard let remote = stream.remote else { continue }
                switch filter?(entry.value, true, Self.sequence(scratch)) ?? .pass {
                case .pass: send(entry.value, scratch, remote)
                case .drop: continue
                case .delay(let nanos):
                    held.append(Held(due: now + nanos, stream: entry.value, bytes: scratch, sending: true))
                }
            }
            let event = stream.session.advance(to: now)
            streams[entry.value] = stream
            if let event { onEvent(entry.value, event) }
            note(entry.value)
        }
        return reads
    }

    /// Takes a datagram stream `id` read at `now`; `filtered` false for one the filter already held back.
    mutating func receive(_ id: Int, _ bytes: UnsafeRawBufferPointer, now: UInt64, filtered: Bool = true,
                          onEvent: MediaEventHandler) {
        guard streams[id] != nil else { return }
        if filtered, let filter {
            switch filter(id, false, bytes.count >= 4 ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0) {
            case .pass: break
            case .drop: return
            case .delay(let nanos):
                held.append(Held(due: now + nanos, stream: id, bytes: Array(bytes), sending: false))
                return
            }
        }
        let event = streams[id]!.session.receive(bytes, at: now)
        note(id)
        if let event { onEvent(id, event) }
    }

    /// Puts stream `id`'s next deadline in the heap when it is earlier than the one there.
    private mutating func note(_ id: Int) {
        guard let due = streams[id]?.session.nextDeadline else { return }
        if let scheduled = streams[id]!.scheduled, scheduled <= due { return }
        streams[id]!.scheduled = due
        deadlines.push(id, at: due)
    }

    private static func sequence(_ bytes: [UInt8]) -> UInt16 {
        bytes.count >= 4 ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0
    }
}
