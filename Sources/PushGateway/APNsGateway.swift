import CLinux
import Foundation
import HTTPServer
import Locking
import struct Synchronization.Atomic
import TextEscaping

/// The push gateway: APNs's provider API (`POST /3/device/<token>`) answered exactly as APNs would, and FCM
/// HTTP v1 (`POST /v1/projects/{p}/messages:send`) as a second ingress. Accepted pushes go to the sink.
/// Safe to call from any server thread.
public final class APNsGateway: HTTPHandler {
    /// Totals for the APNs ingress (kept for callers that only count APNs).
    public struct Stats: Sendable, Equatable {
        public var accepted: Int
        public var rejected: [String: Int]
    }

    /// Everything the gateway decides with, as a value.
    public struct Configuration: Sendable {
        public var validator: APNsValidator.Configuration
        public var fcm: FCMIngress
        /// Tokens the scenario marks unregistered, with the instant (epoch ms) they stopped being valid.
        public var unregistered: [String: Int64]

        public init(validator: APNsValidator.Configuration = .init(), fcm: FCMIngress = FCMIngress(),
                    unregistered: [String: Int64] = [:]) {
            self.validator = validator
            self.fcm = fcm
            self.unregistered = unregistered
        }
    }

    private let validator: APNsValidator
    private let fcm: FCMIngress
    private let sink: PushSink
    let tokens: ProviderTokenTracker
    let connections = GatewayConnections()
    private let unregistered: Mutex<[String: Int64]>
    private let metrics = GatewayMetrics()
    private let fcmSequence = Atomic<UInt64>(0)
    private let requests = Atomic<Int>(0)
    /// Called for every answer (for `callstorm gateway`'s log); nil in load runs.
    let log: (@Sendable (String) -> Void)?

    public init(configuration: Configuration, sink: PushSink, log: (@Sendable (String) -> Void)? = nil) {
        self.validator = APNsValidator(configuration: configuration.validator)
        self.fcm = configuration.fcm
        self.sink = sink
        self.tokens = ProviderTokenTracker(keys: configuration.validator.keys)
        self.unregistered = Mutex(configuration.unregistered)
        self.log = log
    }

    public convenience init(validator: APNsValidator = APNsValidator(), sink: PushSink,
                            log: (@Sendable (String) -> Void)? = nil) {
        self.init(configuration: Configuration(validator: validator.configuration), sink: sink, log: log)
    }

    public var stats: Stats {
        let apns = metrics.snapshot(.apns)
        return Stats(accepted: apns.accepted, rejected: apns.rejected)
    }

    /// Requests the gateway began to answer (both ingresses), counted on arrival: once the server has
    /// stopped, it equals accepted + rejected over both ingresses, the push book's first line.
    public var requestsReceived: Int { requests.load(ordering: .relaxed) }

    /// Per-ingress counters and latency since the gateway was made.
    public func ingressStats(_ ingress: Ingress) -> IngressStats {
        metrics.snapshot(ingress)
    }

    /// Provider tokens whose signature and claims were checked (once per token per connection), and token
    /// changes accepted on a connection.
    public var providerTokenCounts: (verified: Int, updates: Int) {
        (tokens.tokensVerified.load(ordering: .relaxed), tokens.tokenUpdates.load(ordering: .relaxed))
    }

