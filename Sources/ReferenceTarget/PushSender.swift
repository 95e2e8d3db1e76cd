import Credentials
import Dispatch
import EventPolling
import Foundation
import HTTP2Wire
import HTTPWire
import Locking
import struct Synchronization.Atomic
import Transport

/// How the reference target's APNs client reaches and signs in to a push gateway: the CA to trust for an
/// `https` gateway, and the key its provider tokens are signed with.
public struct PushClientSettings: Sendable {
    /// PEM CA bundle for the gateway's certificate; nil uses the system store.
    public var caFile: String?
    /// Signs the provider tokens; nil makes a key for this client alone (a gateway without configured keys
    /// accepts any well-formed token).
    public var signer: ProviderTokenSigner?
    /// `http://host:port` of the proxy the gateway URL is reached through (HTTP CONNECT), as an APNs client
    /// behind `HTTPS_PROXY` does; nil connects directly.
    public var proxy: String?
    /// A PEM file with a push client certificate and its key: certificate-based provider auth (mutual TLS), and
    /// no provider tokens are sent. Nil uses token auth.
    public var clientCertificatePath: String?

    public init(caFile: String? = nil, signer: ProviderTokenSigner? = nil, proxy: String? = nil,
                clientCertificatePath: String? = nil) {
        self.caFile = caFile
        self.signer = signer
        self.proxy = proxy
        self.clientCertificatePath = clientCertificatePath
    }

    private static let registry = Mutex<[String: PushClientSettings]>([:])

    /// Makes the target's push client for `gatewayURL` use these settings. Call before creating the target
    /// (`ReferenceTarget.Configuration` names only the URL; this carries what TLS and token auth add).
    public static func register(_ settings: PushClientSettings, forGatewayURL gatewayURL: String) {
        registry.withLock { $0[normalized(gatewayURL)] = settings }
    }

    static func lookUp(_ gatewayURL: String) -> PushClientSettings {
        registry.withLock { $0[normalized(gatewayURL)] } ?? PushClientSettings()
    }

