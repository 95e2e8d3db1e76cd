/// When a simulated app holds its signaling socket (`device.socket`), as real VoIP apps do: some keep it open
/// all the time, most connect only once a VoIP push has woken them, or once the user acts.
public enum SocketMode: String, Sendable, Equatable, CaseIterable {
    /// No socket (the default): the device speaks HTTP and receives pushes only.
    case none
    /// Opened at registration and kept; reconnected after a loss.
    case always
    /// The app is in the background with no socket until a VoIP push arrives (then connect → hello → state) or
    /// the user starts a call; closed `socket_linger` after its last live conversation.
    case onPush = "on_push"
    /// Opened only when the user acts (starts or answers a call), not on the push alone; closed like `on_push`.
    case foreground
}

/// `device.socket_reconnect`: the seeded exponential backoff after a lost socket. Attempt n waits
/// `min(max, base · 2ⁿ)`, shortened by up to `jitter` of itself (drawn from the device's seeded stream), so a
/// storm of reconnects spreads out the same way on every run of a seed.
public struct SocketReconnect: Sendable, Equatable {
    public var baseNanos: UInt64
    public var maxNanos: UInt64
    /// 0…1: the share of each delay that is random.
    public var jitter: Double

    public init(baseNanos: UInt64 = 200_000_000, maxNanos: UInt64 = 5_000_000_000, jitter: Double = 0.5) {
        self.baseNanos = baseNanos
        self.maxNanos = maxNanos
        self.jitter = jitter
    }

    /// The delay before reconnect attempt `attempt` (0 for the first), given a uniform draw in [0, 1).
    public func delay(attempt: Int, unit: Double) -> UInt64 {
        let shift = min(attempt, 40)
        let (grown, overflow) = baseNanos.multipliedReportingOverflow(by: UInt64(1) << UInt64(shift))
        let capped = overflow ? maxNanos : min(grown, maxNanos)
        return capped - UInt64(Double(capped) * jitter * unit)
    }
}

extension APIMapping {
    /// `target.api.socket`: the server's signaling WebSocket (docs/WEBSOCKET.md, /work/notes/WS-MAPPING.md).
    /// Templates take the same `${…}` variables as request templates, plus `${request.id}` in actions.
    public struct Socket: Sendable, Equatable {
        /// A path on the target's base URL (http→ws, https→wss) or a full `ws://` / `wss://` URL; templated.
        public var url: String
        /// `Name: value` lines sent on the Upgrade request, templated.
        public var headers: [String]
        /// A text message sent once the socket is open (an auth or hello), templated.
        public var hello: String?
        /// Server→device messages, read like pushes: the same fields and meaning.
        public var events: PushFields
        /// Event names that carry no conversation (`pong`, `welcome`): counted, not errors.
        public var ignore: [String]
        /// Operation → text message template sent instead of the HTTP request (`${request.id}` correlates).
        public var actions: [String: String]
        public var reply: Reply

        /// How the server answers an action on the socket.
        public struct Reply: Sendable, Equatable {
            /// JSON path of the echoed request id.
            public var id: String
            /// JSON path of an HTTP-like status, judged with the operation's `expect`; nil: every reply is 200.
            public var status: String?
            /// JSON path of the part read like an HTTP response body (views, captures); nil: the whole message.
            public var body: String?

            public init(id: String = "$.id", status: String? = nil, body: String? = nil) {
                self.id = id
                self.status = status
                self.body = body
            }
        }

        public init(url: String, headers: [String] = [], hello: String? = nil, events: PushFields = PushFields(),
                    ignore: [String] = [], actions: [String: String] = [:], reply: Reply = Reply()) {
            self.url = url
            self.headers = headers
            self.hello = hello
            self.events = events
            self.ignore = ignore
            self.actions = actions
            self.reply = reply
        }

        /// The operations that may go over the socket (`register` and `get` stay HTTP).
        public static let operations = ["start", "join", "decline", "end", "pause", "resume", "merge", "unmerge"]
    }
}
