/// `sip: { lost_register: 20% }`: a sleeping SIP device woken by a push reports the call, but its wake REGISTER
/// and every retransmission of it vanish before the server: the parked INVITE never gets a branch to the device
/// and times out (the caller gets 408).
public struct LostRegisterFault: SIPWakeFault {
    public static let names = ["lost_register"]
    public static let family = FaultFamily.sip
    public static let precedence = 0
    public static let stream = DrawStream("sip.lost_register")
    public static let lost = "sip.register_lost"
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let sip = window.sip, sip.lostRegister > 0 else { return nil }
        probability = sip.lostRegister
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let sip = window.sip, sip.lostRegister > 0 else { return nil }
        return "lost_register \(FaultDescription.percent(sip.lostRegister))"
    }

    public func decide(_ draws: FaultDraws) -> (SIPWakeAction, FaultNote)? {
        draws.hits(probability, Self.stream) ? (.registerLost, draws.note(Self.lost)) : nil
    }
}
