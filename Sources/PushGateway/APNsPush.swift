/// A push the gateway accepted, as handed to the device that owns the token.
public struct APNsPush: Sendable {
    public enum PushType: String, Sendable, CaseIterable {
        case alert, background, voip, complication, fileprovider, mdm, location, liveactivity, pushtotalk, widgets
    }

    public let token: String
    public let apnsID: String
    public let pushType: PushType
    public let topic: String
    public let priority: Int
    /// Epoch seconds; 0 means deliver once, now, or never. Nil when the header was absent.
    public let expiration: Int64?
    public let collapseID: String?
    public let payload: [UInt8]
    /// Monotonic instant the gateway accepted it: the start of push-to-report.
    public let acceptedNanos: UInt64

    public init(token: String, apnsID: String, pushType: PushType, topic: String, priority: Int,
                expiration: Int64?, collapseID: String?, payload: [UInt8], acceptedNanos: UInt64) {
        self.token = token
        self.apnsID = apnsID
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.acceptedNanos = acceptedNanos
    }
}

/// Where accepted pushes go. `accept` runs on a server thread and must not block; it may refuse a token the way
/// APNs does (an unknown device, an uninstalled app).
public protocol PushSink: Sendable {
    func accept(_ push: APNsPush) -> APNsRejection?
}
