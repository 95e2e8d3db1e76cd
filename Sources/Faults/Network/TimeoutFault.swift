/// `network: { timeout: 2s }`: data stops; the connection is closed after that long.
public struct TimeoutFault: NetworkFault {
    public static let names = ["timeout"]
    public static let family = FaultFamily.network
    public static let precedence = 5
    public static let toxicKind = "timeout"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        guard let value = Self.setting(window, "timeout", "ms") else { return nil }
        probability = Self.share(window)
        attributes = ["timeout": value]
    }
}