    static func normalized(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

/// The reference target's APNs client: sends VoIP and background pushes to the push gateway like a production
/// APNs client — HTTP/2 over TLS on one multiplexed connection, with ES256 provider tokens signed by OpenSSL and
/// renewed every 40 minutes, or certificate auth.
///
/// An `https` gateway reached directly goes through HTTP2Wire's `H2Client` (nghttp2 over our TLS sockets, ALPN
/// h2) on an `EventThread` of its own: measured under callgrind, libcurl's HTTP/2 path cost ~290 k instructions
/// a push (docs/BENCHMARKS.md). libcurl (`Transport.HTTPClient`) stays for what that client does not speak: a
/// gateway behind an HTTP CONNECT proxy (`PushClientSettings.proxy`) and a cleartext `http` gateway (HTTP/1.1).
final class PushSender: @unchecked Sendable {
    // Ownership: `client`, `h2` and `token*` are touched only on `queue` (the event thread runs its batches there).
    private let queue = DispatchQueue(label: "callstorm.target.push")
    private var client: HTTPClient?
    private var h2: H2Client?
    private let thread: EventThread?
    /// The path before the device token: the gateway URL's path, if any, and `/3/device/`.
    private let devicePath: String
    /// The app's bundle id (the topic) and the fields made for the provider token in use.
    private var pushFields: PushFields
    private let baseURL: String
    /// Certificate auth: the handshake authenticates, and requests carry no `authorization`.
    private let usesCertificate: Bool
    private var tokens: ProviderTokenCache
    let sent = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    /// Attempts made again after a 429/500/503 answer or a transport failure, and pushes accepted after one.
    let retried = Atomic<Int>(0)
    let recovered = Atomic<Int>(0)
    /// How many times a push is tried again (0: never), with backoff `retryBaseMillis` × 2^attempt.
    private let retries: Int
    static let retryBaseMillis = 100

    /// 0 sends `apns-expiration: 0`; otherwise pushes expire this many seconds after they are sent.
    private let expirationSeconds: Int

    init(gatewayURL: String, bundleID: String, expirationSeconds: Int = 0, retries: Int = 0,
         scheduling: ThreadScheduling = .normal, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.expirationSeconds = expirationSeconds
        self.retries = retries
        self.baseURL = PushClientSettings.normalized(gatewayURL)
        pushFields = PushFields(bundleID: bundleID)
        let settings = PushClientSettings.lookUp(gatewayURL)
        usesCertificate = settings.clientCertificatePath != nil
        var signer = settings.signer
        if signer == nil, let key = try? ES256Key.generate() {
            signer = ProviderTokenSigner(keyID: "CALLSTORM1", teamID: "CALLSTORMT", key: key)
        }
        tokens = ProviderTokenCache(signer: signer, now: now)
        // CALLSTORM_TARGET_PUSH_CLIENT=curl keeps libcurl for an https gateway too: the same binary measured both
        // ways (docs/BENCHMARKS.md), and a way back should a gateway need what only libcurl speaks.
        let curl = ProcessInfo.processInfo.environment["CALLSTORM_TARGET_PUSH_CLIENT"] == "curl"
        let origin = settings.proxy == nil && !curl ? GatewayOrigin(baseURL) : nil
        devicePath = (origin?.path ?? "") + "/3/device/"
        if let origin, let tls = try? H2Client.tls(caFile: settings.caFile,
                                                    certificatePath: settings.clientCertificatePath) {
            let thread = EventThread(queue: queue, name: "callstorm.target.push", scheduling: scheduling)
            self.thread = thread
            queue.sync { self.h2 = H2Client(thread: thread, host: origin.host, port: origin.port, tls: tls) }
            return
        }
        thread = nil
        var configuration = HTTPClient.Configuration()
        if gatewayURL.hasPrefix("https://") {
            configuration.version = .http2TLS
            configuration.caFile = settings.caFile
            // Streams multiplex on one connection; a small cache is enough.
            configuration.maxConnections = 4
            configuration.proxy = settings.proxy
            configuration.clientCertificatePath = settings.clientCertificatePath
        }
        queue.sync { self.client = HTTPClient(queue: self.queue, configuration: configuration) }
    }

    /// The provider token in use, read on `queue` (for tests).
    func currentToken() -> String { queue.sync { tokens.token } }

    func close() {
        guard let thread else { return queue.sync { client?.close() } }
        thread.sync { h2?.close() }
        thread.stop()
        thread.waitUntilStopped()
    }

    enum Kind {
        case voip
        case background
    }

    func send(_ kind: Kind, token deviceToken: String, payload: String) {
        send(kind, token: deviceToken, payload: Array(payload.utf8))
    }

    /// The payload as the target built it, in bytes (no String made of it and read back).
    func send(_ kind: Kind, token deviceToken: String, payload: [UInt8]) {
        let work: @Sendable () -> Void = { [self] in
            attempt(kind, token: deviceToken, payload: payload, apnsID: nil, number: 0)
        }
        if let thread { thread.post(work) } else { queue.async(execute: work) }
    }

    /// One try of a push. Apple asks providers to retry 429 TooManyRequests, 500 and 503 with backoff, and a
    /// push lost with its connection; a retry keeps the first try's `apns-id`, so APNs (and the devices' books)
    /// can tell it is the same notification. Any other answer is final. Runs on `queue`.
    private func attempt(_ kind: Kind, token deviceToken: String, payload: [UInt8], apnsID: String?, number: Int) {
        let isVoIP = kind == .voip
        let expiration = expirationSeconds > 0 ? Int(tokens.now()) + expirationSeconds : 0
        let fields = pushFields.fields(isVoIP, authorization: usesCertificate ? nil : tokens.current(),
                                       expiration: expiration)
        // Only a push that may be retried needs an id of its own before the first answer.
        let id = apnsID ?? (retries > 0 ? UUID().lowercaseText : nil)
        let answered = { [self] (status: Int?) in
            answer(status, kind, token: deviceToken, payload: payload, apnsID: id, number: number)
        }
        if let h2 {
            // The id apart from the fields every push repeats: appended to them, it copied that array per push.
            let request = H2Request(method: "POST", path: devicePath + deviceToken, fields: fields,
                                    moreFields: id.map { [H2Field("apns-id", $0)] } ?? [], body: payload,
                                    timeoutMillis: 10_000)
            h2.send(request) { result in answered(try? result.get().status) }
            return
        }
        let all = fields + (id.map { [H2Field("apns-id", $0)] } ?? [])
        var request = ClientRequest(method: "POST", url: "\(baseURL)/3/device/\(deviceToken)",
                                    headers: all.map { "\($0.name): \($0.value)" }, body: payload,
                                    timeoutMillis: 10_000)
        request.collectsHeaders = false
        client?.send(request) { result in
            guard case .success(let response) = result else { return answered(nil) }
            answered(response.status)
        }
    }

    /// What an attempt's answer (nil: no answer, the transport failed) makes of the push: sent, failed, or tried
    /// again after a backoff.
    private func answer(_ status: Int?, _ kind: Kind, token deviceToken: String, payload: [UInt8], apnsID: String?,
                        number: Int) {
        if status == 200 {
            sent.add(1, ordering: .relaxed)
            if number > 0 { recovered.add(1, ordering: .relaxed) }
            return
        }
        let retryable = status.map { [429, 500, 503].contains($0) } ?? true
        guard retryable, number < retries else {
            failed.add(1, ordering: .relaxed)
            return
        }
        retried.add(1, ordering: .relaxed)
        let backoff = Self.retryBaseMillis << number
        queue.asyncAfter(deadline: .now() + .milliseconds(backoff)) { [self] in
            attempt(kind, token: deviceToken, payload: payload, apnsID: apnsID, number: number + 1)
        }
    }
}

/// What every push's fields but `apns-id` are made from, and the last ones made (`PushSender.attempt`).
struct PushFields {
    let bundleID: String
    private var made: (authorization: String?, voip: [H2Field], background: [H2Field])?

    init(bundleID: String) { self.bundleID = bundleID }

    /// A push's fields but `apns-id`: made once per provider token and kind while pushes do not expire (the
    /// default), since they differ by nothing else: an array of six fields, the topic and the expiration's text
    /// made per push cost ~4,800 instructions and 11 retains a push (issue 33, the capacity flow's profile).
    mutating func fields(_ isVoIP: Bool, authorization: String?, expiration: Int) -> [H2Field] {
        if expiration == 0, let made, made.authorization == authorization {
            return isVoIP ? made.voip : made.background
        }
        let bundleID = bundleID
        let make = { (voip: Bool) -> [H2Field] in
            var fields = authorization.map { [H2Field("authorization", $0)] } ?? []
            fields += [
                H2Field("apns-push-type", voip ? "voip" : "background"),
                H2Field("apns-topic", voip ? bundleID + ".voip" : bundleID),
                H2Field("apns-priority", voip ? "10" : "5"),
                H2Field("apns-expiration", String(expiration)),
                H2Field("content-type", "application/json"),
            ]
            return fields
        }
        guard expiration == 0 else { return make(isVoIP) }
        let fresh = (authorization: authorization, voip: make(true), background: make(false))
        made = fresh
        return isVoIP ? fresh.voip : fresh.background
    }
}

/// The provider token in use and when it was issued: an ES256 JWT renewed every 40 minutes (APNs refuses one
/// older than an hour and one renewed more often than every 20 minutes on a connection).
struct ProviderTokenCache {
    let signer: ProviderTokenSigner?
    /// Epoch seconds: the clock tokens are issued and pushes expire by (a test moves it).
    let now: @Sendable () -> Int64
    private(set) var token = ""
    /// `bearer <token>`, made once per token rather than per push.
    private var authorization = ""
    private var issued: Int64 = 0

    init(signer: ProviderTokenSigner?, now: @escaping @Sendable () -> Int64) {
        self.signer = signer
        self.now = now
    }

    /// The `authorization` value for a push sent now: `bearer <token>`, renewed when 40 minutes old.
    mutating func current() -> String {
        let now = now()
        if token.isEmpty || now - issued > 40 * 60 {
            issued = now
            token = signer?.token(issuedAt: now) ?? ""
            authorization = "bearer " + token
        }
        return authorization
    }
}

/// An `https://host[:port][/path]` gateway URL, as `H2Client` needs it; nil for anything else.
struct GatewayOrigin: Equatable {
    var host: String
    var port: Int
    var path: String

    init(host: String, port: Int, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    /// Read with HTTPWire's one URL reader (`WireOrigin.parse`); its target `/` (nothing after the authority)
    /// is no path prefix here, since the client adds `/3/device/…`.
    init?(_ url: String) {
        guard let (origin, target) = try? WireOrigin.parse(url), origin.secure else { return nil }
        host = origin.host
        port = origin.port
        path = target == "/" ? "" : target
    }
}
