/// `network: { latency: 100ms, jitter: 20ms }`: one latency toxic, as Toxiproxy's latency has its jitter.
public struct LatencyFault: NetworkFault {
    public static let names = ["latency", "jitter"]
    public static let family = FaultFamily.network
    public static let precedence = 0
    public static let toxicKind = "latency"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        let latency = Self.setting(window, "latency", "ms"), jitter = Self.setting(window, "jitter", "ms")
        guard latency != nil || jitter != nil else { return nil }
        probability = Self.share(window)
        attributes = ["latency": latency ?? 0, "jitter": jitter ?? 0]
    }
}
