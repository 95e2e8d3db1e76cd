import Quantities

/// `push: { delay: <distribution> }`: every push of the window is delivered later by a drawn amount (delays of
/// overlapping windows add up).
public struct PushDelayFault: PushPathFault {
    public static let names = ["delay"]
    public static let family = FaultFamily.push
    public static let precedence = 4
    public static let stream = DrawStream.pushDelay
    public let probability = 1.0
    public let delay: Distribution

    public init?(window: FaultWindow) {
        guard let delay = window.push?.delay else { return nil }
        self.delay = delay
    }

    public static func summary(of window: FaultWindow) -> String? { window.push?.delay.map { "delay \($0)" } }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        decision.delayNanos += draws.sample(delay, Self.stream)
        decision.notes.append(draws.note("push.delayed"))
    }
}
