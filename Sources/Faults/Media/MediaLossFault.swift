/// `sip: { media_loss: 5% }` (with `media_direction` narrowing it): that share of the RTP packets vanish, as on a
/// lossy path; the receiver counts the gaps as loss and its MOS falls.
public struct MediaLossFault: MediaPacketFault {
    public static let names = ["media_loss"]
    public static let family = FaultFamily.sip
    public static let precedence = 11
    public static let stream = DrawStream("media.loss")
    public static let lost = "media.packet_lost"
    public let probability: Double
    public let direction: MediaFaultDirection

    public init?(window: FaultWindow) {
        guard let sip = window.sip, sip.mediaLoss > 0 else { return nil }
        probability = sip.mediaLoss
        direction = sip.mediaDirection
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let sip = window.sip, sip.mediaLoss > 0 else { return nil }
        return "media loss \(FaultDescription.percent(sip.mediaLoss))"
    }

    public func decide(_ packet: MediaPacket, draws: FaultDraws) -> (SIPMessageAction, FaultNote)? {
        guard direction.covers(towardCaller: packet.towardCaller), draws.hits(probability, Self.stream) else {
            return nil
        }
        return (.drop, draws.note(Self.lost))
    }
}
