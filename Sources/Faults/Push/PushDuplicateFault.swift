/// `push: { duplicate: 1% }`: the device gets the push twice.
public struct PushDuplicateFault: PushPathFault {
    public static let names = ["duplicate"]
    public static let family = FaultFamily.push
    public static let precedence = 5
    public static let stream = DrawStream.pushDuplicate
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let push = window.push, push.duplicate > 0 else { return nil }
        probability = push.duplicate
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let push = window.push, push.duplicate > 0 else { return nil }
        return "duplicate \(FaultDescription.percent(push.duplicate))"
    }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard draws.hits(probability, Self.stream) else { return }
        decision.copies = 2
        decision.notes.append(draws.note("push.duplicated"))
    }
}
