/// `push: { drop: 2% }`: accepted with 200 and never delivered.
public struct PushDropFault: PushPathFault {
    public static let names = ["drop"]
    public static let family = FaultFamily.push
    public static let precedence = 3
    public static let stream = DrawStream.pushDrop
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let push = window.push, push.drop > 0 else { return nil }
        probability = push.drop
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let push = window.push, push.drop > 0 else { return nil }
        return "drop \(FaultDescription.percent(push.drop))"
    }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard draws.hits(probability, Self.stream) else { return }
        decision.notes.append(draws.note("push.dropped"))
        decision.fate = .drop
    }
}
