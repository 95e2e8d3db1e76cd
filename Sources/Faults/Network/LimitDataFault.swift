/// `network: { limit_data: 4096 }`: a connection is closed after that many bytes.
public struct LimitDataFault: NetworkFault {
    public static let names = ["limit_data"]
    public static let family = FaultFamily.network
    public static let precedence = 3
    public static let toxicKind = "limit_data"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        guard let value = Self.setting(window, "limit_data", "bytes") else { return nil }
        probability = Self.share(window)
        attributes = ["bytes": value]
    }
}
