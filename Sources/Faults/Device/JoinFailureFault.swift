/// `device: { join_failure: 5% }`: media setup fails, so the join fails after the server accepted it.
public struct JoinFailureFault: JoinFault {
    public static let names = ["join_failure"]
    public static let family = FaultFamily.device
    public static let precedence = 0
    public static let stream = DrawStream.joinFailure
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let device = window.device, device.joinFailure > 0 else { return nil }
        probability = device.joinFailure
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let device = window.device, device.joinFailure > 0 else { return nil }
        return "join_failure \(FaultDescription.percent(device.joinFailure))"
    }

    public func decide(_ draws: FaultDraws) -> (JoinDecision, FaultNote)? {
        draws.hits(probability, Self.stream) ? (.fail, draws.note("device.join_failed")) : nil
    }
}
