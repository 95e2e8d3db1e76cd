import Quantities

/// Faults on SIP devices' signaling (a window's `sip:` section, docs/SIP.md "Chaos"): messages lost or delayed at
/// the device's UDP socket, and the push wake-up path going wrong on the device's side (it wakes after the
/// server gave up on the parked INVITE, or its wake REGISTER never reaches the server).
public struct SIPFaults: Sendable, Equatable {
    /// Which way a message must travel for `loss` and `delay` to act on it.
    public enum Direction: String, Sendable, Equatable, CaseIterable {
        /// What the device sends.
        case send
        /// What reaches the device.
        case receive
        case both

        public func covers(sending: Bool) -> Bool {
            switch self {
            case .both: return true
            case .send: return sending
            case .receive: return !sending
            }
        }
    }

    /// Share of the matching UDP datagrams that vanish (RFC 3261's timers must recover them).
    public var loss: Double = 0
    /// Extra time before a matching datagram is sent or read.
    public var delay: Distribution?
    public var direction: Direction = .both
    /// Methods (`INVITE`, `ACK`) or status codes (`200`, `180`) that `loss` and `delay` act on; empty: every message.
    public var messages: [String] = []
    /// A woken device reports the push on time but sends its wake REGISTER this much later.
    public var lateWake: LateWakeFaults?
    /// Share of wakes whose REGISTER (and every retransmission of it) never reaches the server.
    public var lostRegister: Double = 0
    /// Share of RTP packets that vanish (`media_loss`), their extra delay (`media_delay`), which way both act
    /// (`media_direction`), and a direction silenced for the window (`media_one_way`): faults on the calls' media
    /// (docs/MEDIA.md "Chaos"), on the packets a device's stream reads.
    public var mediaLoss: Double = 0
    public var mediaDelay: Distribution?
    public var mediaDirection: MediaFaultDirection = .both
    public var mediaOneWay: MediaFaultDirection?

    public init() {}

    /// Whether `loss`/`delay` act on a message labelled `label` (its method, or its status code as text).
    public func matches(_ label: String) -> Bool { messages.isEmpty || messages.contains(label) }

    /// Methods a `messages` filter may name (RFC 3261 and the extensions a UA meets).
    public static let methods = ["INVITE", "ACK", "BYE", "CANCEL", "REGISTER", "OPTIONS", "PRACK", "UPDATE", "INFO",
                                 "SUBSCRIBE", "NOTIFY", "REFER", "MESSAGE"]
}

/// `late_wake: { probability: 50%, after: 12s }`: that share of wakes send their REGISTER `after` the push was
/// reported (pick it above the server's push timeout, Kamailio's PUSH_TIMEOUT, to make the caller get 408).
public struct LateWakeFaults: Sendable, Equatable {
    public var probability: Double
    public var after: Distribution

    public init(probability: Double = 1, after: Distribution) {
        self.probability = probability
        self.after = after
    }
}
