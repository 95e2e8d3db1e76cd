/// `push: { goaway: 1% }`: after the push's answer, whatever it is, the gateway sends HTTP/2 GOAWAY on that
/// connection and the target's APNs client must open a new one. Decided before every other push fault.
public struct PushGoAwayFault: PushPathFault {
    public static let names = ["goaway"]
    public static let family = FaultFamily.push
    public static let precedence = 0
    public static let stream = DrawStream.pushGoAway
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let push = window.push, push.goaway > 0 else { return nil }
        probability = push.goaway
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let push = window.push, push.goaway > 0 else { return nil }
        return "goaway \(FaultDescription.percent(push.goaway))"
    }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard !decision.goAway, draws.hits(probability, Self.stream) else { return }
        decision.goAway = true
        decision.notes.append(draws.note("push.goaway"))
    }
}
