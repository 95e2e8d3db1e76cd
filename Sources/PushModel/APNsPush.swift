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

    /// `accept` with the connection-level faults a sink may inject on the push's answer (GOAWAY after it).
    /// Default: `accept`, nothing more.
    func answer(_ push: APNsPush) -> PushSinkAnswer

    /// A gateway-wide fault for a push to `token` arriving now, decided before the request is even validated
    /// (a brown-out: APNs refusing or stalling). Cheap when there is none: the gateway asks on every request.
    /// Default: none.
    func gatewayFault(token: Substring) -> GatewayFault?
}

/// What the sink decided about one accepted push.
public struct PushSinkAnswer: Sendable {
    public var rejection: APNsRejection?
    /// After answering, end the connection with GOAWAY (the client reconnects).
    public var goAway: Bool

    public init(rejection: APNsRejection?, goAway: Bool = false) {
        self.rejection = rejection
        self.goAway = goAway
    }
}

/// A brown-out of the gateway, for the push at hand.
public enum GatewayFault: Sendable, Equatable {
    /// Answer 503 ServiceUnavailable at once, without looking at the push.
    case refuse
    /// Take the stream but answer nothing for `forNanos` (until the window ends); then answer as usual.
    case stall(forNanos: UInt64)
}

extension PushSink {
    public func answer(_ push: APNsPush) -> PushSinkAnswer { PushSinkAnswer(rejection: accept(push)) }
    public func gatewayFault(token: Substring) -> GatewayFault? { nil }
}
