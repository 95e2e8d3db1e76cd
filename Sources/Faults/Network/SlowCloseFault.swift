/// `network: { slow_close: 500ms }`: closing a connection is passed on that much later.
public struct SlowCloseFault: NetworkFault {
    public static let names = ["slow_close"]
    public static let family = FaultFamily.network
    public static let precedence = 4
    public static let toxicKind = "slow_close"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        guard let value = Self.setting(window, "slow_close", "ms") else { return nil }
        probability = Self.share(window)
        attributes = ["delay": value]
    }
}
