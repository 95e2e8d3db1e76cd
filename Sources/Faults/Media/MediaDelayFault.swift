import Quantities

/// `sip: { media_delay: <distribution> }` (with `media_direction` narrowing it): every RTP packet is read this much
/// later. A spread distribution is jitter (the receiver's RFC 3550 estimate rises); a delay past the one-way
/// threshold silences the direction for that long.
public struct MediaDelayFault: MediaPacketFault {
    public static let names = ["media_delay"]
    public static let family = FaultFamily.sip
    public static let precedence = 12
    public static let stream = DrawStream("media.delay")
    public static let delayed = "media.packet_delayed"
    public let probability = 1.0
    public let delay: Distribution
    public let direction: MediaFaultDirection

    public init?(window: FaultWindow) {
        guard let sip = window.sip, let delay = sip.mediaDelay else { return nil }
        self.delay = delay
        direction = sip.mediaDirection
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.sip?.mediaDelay.map { "media delay \($0)" }
    }

    public func decide(_ packet: MediaPacket, draws: FaultDraws) -> (SIPMessageAction, FaultNote)? {
        guard direction.covers(towardCaller: packet.towardCaller) else { return nil }
        let nanos = draws.sample(delay, Self.stream)
        return nanos > 0 ? (.delay(nanos: nanos), draws.note(Self.delayed)) : nil
    }
}
