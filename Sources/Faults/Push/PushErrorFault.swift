/// `push: { error: 5% }` (with `status:`): the gateway answers an APNs error instead of accepting the push.
public struct PushErrorFault: PushPathFault {
    public static let names = ["error"]
    public static let family = FaultFamily.push
    public static let precedence = 2
    public static let stream = DrawStream.pushError
    public let probability: Double
    /// 429, 500, 503 or 410.
    public let status: Int

    public init?(window: FaultWindow) {
        guard let push = window.push, push.errorRate > 0 else { return nil }
        probability = push.errorRate
        status = push.errorStatus
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let push = window.push, push.errorRate > 0 else { return nil }
        return "error \(push.errorStatus) at \(FaultDescription.percent(push.errorRate))"
    }

    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard draws.hits(probability, Self.stream) else { return }
        decision.notes.append(draws.note("push.error_\(status)"))
        decision.fate = .reject(status: status)
    }
}
