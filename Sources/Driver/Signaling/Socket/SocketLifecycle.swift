import Determinism
import Metrics
import Scenario

/// What the socket lifecycle asks the worker to do: the worker owns the real sockets (a `WebSocketClientPool`),
/// this value owns the decisions, so every rule is tested under a manual clock without a socket.
enum SocketEffect: Equatable {
    /// Open the device's socket (connect, Upgrade); the worker reports back with `opening`/`opened`/`closed`.
    case open(device: Int)
    /// The device closes its socket (a closing handshake, code 1000).
    case close(device: Int)
    /// The socket is open: send the hello and the actions queued while it was not.
    case ready(device: Int)
    case arm(SocketTimer, at: UInt64)
    case count(Metric, by: Int64)
    case record(Metric, micros: Int64)
}

/// A timer the lifecycle armed; stale ones (the token moved on) do nothing.
enum SocketTimer: Equatable {
    case reconnect(device: Int, token: UInt64)
    case linger(device: Int, token: UInt64)
}

/// Every device socket of one worker as a state machine: when the app opens it (`device.socket`), when it closes
/// it (`socket_linger` after its last live conversation), the seeded backoff after a loss, and the books
/// (`socket.opened = socket.closed.device + socket.closed.server + socket.lost + socket.open_at_stop`).
///
/// Thread rule: a value owned by the worker's queue, like `DeviceModel`.
struct SocketLifecycle {
    enum Phase: Equatable { case closed, connecting, open, closing }

    struct Link {
        var phase = Phase.closed
        var openStarted: UInt64 = 0
        /// Acceptance instant of the VoIP push that caused the open under way (push_to_socket).
        var causedBy: UInt64?
        /// Conversations whose VoIP push came in, by acceptance instant, until the socket says something about
        /// them (push_to_state).
        var awaitingState: [String: UInt64] = [:]
        /// Reconnect attempts since the last open.
        var attempt = 0
        var token: UInt64 = 0
        /// The close under way is the app's own decision (linger), not a loss or a fault.
        var closingByDevice = false
        /// Whether the next open is a reconnect (counted as `socket.reconnects`).
        var reconnecting = false
    }

    let mode: SocketMode
    let reconnect: SocketReconnect
    let lingerNanos: UInt64
    private(set) var links: [Link]
    private var random: [SeededRandom]
    private(set) var effects: [SocketEffect] = []

    /// - Parameter streams: one seeded stream per device (the device's global index), so a device's backoff
    ///   repeats with the seed whichever worker runs it.
    init(mode: SocketMode, reconnect: SocketReconnect, lingerNanos: UInt64, seed: UInt64, devices: [Int]) {
        self.mode = mode
        self.reconnect = reconnect
        self.lingerNanos = lingerNanos
        links = Array(repeating: Link(), count: devices.count)
        random = devices.map { SeededRandom(seed: seed, stream: 0x534F_434B_0000_0000 | UInt64($0)) }
    }

    /// The effects produced since the last call, in order.
    mutating func take() -> [SocketEffect] {
        defer { effects.removeAll(keepingCapacity: true) }
        return effects
    }

    subscript(local: Int) -> Link { links[local] }

    /// Whether the app has its UI up: a `foreground` app's socket is open only while the user uses it.
    func isForeground(_ local: Int) -> Bool { mode == .foreground && links[local].phase == .open }

    // MARK: - What the app does

    /// Registration done: an `always` app connects now.
    mutating func registered(_ local: Int, now: UInt64) {
        if mode == .always { open(local, now: now) }
    }

    /// A VoIP push was reported: an `on_push` app wakes and connects; any open socket then owes the
    /// conversation's state (push_to_state).
    mutating func pushReported(_ local: Int, conversation: String, acceptedNanos: UInt64, now: UInt64) {
        guard mode != .none else { return }
        // A live conversation again: a pending linger is moot. A closed socket has no linger pending, only maybe a
        // reconnect, which must stand (an `always` app whose socket a storm dropped just before a push came
        // would otherwise never reconnect).
        if links[local].phase != .closed { links[local].token &+= 1 }
        links[local].awaitingState[conversation] = acceptedNanos
        if mode == .onPush, links[local].phase == .closed {
            links[local].causedBy = acceptedNanos
            open(local, now: now)
        }
    }

    /// The user acts (starts, answers, ends, …): the app is in the foreground and connects if it is not.
    mutating func userActs(_ local: Int, now: UInt64) {
        guard mode == .onPush || mode == .foreground else { return }
        links[local].token &+= 1  // a pending linger is moot
        if links[local].phase == .closed { open(local, now: now) }
    }

