import Determinism
import Media

/// One RTP datagram on the in-memory wire.
public struct MediaDatagram: Sendable {
    public let from: MediaEndpoint
    public let to: MediaEndpoint
    public let bytes: [UInt8]
    /// The order it was sent in (deliveries due at one instant keep it).
    public let serial: UInt64

    /// The RTP sequence number (0 for bytes too short to be RTP).
    public var sequence: UInt16 { bytes.count >= 4 ? UInt16(bytes[2]) << 8 | UInt16(bytes[3]) : 0 }
}

/// Something on the wire that receives datagrams and has deadlines: a `MemoryMediaStreams`.
protocol MediaWireNode: AnyObject {
    func receive(_ datagram: MediaDatagram, now: UInt64)
    var nextDeadline: UInt64? { get }
    func advance(to now: UInt64)
}

/// The wire of the media twin: datagrams between endpoints in memory, delivered on the owner's clock, with their
/// fate in the test's hands (`fate`: pass, drop, or delay, which is how a test adds jitter or reorders). Its
/// host loop calls `run()` whenever it has nothing else to run and moves its `ManualClock` to `nextDeadline`
/// (`run(until:clock:)` does both for a test): no socket, no thread, no sleep.
///
/// A datagram to an endpoint nothing is bound to vanishes (counted in `undeliverable`).
/// Thread rule: one thread calls everything.
public final class MediaWire {
    public let clock: any Clock
    /// Added to every datagram's trip.
    public var latencyNanos: UInt64 = 0
    /// Decides each datagram's fate as it is sent; nil passes all.
    public var fate: ((MediaDatagram) -> MediaDatagramFate)?
    public private(set) var delivered = 0
    public private(set) var dropped = 0
    public private(set) var undeliverable = 0

    private var nodes: [MediaEndpoint: MediaWireNode] = [:]
    private var members: [MediaWireNode] = []
    private var inFlight: [(due: UInt64, datagram: MediaDatagram)] = []
    private var serial: UInt64 = 0
    private var nextPort: [String: Int] = [:]

    public init(clock: any Clock) { self.clock = clock }

    /// Binds `node` to the next even port on `host` (from 30000) and returns the endpoint.
    func bind(_ node: MediaWireNode, host: String) -> MediaEndpoint {
        let port = nextPort[host, default: 30_000]
        nextPort[host] = port + 2
        let endpoint = MediaEndpoint(host: host, port: port)
        nodes[endpoint] = node
        if !members.contains(where: { $0 === node }) { members.append(node) }
        return endpoint
    }

    func unbind(_ endpoint: MediaEndpoint) { nodes[endpoint] = nil }

    func send(_ bytes: [UInt8], from: MediaEndpoint, to: MediaEndpoint) {
        serial += 1
        let datagram = MediaDatagram(from: from, to: to, bytes: bytes, serial: serial)
        var delay = latencyNanos
        switch fate?(datagram) ?? .pass {
        case .pass: break
        case .drop:
            dropped += 1
            return
        case .delay(let nanos): delay += nanos
        }
        inFlight.append((clock.nowNanos() + delay, datagram))
    }

    /// The earliest instant a datagram arrives or a node is due.
    public var nextDeadline: UInt64? {
        var next = inFlight.lazy.map(\.due).min()
        for node in members {
            if let due = node.nextDeadline { next = min(next ?? due, due) }
        }
        return next
    }

    /// Delivers every datagram due now (earliest first, in sending order at one instant) and runs every node due
    /// now, until nothing more is due at this instant.
    public func run() {
        for _ in 0..<10_000_000 {
            let now = clock.nowNanos()
            if let index = nextDue(now) {
                let datagram = inFlight.remove(at: index).datagram
                guard let node = nodes[datagram.to] else {
                    undeliverable += 1
                    continue
                }
                delivered += 1
                node.receive(datagram, now: now)
                continue
            }
            guard let node = members.first(where: { ($0.nextDeadline ?? .max) <= now }) else { return }
            node.advance(to: now)
        }
        preconditionFailure("the media wire never went idle")
    }

    /// Runs the wire up to `instant`, moving `clock` from deadline to deadline (a test's whole loop).
    public func run(until instant: UInt64, clock manual: ManualClock) {
        run()
        while let due = nextDeadline, due <= instant {
            manual.advance(to: due)
            run()
        }
        manual.advance(to: instant)
        run()
    }

    private func nextDue(_ now: UInt64) -> Int? {
        var best: Int?
        for (i, item) in inFlight.enumerated() where item.due <= now {
            if let b = best, (inFlight[b].due, inFlight[b].datagram.serial) <= (item.due, item.datagram.serial) {
                continue
            }
            best = i
        }
        return best
    }
}
