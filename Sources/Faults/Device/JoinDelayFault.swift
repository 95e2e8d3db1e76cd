import Quantities

/// `device: { join_delay: <distribution> }`: slow media setup, so every join is fulfilled later by a drawn
/// amount (its fulfillment time grows).
public struct JoinDelayFault: JoinFault {
    public static let names = ["join_delay"]
    public static let family = FaultFamily.device
    public static let precedence = 1
    public static let stream = DrawStream.joinDelay
    public let probability = 1.0
    public let delay: Distribution

    public init?(window: FaultWindow) {
        guard let delay = window.device?.joinDelay else { return nil }
        self.delay = delay
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.device?.joinDelay.map { "join_delay \($0)" }
    }

    public func decide(_ draws: FaultDraws) -> (JoinDecision, FaultNote)? {
        (.delay(nanos: draws.sample(delay, Self.stream)), draws.note("device.join_delayed"))
    }
}
