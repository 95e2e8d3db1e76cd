import TextEscaping

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
    /// The payload as the gateway's JSON check read it with the sink's pattern (`PushSink.payloadPattern`); nil
    /// when nothing read it that way (FCM, the SIP twin's pushes, a sink without a pattern).
    public let scanned: ScannedPayload?

    public init(token: String, apnsID: String, pushType: PushType, topic: String, priority: Int,
                expiration: Int64?, collapseID: String?, payload: [UInt8], acceptedNanos: UInt64,
                scanned: ScannedPayload? = nil) {
        self.token = token
        self.apnsID = apnsID
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.acceptedNanos = acceptedNanos
        self.scanned = scanned
    }
}

/// A payload read once, at the gateway, for the fields the devices read: the gateway needs to know it is one JSON
/// object, the device needs its mapped fields, and scanning the bytes twice (the gateway's JSONShape, then the
/// worker's JSONScan) was ~6,700 instructions a push spent for nothing (docs/BENCHMARKS.md, 2026-12-07).
public struct ScannedPayload: Sendable {
    /// The scan; nil when the payload is not one well-formed JSON value by JSONScan's grammar.
    public let scan: JSONScan?

    public init(_ scan: JSONScan?) { self.scan = scan }
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

    /// The pattern the sink reads payloads with: the gateway's JSON check then scans with it and hands the scan on
    /// in `APNsPush.scanned`, so the payload is read once. Default: none (the gateway's own check alone).
    var payloadPattern: JSONPattern? { get }
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
    public var payloadPattern: JSONPattern? { nil }
}
