import Quantities

/// `push: { reorder: 5%, reorder_hold: 1s }`: the push is held back until the device's next push overtakes it,
/// or for the hold when none comes.
public struct PushReorderFault: PushPathFault {
    public static let names = ["reorder"]
    public static let family = FaultFamily.push
    public static let precedence = 6
    public static let stream = DrawStream.pushReorder
    public let probability: Double
    public let holdNanos: UInt64

    public init?(window: FaultWindow) {
        guard let push = window.push, push.reorder > 0 else { return nil }
        probability = push.reorder
        holdNanos = push.reorderHoldNanos
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let push = window.push, push.reorder > 0 else { return nil }
        return "reorder \(FaultDescription.percent(push.reorder)) (held up to "
            + "\(Quantity.format(nanos: push.reorderHoldNanos)))"
    }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard draws.hits(probability, Self.stream) else { return }
        decision.holdNanos = max(decision.holdNanos, holdNanos)
        decision.notes.append(draws.note("push.reordered"))
    }
}
