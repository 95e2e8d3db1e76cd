/// `network: { bandwidth: 64kbps }`: the proxy passes at most that many KB/s.
public struct BandwidthFault: NetworkFault {
    public static let names = ["bandwidth"]
    public static let family = FaultFamily.network
    public static let precedence = 1
    public static let toxicKind = "bandwidth"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        guard let value = Self.setting(window, "bandwidth", "rate_kbps") else { return nil }
        probability = Self.share(window)
        attributes = ["rate": value]
    }
}
