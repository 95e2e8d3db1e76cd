import Determinism
import SIP
import SIPClient

/// Where a SIP message goes on the in-memory network: a transport and a port on the one loopback host. A UDP
/// endpoint is a bound socket; a TCP endpoint is one connection (a phone's, named by its local port).
public struct SIPEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var transport: SIPTransportKind
    public var port: Int

    public init(_ transport: SIPTransportKind, _ port: Int) {
        self.transport = transport
        self.port = port
    }

    /// The opaque source handle a `SIPUserAgent` answers a request along (`receive(datagram:source:now:)`).
    var handle: Int { port << 1 | (transport == .tcp ? 1 : 0) }

    init?(handle: Int) {
        guard handle > 1 else { return nil }
        self.init(handle & 1 == 1 ? .tcp : .udp, handle >> 1)
    }

    public var description: String { "\(transport.rawValue.lowercased()):\(port)" }
}

/// One message on the wire: who sent it, where it goes, its bytes.
public struct SIPPacket: Sendable {
    public let from: SIPEndpoint
    public let to: SIPEndpoint
    public let bytes: [UInt8]
    /// The order it was sent in (deliveries at one instant keep it).
    let serial: UInt64

    /// The method of a request or the status of a response (`SIPStartLine.label`).
    public var label: String { SIPStartLine.label(bytes) }
    public var callID: String? { SIPStartLine.callID(bytes) }
}

/// Something on the network that receives packets and has timers: a `MemorySIPPool`'s agents, the twin proxy.
protocol SIPNetworkNode: AnyObject {
    func receive(_ packet: SIPPacket, now: UInt64)
    /// The earliest instant `advance(to:)` has work at.
    var nextDeadline: UInt64? { get }
    func advance(to now: UInt64)
}

/// The wire of the SIP embedded twin: packets between endpoints in memory, delivered on the owner's clock, with
/// the delivery order in the test's hands. Its host loop (the tests' `EmbeddedLoop`) calls `run()` whenever it
/// has nothing else to run and moves its `ManualClock` to `nextDeadline` like to its own timer: no socket, no
/// thread, no sleep.
///
/// A packet to a port nothing is bound to vanishes (UDP to a closed port; counted in `undeliverable`). Ports are
/// handed out upwards from 20000; with `reusesPorts` a freed port is handed out again first, as the kernel may
/// give a sleeping phone's old port to another socket (the stale contact that then reaches the wrong device).
///
/// Thread rule: one thread (the loop's) calls everything.
public final class SIPNetwork {
    public let clock: any Clock
    /// Added to every packet's trip (0: delivered at the instant it was sent, after what is already on its way).
    public var latencyNanos: UInt64 = 0
    /// Hands a freed port out again before a new one.
    public var reusesPorts = false
    /// Decides, for each packet sent, whether the test holds it back (`held`) until it calls `release`: how a test
    /// orders deliveries (a BYE before its ACK).
    public var hold: ((SIPPacket) -> Bool)?
    public private(set) var held: [SIPPacket] = []
    /// Packets sent to a port nothing was bound to.
    public private(set) var undeliverable = 0
    /// Every packet delivered, in order.
    public private(set) var delivered: [SIPPacket] = []

    private var nodes: [SIPEndpoint: SIPNetworkNode] = [:]
    /// Every node once, in the order it joined (timers fire in this order at one instant).
    private var members: [SIPNetworkNode] = []
    private var inFlight: [(due: UInt64, packet: SIPPacket)] = []
    private var serial: UInt64 = 0
    private var nextPort = 20_000
    private var freed: [Int] = []

    public init(clock: any Clock) { self.clock = clock }

    /// Binds `node` to a new port of `transport` and returns its endpoint.
    func bind(_ node: SIPNetworkNode, _ transport: SIPTransportKind) -> SIPEndpoint {
        let port: Int
        if reusesPorts, let last = freed.popLast() {
            port = last
        } else {
            port = nextPort
            nextPort += 1
        }
        let endpoint = SIPEndpoint(transport, port)
        bind(node, at: endpoint)
        return endpoint
    }

    /// Binds `node` to a known endpoint (the proxy's listening port).
    func bind(_ node: SIPNetworkNode, at endpoint: SIPEndpoint) {
        nodes[endpoint] = node
        if !members.contains(where: { $0 === node }) { members.append(node) }
    }

    /// Closes `endpoint`: what is on its way there now vanishes when it arrives.
    func unbind(_ endpoint: SIPEndpoint) {
        guard nodes.removeValue(forKey: endpoint) != nil else { return }
        if !freed.contains(endpoint.port) { freed.append(endpoint.port) }
    }

    /// Whether something listens at `endpoint` (a TCP connection that is still open).
    public func isBound(_ endpoint: SIPEndpoint) -> Bool { nodes[endpoint] != nil }

    /// Puts `bytes` on the wire from `from` to `to`.
    func send(_ bytes: [UInt8], from: SIPEndpoint, to: SIPEndpoint) {
        serial += 1
        let packet = SIPPacket(from: from, to: to, bytes: bytes, serial: serial)
        if let hold, hold(packet) {
            held.append(packet)
            return
        }
        inFlight.append((clock.nowNanos() + latencyNanos, packet))
    }

    /// Sends the held packets `which` picks now, in the order they were held; returns how many.
    @discardableResult
    public func release(where which: (SIPPacket) -> Bool) -> Int {
        let now = clock.nowNanos()
        let chosen = held.filter(which)
        held.removeAll(where: which)
        for packet in chosen { inFlight.append((now, packet)) }
        return chosen.count
    }

    /// The earliest instant a packet arrives or a node's timer fires.
    public var nextDeadline: UInt64? {
        var next = inFlight.map(\.due).min()
        for node in members {
            if let due = node.nextDeadline { next = min(next ?? due, due) }
        }
        return next
    }

    /// Whether `run()` has work now.
    public var hasDueWork: Bool { nextDeadline.map { $0 <= clock.nowNanos() } ?? false }

    /// Delivers every packet due now (earliest first, in sending order at one instant) and fires every node timer
    /// due now, until nothing more is due at this instant.
    public func run() {
        for _ in 0..<1_000_000 {
            let now = clock.nowNanos()
            if let index = nextDue(now) {
                let packet = inFlight.remove(at: index).packet
                guard let node = nodes[packet.to] else {
                    undeliverable += 1
                    continue
                }
                delivered.append(packet)
                node.receive(packet, now: now)
                continue
            }
            guard let node = members.first(where: { ($0.nextDeadline ?? .max) <= now }) else { return }
            node.advance(to: now)
        }
        preconditionFailure("the SIP network never went idle")
    }

    private func nextDue(_ now: UInt64) -> Int? {
        var best: Int?
        for (i, item) in inFlight.enumerated() where item.due <= now {
            if let b = best, (inFlight[b].due, inFlight[b].packet.serial) <= (item.due, item.packet.serial) {
                continue
            }
            best = i
        }
        return best
    }
}
