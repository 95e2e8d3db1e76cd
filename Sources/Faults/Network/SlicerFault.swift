/// `network: { slicer: 64 }`: data passes in slices of about that many bytes.
public struct SlicerFault: NetworkFault {
    public static let names = ["slicer"]
    public static let family = FaultFamily.network
    public static let precedence = 2
    public static let toxicKind = "slicer"
    public let probability: Double
    public let attributes: [String: Double]

    public init?(window: FaultWindow) {
        guard let value = Self.setting(window, "slicer", "bytes") else { return nil }
        probability = Self.share(window)
        attributes = ["average_size": value]
    }
}