    /// From now on, pushes to `token` get 410 Unregistered with `timestamp` `atMillis`, as after an uninstall.
    public func markUnregistered(_ token: String, atMillis: Int64) {
        unregistered.withLock { $0[token] = atMillis }
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let path = request.pathWithoutQuery
        // On bytes: `hasPrefix` and `dropFirst` on a Substring walk Characters (about 6,000 instructions a push).
        let fault = ByteSearch.hasPrefix(path, "/3/device/")
            ? sink.gatewayFault(token: path[path.utf8.index(path.startIndex, offsetBy: Self.devicePathBytes)...])
            : nil
        switch fault {
        case nil:
            handleUnfaulted(request, respond: respond)
        case .refuse?:
            respond(answer(request, refuse: true))
        case .stall(let wait)?:
            // A brown-out that stalls: the stream stays open, unanswered, until the window ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(min(wait, 3_600_000_000_000)))) {
                self.handleUnfaulted(request, respond: respond)
            }
        }
    }

    private static let devicePathBytes = 10  // "/3/device/"

    private func handleUnfaulted(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let script = ScriptedAnswer(payload: request.body)
        guard let script, script.delayMillis > 0 else {
            return respond(answer(request, refuse: false, script: .some(script)))
        }
        // A scripted delay: answered later from another queue, never blocking the loop.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(script.delayMillis)) {
            respond(self.answer(request))
        }
    }

    public func connectionClosed(_ id: UInt64) {
        tokens.forget(id)
        connections.forget(id)
    }

    /// The whole decision for one request; separate from `handle` so tests need no socket.
    /// `refuse`: a brown-out answers 503 ServiceUnavailable before looking at the push.
    public func answer(_ request: HTTPRequest, refuse: Bool = false) -> HTTPResponse {
        answer(request, refuse: refuse, script: nil)
    }

    /// `script`: the body's scripted answer when the caller already looked for it (`.some(nil)`: it has none),
    /// so the body is searched once per push, not twice; nil looks here.
    private func answer(_ request: HTTPRequest, refuse: Bool, script: ScriptedAnswer??) -> HTTPResponse {
        requests.add(1, ordering: .relaxed)
        if FCMIngress.matches(request.pathWithoutQuery) { return answerFCM(request) }
        let now = clinux_monotonic_ns()
        let received = request.receivedNanos == 0 ? now : request.receivedNanos
        let found = Self.addressing(request.headers)
        let given = found.apnsID
        let apnsID = given ?? MessageID.random()
        var responseHeaders = [HTTPHeader(name: "apns-id", value: apnsID)]
        // The host the client reached: a header, else the CONNECT target (HTTP/2 carries :authority apart).
        let host = found.host ?? found.authority ?? request.tunnelTarget
        if let authority = host,
           ByteSearch.contains(authority, "sandbox") || ByteSearch.contains(authority, "development") {
            responseHeaders.append(HTTPHeader(name: "apns-unique-id", value: MessageID.random()))
        }
        func reject(_ rejection: APNsRejection) -> HTTPResponse {
            metrics.record(.apns, rejectedReason: rejection.reason.rawValue, bytes: request.body.count,
                           latencyNanos: clinux_monotonic_ns() &- received)
            log?("apns \(rejection) \(request.method) \(request.path) apns-id=\(apnsID)")
            return HTTPResponse.json(rejection.status, rejection.body, headers: responseHeaders)
        }
        if refuse {
            return reject(APNsRejection(.serviceUnavailable, detail: "brown-out injected by a fault window"))
        }
        if let given, !APNsValidator.isValidAPNsID(given) {
            return reject(APNsRejection(.badMessageId, detail: given))
        }
        let epoch = MessageID.epochSeconds()
        let connection = request.connectionID
        let grant = request.clientCertificate.map { CertificateGrant($0, host: host ?? $0.serverName) }
        connections.note(connection) {
            grant != nil ? .certificate : request.header("authorization") != nil ? .token : .none
        }
        let result = validator.validate(
            method: request.method, path: request.path, requestHeaders: request.headers, body: request.body,
            apnsID: apnsID,
            nowNanos: received, nowEpochSeconds: epoch,
            authorize: { [tokens] auth in tokens.authorize(auth, connection: connection, nowEpochSeconds: epoch) },
            certificate: grant, payloadPattern: sink.payloadPattern)
        switch result {
        case .failure(let rejection):
            return reject(rejection)
        case .success(let push):
            // Hashing the 64-digit token costs more than the check when the scenario marks none.
            if let gone = unregistered.withLock({ $0.isEmpty ? nil : $0[push.token] }) {
                return reject(APNsRejection(.unregistered, detail: "the scenario marks this token unregistered",
                                            timestampMillis: gone))
            }
            if let scripted = (script ?? ScriptedAnswer(payload: push.payload))?.rejection {
                return reject(APNsRejection(scripted, detail: "scripted by the payload's \(ScriptedAnswer.key)",
                                            timestampMillis: scripted.status == 410 ? epoch * 1000 : nil))
            }
            let decided = sink.answer(push)
            if let rejection = decided.rejection {
                var response = reject(rejection)
                response.goAway = decided.goAway
                return response
            }
            metrics.record(.apns, rejectedReason: nil, bytes: request.body.count,
                           latencyNanos: clinux_monotonic_ns() &- received)
            log?("apns 200 \(push.pushType.rawValue) \(request.path) apns-id=\(apnsID)")
            var response = HTTPResponse(status: 200, headers: responseHeaders, body: [])
            response.goAway = decided.goAway
            return response
        }
    }

    /// The first `apns-id`, `host` and `:authority` (names in any case), as `request.header` finds them, in one
    /// pass: three lookups cost about a thousand instructions per push.
    private static func addressing(_ headers: [HTTPHeader]) -> (apnsID: String?, host: String?, authority: String?) {
        var found: (apnsID: String?, host: String?, authority: String?) = (nil, nil, nil)
        // By index, not `for header in`: a copied element retains and releases both of its Strings.
        for i in headers.indices {
            switch headers[i].name.utf8.count {
            case 7 where found.apnsID == nil && ByteSearch.equalsIgnoringCase(headers[i].name, "apns-id"):
                found.apnsID = headers[i].value
            case 4 where found.host == nil && ByteSearch.equalsIgnoringCase(headers[i].name, "host"):
                found.host = headers[i].value
            case 10 where found.authority == nil && ByteSearch.equalsIgnoringCase(headers[i].name, ":authority"):
                found.authority = headers[i].value
            default:
                break
            }
        }
        return found
    }

    private func answerFCM(_ request: HTTPRequest) -> HTTPResponse {
        let now = clinux_monotonic_ns()
        let received = request.receivedNanos == 0 ? now : request.receivedNanos
        let sequence = fcmSequence.wrappingAdd(1, ordering: .relaxed).newValue
        let messageID = "0:\(received)%\(String(sequence, radix: 16))"
        func reject(_ rejection: FCMRejection) -> HTTPResponse {
            metrics.record(.fcm, rejectedReason: rejection.code.rawValue, bytes: request.body.count,
                           latencyNanos: clinux_monotonic_ns() &- received)
            log?("fcm \(rejection) \(request.method) \(request.path)")
            return HTTPResponse.json(rejection.status, rejection.body)
        }
        switch fcm.validate(request, messageID: messageID, nowNanos: received) {
        case .failure(let rejection):
            return reject(rejection)
        case .success(let push):
            if unregistered.withLock({ $0[push.token] }) != nil {
                return reject(FCMRejection(.unregistered, "Requested entity was not found."))
            }
            if let refused = sink.accept(push) {
                switch refused.reason {
                case .unregistered, .expiredToken, .badDeviceToken:
                    return reject(FCMRejection(.unregistered, "Requested entity was not found."))
                case .tooManyRequests:
                    return reject(FCMRejection(.quotaExceeded, "Quota exceeded for this device."))
                case .internalServerError:
                    return reject(FCMRejection(.internalError, "Internal error encountered."))
                default:
                    return reject(FCMRejection(.unavailable, "The service is currently unavailable."))
                }
            }
            metrics.record(.fcm, rejectedReason: nil, bytes: request.body.count,
                           latencyNanos: clinux_monotonic_ns() &- received)
            let project = push.topic.dropFirst(4)
            let name = "projects/\(project)/messages/\(messageID)"
            log?("fcm 200 \(push.pushType.rawValue) \(request.path) name=\(name)")
            return HTTPResponse.json(200, "{\"name\":\"\(JSONText.escape(name))\"}")
        }
    }
}
