/// `network: { reset: 1% }`: that share of connections is reset (RST). It hits the whole connection, so one
/// direction is enough, and its share is its own value rather than the window's `probability`.
public struct ResetFault: NetworkFault {
    public static let names = ["reset"]
    public static let family = FaultFamily.network
    public static let precedence = 6
    public static let toxicKind = "reset_peer"
    public let probability: Double
    public let attributes: [String: Double] = ["timeout": 0]
    public var direction: ToxicPlan.Direction? { .downstream }

    public init?(window: FaultWindow) {
        guard let share = Self.setting(window, "reset", "toxicity") else { return nil }
        probability = share
    }
}
