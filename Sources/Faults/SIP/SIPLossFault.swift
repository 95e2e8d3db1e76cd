/// `sip: { loss: 10% }` (with `direction` and `messages` narrowing it): that share of a SIP device's UDP datagrams
/// vanish, as on a lossy radio link. Retransmissions (Timers A, E, G at either end) must recover the call.
public struct SIPLossFault: SIPMessageFault {
    public static let names = ["loss"]
    public static let family = FaultFamily.sip
    public static let precedence = 0
    public static let stream = DrawStream("sip.loss")
    /// The `faults.csv` kind and `faults.<kind>` counter of a lost datagram.
    public static let lost = "sip.message_lost"
    public let probability: Double
    public let direction: SIPFaults.Direction
    public let messages: [String]

    public init?(window: FaultWindow) {
        guard let sip = window.sip, sip.loss > 0 else { return nil }
        probability = sip.loss
        direction = sip.direction
        messages = sip.messages
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let sip = window.sip, sip.loss > 0 else { return nil }
        return "loss \(FaultDescription.percent(sip.loss))"
    }

    public func decide(_ datagram: SIPDatagram, draws: FaultDraws) -> (SIPMessageAction, FaultNote)? {
        guard direction.covers(sending: datagram.sending), messages.isEmpty || messages.contains(datagram.label),
              draws.hits(probability, Self.stream) else { return nil }
        return (.drop, draws.note(Self.lost))
    }
}
