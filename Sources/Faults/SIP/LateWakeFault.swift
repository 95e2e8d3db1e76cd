import Quantities

/// `sip: { late_wake: { probability: 50%, after: 12s } }`: a sleeping SIP device woken by a push reports the call
/// on time (PushKit's rule holds) but sends its wake REGISTER `after` later: an app slow to bring its SIP stack up.
/// Past the server's push timeout (Kamailio's PUSH_TIMEOUT) the parked INVITE is gone and the caller got 408.
public struct LateWakeFault: SIPWakeFault {
    public static let names = ["late_wake"]
    public static let family = FaultFamily.sip
    public static let precedence = 1
    public static let stream = DrawStream("sip.late_wake")
    public static let late = "sip.late_wake"
    public let probability: Double
    public let after: Distribution

    public init?(window: FaultWindow) {
        guard let late = window.sip?.lateWake, late.probability > 0 else { return nil }
        probability = late.probability
        after = late.after
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.sip?.lateWake.map { "late_wake \(FaultDescription.percent($0.probability)) after \($0.after)" }
    }

    public func decide(_ draws: FaultDraws) -> (SIPWakeAction, FaultNote)? {
        guard draws.hits(probability, Self.stream) else { return nil }
        return (.late(nanos: draws.sample(after, Self.stream, seq: 1)), draws.note(Self.late))
    }
}
