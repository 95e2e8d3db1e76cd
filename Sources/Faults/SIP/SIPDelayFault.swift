import Quantities

/// `sip: { delay: <distribution> }` (with `direction` and `messages` narrowing it): every matching datagram at a
/// SIP device's UDP socket is sent, or read, this much later. A delay past T1 (500 ms) makes the sender
/// retransmit before the first copy arrives.
public struct SIPDelayFault: SIPMessageFault {
    public static let names = ["delay"]
    public static let family = FaultFamily.sip
    public static let precedence = 1
    public static let stream = DrawStream("sip.delay")
    public static let delayed = "sip.message_delayed"
    public let probability = 1.0
    public let delay: Distribution
    public let direction: SIPFaults.Direction
    public let messages: [String]

    public init?(window: FaultWindow) {
        guard let sip = window.sip, let delay = sip.delay else { return nil }
        self.delay = delay
        direction = sip.direction
        messages = sip.messages
    }

    public static func summary(of window: FaultWindow) -> String? { window.sip?.delay.map { "delay \($0)" } }

    public func decide(_ datagram: SIPDatagram, draws: FaultDraws) -> (SIPMessageAction, FaultNote)? {
        guard direction.covers(sending: datagram.sending), messages.isEmpty || messages.contains(datagram.label)
        else { return nil }
        let nanos = draws.sample(delay, Self.stream)
        return nanos > 0 ? (.delay(nanos: nanos), draws.note(Self.delayed)) : nil
    }
}
