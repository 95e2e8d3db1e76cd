import Determinism

/// What reaches a toxic on one direction of one connection.
public enum ToxicEvent: Sendable, Equatable {
    /// The toxic begins on this connection: at accept, or when `setToxics` added it to a live connection.
    case start
    /// Bytes the sender wrote, in order.
    case data([UInt8])
    /// The sender finished (its FIN), after all its data.
    case end
    /// The time asked for with `ToxicStub.wake(at:)` has come.
    case wake
}

/// A network fault on one direction of a proxied connection: it turns what it receives into what it lets
/// through, when, and whether the connection survives.
///
/// Rules a conforming type keeps:
/// - It is configuration only (a value, `Sendable`); everything that changes per connection lives in `State`,
///   kept on the `ToxicStub` the proxy gives each connection and direction.
/// - `pipe` runs on the proxy's loop thread and must not block: instead of sleeping it forwards with a later
///   time (`stub.forward(_:at:)`) or asks to be woken (`stub.wake(at:)`). Forwarded items keep their order.
/// - Whatever it does not forward is gone; an `.end` it does not forward keeps the stream open.
///
/// The proxy decides once per connection, from its seed, whether the toxic applies (`toxicity`); when it does
/// not, events pass straight through and `pipe` is never called. See `ToxicRegistry` to make one from config.
public protocol Toxic: Sendable {
    /// Per-connection, per-direction state, made fresh by `makeState()`.
    associatedtype State = Void

    /// The name in the configuration, e.g. `latency`.
    static var kind: String { get }
    /// The numbers this kind accepts, with defaults and ranges; the registry checks specs against them.
    static var attributes: [ToxicAttribute] { get }
    /// Makes the toxic from checked attributes: every declared one is present and in range.
    init(attributes: [String: Double])

    func makeState() -> State
    /// The one method: handles `event` at `stub.now`, emitting through `stub`.
    func pipe(_ event: ToxicEvent, stub: inout ToxicStub<State>)
}

extension Toxic where State == Void {
    public func makeState() {}
}

/// What a toxic emits, in order, each with the time it is due.
enum Emission: Equatable {
    case data([UInt8])
    /// Half-close: the receiver of this direction sees EOF.
    case end
    /// Close the whole connection once everything before this has been written.
    case close
}

/// The proxy's handle for one toxic on one direction of one connection: its state, its clock reading, its
/// random stream, and the way out.
public struct ToxicStub<State> {
    /// The toxic's per-connection state.
    public var state: State
    /// Monotonic nanoseconds of the event being handled (the time it was due, not later).
    public internal(set) var now: UInt64
    /// A stream seeded from the proxy seed, the connection number, the toxic and the direction.
    public var random: SeededRandom
    /// `.upstream` or `.downstream`: which one-way stream this stub sits on.
    public let flow: ToxicDirection
    /// The connection number (1 for the first accepted).
    public let connection: UInt64

    var outputs = FIFO<(at: UInt64, emission: Emission)>()
    var lastAt: UInt64 = 0
    var pendingBytes = 0
    var wakeAt: UInt64?
    var resetRequested = false
    var bytesDropped = 0
    var closes = 0

    init(state: State, now: UInt64, random: SeededRandom, flow: ToxicDirection, connection: UInt64) {
        self.state = state
        self.now = now
        self.random = random
        self.flow = flow
        self.connection = connection
    }

    /// Lets `bytes` through at `time` (default now), or after what was forwarded before, whichever is later.
    public mutating func forward(_ bytes: [UInt8], at time: UInt64? = nil) {
        guard !bytes.isEmpty else { return }
        pendingBytes += bytes.count
        emit(.data(bytes), at: time ?? now)
    }

    /// Passes the end of the stream (EOF for the receiver) at `time` (default now), after what came before.
    public mutating func forwardEnd(at time: UInt64? = nil) { emit(.end, at: time ?? now) }

    /// Closes the whole connection (both ways, with FIN) at `time`, once what came before has been written.
    public mutating func closeConnection(at time: UInt64? = nil) {
        closes += 1
        emit(.close, at: time ?? now)
    }

    /// Resets the whole connection now: RST to both peers, unsent bytes discarded.
    public mutating func resetConnection() { resetRequested = true }

    /// Asks for a `.wake` event at `time`; replaces an earlier request.
    public mutating func wake(at time: UInt64) { wakeAt = time }

    /// Counts bytes the toxic swallowed, for the statistics.
    public mutating func drop(_ bytes: [UInt8]) { bytesDropped += bytes.count }

    /// The default for an event a toxic does not change: data and end go through now.
    public mutating func pass(_ event: ToxicEvent) {
        switch event {
        case .data(let bytes): forward(bytes)
        case .end: forwardEnd()
        case .start, .wake: break
        }
    }

    private mutating func emit(_ emission: Emission, at time: UInt64) {
        let due = max(time, lastAt)
        lastAt = due
        outputs.append((due, emission))
    }
}

/// A first-in first-out queue with O(1) amortised append and removal from the front.
struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: Element? { isEmpty ? nil : items[head] }

    mutating func append(_ element: Element) { items.append(element) }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() -> [Element] {
        let rest = Array(items[head...])
        items.removeAll()
        head = 0
        return rest
    }
}