    /// The device has no live conversation left: an `on_push`/`foreground` app closes its socket after the linger.
    mutating func idle(_ local: Int, now: UInt64) {
        guard mode == .onPush || mode == .foreground else { return }
        links[local].token &+= 1
        links[local].awaitingState.removeAll()
        guard links[local].phase == .open || links[local].phase == .connecting else { return }
        if lingerNanos == 0 {
            closeByDevice(local)
        } else {
            effects.append(.arm(.linger(device: local, token: links[local].token), at: now &+ lingerNanos))
        }
    }

    // MARK: - What the socket does

    mutating func opened(_ local: Int, now: UInt64) {
        guard links[local].phase == .connecting else { return }
        links[local].phase = .open
        links[local].attempt = 0
        count(.socketOpened)
        effects.append(.record(.socketConnect, micros: micros(now &- links[local].openStarted)))
        if let pushed = links[local].causedBy {
            effects.append(.record(.pushToSocket, micros: micros(now &- pushed)))
        }
        links[local].causedBy = nil
        effects.append(.ready(device: local))
    }

    /// A message about `conversation` arrived on the device's socket.
    mutating func heard(_ local: Int, about conversation: String, now: UInt64) {
        guard let pushed = links[local].awaitingState.removeValue(forKey: conversation) else { return }
        effects.append(.record(.pushToState, micros: micros(now &- pushed)))
    }

    /// The socket ended. `wasOpen`: it had opened (else the open failed: `socket.connect_failed`). `lost`: ended
    /// without a closing handshake or by a protocol error; `byServer`: the server closed first. `live`: the device
    /// still has a live conversation (an `on_push` app reconnects only then).
    mutating func closed(_ local: Int, byServer: Bool, lost: Bool, code: Int, protocolKind: String?, live: Bool,
                         now: UInt64) {
        let link = links[local]
        guard link.phase != .closed else { return }
        let byDevice = link.closingByDevice && !byServer
        if link.phase == .open || link.phase == .closing {
            count(byDevice ? .socketClosedDevice
                  : (byServer && !lost ? .socketClosedServer : .socketLost))
            count(.socketClose(code))
        } else {
            count(link.closingByDevice ? .socketConnectAbandoned : .socketConnectFailed)
        }
        if let protocolKind { count(.socketProtocol(protocolKind)) }
        links[local].phase = .closed
        links[local].closingByDevice = false
        links[local].causedBy = nil
        guard !byDevice, mode == .always || live else { return }
        let delay = reconnect.delay(attempt: link.attempt, unit: random[local].nextUnit())
        links[local].attempt = link.attempt + 1
        links[local].token &+= 1
        effects.append(.arm(.reconnect(device: local, token: links[local].token), at: now &+ delay))
    }

    /// A lifecycle timer. `live`: the device has a live conversation now.
    mutating func fired(_ timer: SocketTimer, live: Bool, now: UInt64) {
        switch timer {
        case .linger(let local, let token):
            guard token == links[local].token, !live else { return }
            if links[local].phase == .open || links[local].phase == .connecting { closeByDevice(local) }
        case .reconnect(let local, let token):
            guard token == links[local].token, links[local].phase == .closed, mode == .always || live else { return }
            links[local].reconnecting = true
            open(local, now: now)
        }
    }

    /// Sockets open now (or closing): what a checkpoint counts as open at stop, so its books balance.
    var openCount: Int { links.reduce(0) { $0 + ($1.phase == .open || $1.phase == .closing ? 1 : 0) } }

    /// The run stops: sockets still open are counted so the books balance.
    mutating func stop() {
        for i in links.indices where links[i].phase == .open || links[i].phase == .closing {
            count(.socketOpenAtStop)
            links[i].phase = .closed
        }
    }

    /// The worker opened the socket this lifecycle asked for, or could not (`failed`: counted, backoff armed).
    mutating func openFailed(_ local: Int, live: Bool, now: UInt64) {
        closed(local, byServer: false, lost: true, code: 1006, protocolKind: nil, live: live, now: now)
    }

    // MARK: - Helpers

    private mutating func open(_ local: Int, now: UInt64) {
        if links[local].reconnecting {
            count(.socketReconnects)
            links[local].reconnecting = false
        }
        links[local].phase = .connecting
        links[local].openStarted = now
        effects.append(.open(device: local))
    }

    private mutating func closeByDevice(_ local: Int) {
        links[local].phase = links[local].phase == .open ? .closing : links[local].phase
        links[local].closingByDevice = true
        effects.append(.close(device: local))
    }

    private mutating func count(_ name: Metric) { effects.append(.count(name, by: 1)) }

    private func micros(_ nanos: UInt64) -> Int64 { Int64(nanos / 1000) }
}
