/// Where callstorm's push gateway listens and how long a device may take to report a VoIP push.
public struct PushSpec: Sendable, Equatable {
    /// Interface the gateway binds; loopback by default so a run never listens on the network by accident.
    public var listenHost: String
    /// Port the gateway binds; 0 lets the kernel pick a free one (tests and parallel runs need this).
    public var listenPort: Int
    /// Time from push to reported call after which the device counts a deadline miss, as iOS would kill the app.
    /// Apple publishes no figure, so this is a setting.
    public var deadlineNanos: UInt64
    /// App bundle id; APNs topics are `<bundleID>.voip` for VoIP pushes.
    public var bundleID: String
    /// After this many missed deadlines a device gets no more VoIP pushes, as iOS stops launching such an app.
    /// Apple publishes no number; 3 is the default.
    public var blockAfterMisses: Int = 3
    /// `push.expiration`: the embedded reference target stamps its pushes `apns-expiration` = now + this many
    /// seconds; 0 (the default) is APNs's "deliver now or never". A push delivered after it is discarded.
    public var expirationSeconds: Int = 0
    /// `push.retries`: how many times the embedded reference target tries a push again after a 429, 500 or 503
    /// answer or a lost connection, with backoff 100 ms × 2^n, as Apple asks providers to (0 never retries).
    public var retries: Int = PushSpec.defaultRetries
    public static let defaultRetries = 4
    /// Whether the gateway serves TLS (HTTP/2 with ALPN h2, or without ALPN), as APNs always does. The embedded
    /// target then sends its pushes over HTTP/2 and TLS, trusting callstorm's local CA. Default true.
    public var tls: Bool = true
    /// `push.auth.keys`: provider-token signing keys by 10-character key id, as PEM file paths (relative paths
    /// are relative to the scenario file). Empty: any well-formed ES256 token is accepted.
    public var authKeyPaths: [String: String] = [:]
    /// `push.auth.team`: the team id every token's `iss` must name; nil accepts any.
    public var authTeamID: String?
    /// `push.unregistered`: device tokens the gateway answers with 410 Unregistered (and a timestamp).
    public var unregisteredTokens: [String] = []
    /// `push.auth: certificate` (or `{ kind: certificate }`): the embedded target authenticates with a VoIP
    /// Services-like client certificate (mutual TLS) instead of provider tokens. Default `.token`.
    public var authKind: PushAuthKind = .token
    /// `push.via: connect`: the embedded target reaches the gateway as an APNs client behind a proxy does, by
    /// HTTP CONNECT to api.push.apple.com:443 on the gateway's port. Default `.direct`.
    public var route: PushRoute = .direct

    public init(
        listenHost: String = "127.0.0.1",
        listenPort: Int = 0,
        deadlineNanos: UInt64 = 5_000_000_000,
        bundleID: String = "com.example.callstorm"
    ) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.deadlineNanos = deadlineNanos
        self.bundleID = bundleID
    }
}

/// How the embedded target's APNs client authenticates to the gateway.
public enum PushAuthKind: String, Sendable, Equatable, CaseIterable {
    /// ES256 JWT provider tokens.
    case token
    /// A client certificate in the TLS handshake.
    case certificate
}

/// How the embedded target's APNs client reaches the gateway.
public enum PushRoute: String, Sendable, Equatable, CaseIterable {
    /// Straight to the gateway's address.
    case direct
    /// Through an HTTP CONNECT tunnel opened on the gateway's port, to the APNs host name.
    case connect
}
