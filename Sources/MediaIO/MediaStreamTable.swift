import Heaps
import Media

/// The streams of one `MediaStreams` implementation and their timing, shared by the real sockets and the twin so
/// both schedule, filter and judge alike: each stream's `MediaSession` and remote endpoint, a heap of when each
/// is next due (lazy cancellation: a stale entry is skipped when it comes out), and the datagrams the filter
/// held back. The transport only moves bytes.
struct MediaStreamTable {
    struct Stream {
        let id: Int
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

    /// The streams in a dense array changed where they lie, found by id through `slotOf`: every packet sent or
    /// received changes its stream's session, and a dictionary of sessions read a stream out and back (a copy of
    /// the session, its arrays retained and, once changed, copied) several times a packet (~1,300 instructions a
    /// packet in `note` alone, issue 33).
    private var slots: [Stream] = []
    private var slotOf: [Int: Int] = [:]
    private var deadlines = MinHeap<UInt64, Int>()
    private(set) var held: [Held] = []
    var filter: MediaDatagramFilter?
    private var lastID = 0
    private var scratch: [UInt8] = []

    init() { scratch.reserveCapacity(256) }

    /// The number of open streams.
    var count: Int { slots.count }

    mutating func add(_ settings: MediaStreamSettings) -> Int {
        lastID += 1
        slotOf[lastID] = slots.count
        slots.append(Stream(id: lastID, session: MediaSession(settings: settings)))
        return lastID
    }

    mutating func remove(_ id: Int, now: UInt64, onEvent: MediaEventHandler) -> MediaStreamReport? {
        guard let slot = slotOf.removeValue(forKey: id) else { return nil }
        // The last stream moves into the freed slot; heap entries name ids, so they stay right.
        if slot != slots.count - 1 {
            slots.swapAt(slot, slots.count - 1)
            slotOf[slots[slot].id] = slot
        }
        var stream = slots.removeLast()
        if let event = stream.session.stop(at: now) { onEvent(id, event) }
        held.removeAll { $0.stream == id }
        return stream.session.report
    }

    func report(_ id: Int) -> MediaStreamReport? { slotOf[id].map { slots[$0].session.report } }

    mutating func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, now: UInt64,
                        sendAfterNanos: UInt64 = 0) {
        guard let slot = slotOf[id] else { return }
        slots[slot].remote = remote
        slots[slot].session.start(at: now, direction: direction, sendAfterNanos: sendAfterNanos)
        note(slot)
    }

    mutating func update(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, now: UInt64,
                         onEvent: MediaEventHandler) {
        guard let slot = slotOf[id] else { return }
        slots[slot].remote = remote
        if let event = slots[slot].session.setDirection(direction, at: now) { onEvent(id, event) }
        note(slot)
    }

    /// This end sent an offer for stream `id` with `direction` (`MediaSession.offered`).
    mutating func offered(_ id: Int, direction: MediaDirection) {
        guard let slot = slotOf[id] else { return }
        slots[slot].session.offered(direction)
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
                if item.sending, let remote = slotOf[item.stream].flatMap({ slots[$0].remote }) {
                    send(item.stream, item.bytes, remote)
                } else if !item.sending {
                    reads.append(item)
                }
            }
        }
        while let entry = deadlines.popDue(now) {
            guard let slot = slotOf[entry.value], slots[slot].scheduled == entry.priority else { continue }
            slots[slot].scheduled = nil
            let remote = slots[slot].remote
            while slots[slot].session.nextPacket(now: now, into: &scratch) {
                guard let remote else { continue }
                switch filter?(entry.value, true, Self.sequence(scratch)) ?? .pass {
                case .pass: send(entry.value, scratch, remote)
                case .drop: continue
                case .delay(let nanos):
                    held.append(Held(due: now + nanos, stream: entry.value, bytes: scratch, sending: true))
                }
            }
            let event = slots[slot].session.advance(to: now)
            if let event { onEvent(entry.value, event) }
            note(slot)
        }
        return reads
    }

    /// Takes a datagram stream `id` read at `now`; `filtered` false for one the filter already held back.
    mutating func receive(_ id: Int, _ bytes: UnsafeRawBufferPointer, now: UInt64, filtered: Bool = true,
                          onEvent: MediaEventHandler) {
        guard let slot = slotOf[id] else { return }
        if filtered, let filter {
            switch filter(id, false, bytes.count >= 4 ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0) {
            case .pass: break
            case .drop: return
            case .delay(let nanos):
                held.append(Held(due: now + nanos, stream: id, bytes: Array(bytes), sending: false))
                return
            }
        }
        let event = slots[slot].session.receive(bytes, at: now)
        note(slot)
        if let event { onEvent(id, event) }
    }

    /// Puts the stream in `slot`'s next deadline in the heap when it is earlier than the one there.
    private mutating func note(_ slot: Int) {
        guard let due = slots[slot].session.nextDeadline else { return }
        if let scheduled = slots[slot].scheduled, scheduled <= due { return }
        slots[slot].scheduled = due
        deadlines.push(slots[slot].id, at: due)
    }

    private static func sequence(_ bytes: [UInt8]) -> UInt16 {
        bytes.count >= 4 ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0
    }
}
