import Credentials
import Dispatch
import Foundation
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

/// The reference target's APNs client: sends VoIP and background pushes to the push gateway on its own queue,
/// like a production APNs client — HTTP/2 over TLS on one multiplexed connection (libcurl) when the gateway URL
/// is `https`, with ES256 provider tokens signed by OpenSSL and renewed every 40 minutes.
final class PushSender: @unchecked Sendable {
    // Ownership: `client` and `token*` are touched only on `queue`.
    private let queue = DispatchQueue(label: "callstorm.target.push")
    private var client: HTTPClient!
    private let baseURL: String
    private let bundleID: String
    private let signer: ProviderTokenSigner?
    /// Certificate auth: the handshake authenticates, and requests carry no `authorization`.
    private let usesCertificate: Bool
    private var token = ""
    private var tokenIssued: Int64 = 0
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

    init(gatewayURL: String, bundleID: String, expirationSeconds: Int = 0, retries: Int = 0) {
        self.expirationSeconds = expirationSeconds
        self.retries = retries
        self.baseURL = PushClientSettings.normalized(gatewayURL)
        self.bundleID = bundleID
        let settings = PushClientSettings.lookUp(gatewayURL)
        usesCertificate = settings.clientCertificatePath != nil
        if let signer = settings.signer {
            self.signer = signer
        } else if let key = try? ES256Key.generate() {
            self.signer = ProviderTokenSigner(keyID: "CALLSTORM1", teamID: "CALLSTORMT", key: key)
        } else {
            self.signer = nil
        }
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

    func close() {
        queue.sync { client.close() }
    }

    enum Kind {
        case voip
        case background
    }

    func send(_ kind: Kind, token deviceToken: String, payload: String) {
        queue.async { [self] in attempt(kind, token: deviceToken, payload: Array(payload.utf8), apnsID: nil, number: 0) }
    }

    /// One try of a push. Apple asks providers to retry 429 TooManyRequests, 500 and 503 with backoff, and a
    /// push lost with its connection; a retry keeps the first try's `apns-id`, so APNs (and the devices' books)
    /// can tell it is the same notification. Any other answer is final. Runs on `queue`.
    private func attempt(_ kind: Kind, token deviceToken: String, payload: [UInt8], apnsID: String?, number: Int) {
        let isVoIP = kind == .voip
        let expiration = expirationSeconds > 0 ? Int(Date().timeIntervalSince1970) + expirationSeconds : 0
        var headers = usesCertificate ? [] : ["authorization: bearer \(providerToken())"]
        headers += [
            "apns-push-type: \(isVoIP ? "voip" : "background")",
            "apns-topic: \(isVoIP ? bundleID + ".voip" : bundleID)",
            "apns-priority: \(isVoIP ? 10 : 5)",
            "apns-expiration: \(expiration)",
            "content-type: application/json",
        ]
        // Only a push that may be retried needs an id of its own before the first answer.
        let id = apnsID ?? (retries > 0 ? UUID().uuidString.lowercased() : nil)
        if let id { headers.append("apns-id: \(id)") }
        var request = ClientRequest(method: "POST", url: "\(baseURL)/3/device/\(deviceToken)", headers: headers,
                                    body: payload, timeoutMillis: 10_000)
        request.collectsHeaders = false
        client.send(request) { [self] result in
            var retryable = true
            if case .success(let response) = result {
                if response.status == 200 {
                    sent.add(1, ordering: .relaxed)
                    if number > 0 { recovered.add(1, ordering: .relaxed) }
                    return
                }
                retryable = [429, 500, 503].contains(response.status)
            }
            guard retryable, number < retries else {
                failed.add(1, ordering: .relaxed)
                return
            }
            retried.add(1, ordering: .relaxed)
            let backoff = Self.retryBaseMillis << number
            queue.asyncAfter(deadline: .now() + .milliseconds(backoff)) { [self] in
                attempt(kind, token: deviceToken, payload: payload, apnsID: id, number: number + 1)
            }
        }
    }

    /// The current ES256 provider token, renewed every 40 minutes (APNs refuses one older than an hour and one
    /// renewed more often than every 20 minutes on a connection).
    private func providerToken() -> String {
        let now = Int64(Date().timeIntervalSince1970)
        if token.isEmpty || now - tokenIssued > 40 * 60 {
            tokenIssued = now
            token = signer?.token(issuedAt: now) ?? ""
        }
        return token
    }
}
