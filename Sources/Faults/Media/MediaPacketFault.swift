/// One RTP packet as a media fault sees it: decided where it is read (the receiving end's stream), so the fault and
/// the one-way audio it causes are seen by the same worker, and the episode can be put on the fault.
public struct MediaPacket: Sendable, Equatable {
    /// Travelling toward the caller (the callee's audio), else toward the callee.
    public let towardCaller: Bool

    public init(towardCaller: Bool) {
        self.towardCaller = towardCaller
    }
}

/// A fault on RTP packets of SIP calls with media (`sip: { media_loss, media_delay, media_one_way }`), applied in
/// process through the media seam's `datagramFilter` as SIP datagram faults are through the pool's. Decided per
/// packet, keyed by (window, device, the stream's packet number).
public protocol MediaPacketFault: OrderedFault {
    static var stream: DrawStream { get }
    /// This fault's effect on `packet` (drop or delay, `SIPMessageAction`'s words), with its note; nil when it does
    /// not hit.
    func decide(_ packet: MediaPacket, draws: FaultDraws) -> (SIPMessageAction, FaultNote)?
}

extension FaultSchedule {
    /// Whether any window has media faults (the driver installs no media filter otherwise).
    public var hasMediaFaults: Bool {
        windows.contains { w in FaultRegistry.mediaPacketPath.contains { $0.init(window: w) != nil } }
    }

    /// The media fault for packet `seq` read by `device`'s stream at `sinceLoad`, in a call of `flow`: the first of
    /// the registry's media faults that hits, window by window.
    public func mediaPacketDecision(_ packet: MediaPacket, device: Int, seq: UInt64, sinceLoad: UInt64,
                                    flow: String?) -> (action: SIPMessageAction, note: FaultNote)? {
        firstHit(device: device, seq: seq, sinceLoad: sinceLoad, flow: flow) { w, draws in
            for kind in FaultRegistry.mediaPacketPath {
                if let fault = kind.init(window: w), let hit = fault.decide(packet, draws: draws) { return hit }
            }
            return nil
        }
    }
}
