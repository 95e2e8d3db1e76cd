/// What a SIP message fault does to one datagram at a device's socket.
public enum SIPMessageAction: Sendable, Equatable {
    /// The datagram vanishes (never sent, or never read).
    case drop
    /// The datagram is sent, or read, this much later.
    case delay(nanos: UInt64)
}

/// One datagram at a SIP device's UDP socket, as the message faults see it.
public struct SIPDatagram: Sendable, Equatable {
    /// Its method (`INVITE`) or status code as text (`200`).
    public let label: String
    /// Sent by the device (else received).
    public let sending: Bool

    public init(label: String, sending: Bool) {
        self.label = label
        self.sending = sending
    }
}

/// A fault on datagrams at a SIP device's socket (`sip: { loss, delay }`). Decided per datagram, keyed by (window,
/// device, the device's datagram number): retransmissions are datagrams of their own, so RFC 3261's timers get
/// fresh draws, as they would on a lossy network.
public protocol SIPMessageFault: OrderedFault {
    static var stream: DrawStream { get }
    /// This fault's effect on `datagram`, with its note; nil when it does not hit.
    func decide(_ datagram: SIPDatagram, draws: FaultDraws) -> (SIPMessageAction, FaultNote)?
}

/// What a wake-up fault does to a sleeping SIP device that a push woke.
public enum SIPWakeAction: Sendable, Equatable {
    /// The device reports the push on time but sends its wake REGISTER this much later.
    case late(nanos: UInt64)
    /// The wake REGISTER and every retransmission of it never reach the server.
    case registerLost
}

/// A fault on a sleeping SIP device's wake (`sip: { late_wake, lost_register }`): decided once per part in a
/// call, by the window its call was planned in, like the push-path faults.
public protocol SIPWakeFault: OrderedFault {
    static var stream: DrawStream { get }
    func decide(_ draws: FaultDraws) -> (SIPWakeAction, FaultNote)?
}

extension FaultSchedule {
    /// Whether any window has SIP message faults (the driver installs no socket hook otherwise).
    public var hasSIPMessageFaults: Bool {
        windows.contains { w in FaultRegistry.sipMessagePath.contains { $0.init(window: w) != nil } }
    }

    /// The message fault for datagram number `seq` of `device` at `sinceLoad` (nanoseconds since the load
    /// began), whose call is of `flow` (nil: in none): the first of the registry's message faults that hits,
    /// window by window. A window with `flows` hits only devices in a call of those flows.
    public func sipMessageDecision(_ datagram: SIPDatagram, device: Int, seq: UInt64, sinceLoad: UInt64,
                                   flow: String?) -> (action: SIPMessageAction, note: FaultNote)? {
        firstHit(device: device, seq: seq, sinceLoad: sinceLoad, flow: flow) { w, draws in
            for kind in FaultRegistry.sipMessagePath {
                if let fault = kind.init(window: w), let hit = fault.decide(datagram, draws: draws) { return hit }
            }
            return nil
        }
    }

    /// The first hit `decide` finds, window by window, among the windows open for `device` at `sinceLoad` (those
    /// with `flows` only for a device in a call of one of them), each with the draws of item `seq`: the walk every
    /// per-item fault path (SIP messages, media packets) shares.
    func firstHit<Hit>(device: Int, seq: UInt64, sinceLoad: UInt64, flow: String?,
                       _ decide: (FaultWindow, FaultDraws) -> Hit?) -> Hit? {
        for (i, w) in active(at: sinceLoad, device: device)
        where w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true {
            if let hit = decide(w, draws(i, device: device, subject: device, seq: seq, plannedSinceLoad: sinceLoad)) {
                return hit
            }
        }
        return nil
    }

    /// The wake-up fault of the device's part `subject` in the call planned at `plannedSinceLoad`: the first of
    /// the registry's wake faults that hits, window by window.
    public func sipWakeDecision(device: Int, subject: Int, plannedSinceLoad: UInt64, flow: String)
        -> (action: SIPWakeAction, note: FaultNote)? {
        for (i, w) in active(forCallPlannedAt: plannedSinceLoad, device: device, flow: flow) {
            let draws = draws(i, device: device, subject: subject, seq: 0, plannedSinceLoad: plannedSinceLoad)
            for kind in FaultRegistry.sipWakePath {
                if let fault = kind.init(window: w), let hit = fault.decide(draws) { return hit }
            }
        }
        return nil
    }
}
