import HTTPServer
import TextEscaping

/// The request rules of the APNs provider API, applied in the order APNs reports them.
public struct APNsValidator: Sendable {
    public struct Configuration: Sendable {
        /// The app's bundle id; VoIP pushes must use `<bundle>.voip`.
        public var bundleID: String
        /// Token-based auth: a missing `authorization` header is `MissingProviderToken`.
        public var requireProviderToken: Bool
        /// Keys to verify provider-token signatures with; nil accepts any well-formed token.
        public var keys: ProviderKeys?
        public init(bundleID: String = "com.example.callstorm", requireProviderToken: Bool = true,
                    keys: ProviderKeys? = nil) {
            self.bundleID = bundleID
            self.requireProviderToken = requireProviderToken
            self.keys = keys
        }
    }

    public static let maxPayload = 4096
    public static let maxVoIPPayload = 5120
    private static let singleHeaders = [
        "authorization", "apns-push-type", "apns-topic", "apns-id", "apns-expiration", "apns-priority",
        "apns-collapse-id",
    ]

    public let configuration: Configuration
    /// `<bundle>.voip` and `<bundle>.`, made once rather than per push.
    private let voipTopic: String
    private let topicPrefix: String

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.voipTopic = configuration.bundleID + ".voip"
        self.topicPrefix = configuration.bundleID + "."
    }

    /// Checks one request. `headers` are lowercased names with values, duplicates kept.
    /// Returns the push (with `apnsID` filled in) or the rejection APNs would send. `authorize` checks the
    /// `authorization` value with connection state (the gateway's per-connection token tracking); without it
    /// the token is checked on its own against `configuration.keys`.
    public func validate(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
                         apnsID: String, nowNanos: UInt64, nowEpochSeconds: Int64,
                         authorize: ((String) -> APNsRejection?)? = nil,
                         certificate: CertificateGrant? = nil) -> Result<APNsPush, APNsRejection> {
        // One pass over the headers finds the seven APNs reads and their duplicates (it was seven passes for
        // duplicates plus one per read, a visible share of the gateway's cost per push).
        var known = [String?](repeating: nil, count: Self.singleHeaders.count)
        for (name, value) in headers {
            if let problem = Self.note(name, value, in: &known) { return .failure(problem) }
        }
        return validate(method: method, path: path, known: known, body: body, apnsID: apnsID, nowNanos: nowNanos,
                        nowEpochSeconds: nowEpochSeconds, authorize: authorize, certificate: certificate)
    }

    /// `validate` on a request's own header list, as the gateway has it: mapping it to name/value pairs first
    /// was an array and sixteen retains per push.
    func validate(method: String, path: String, requestHeaders: [HTTPHeader], body: [UInt8],
                  apnsID: String, nowNanos: UInt64, nowEpochSeconds: Int64,
                  authorize: ((String) -> APNsRejection?)? = nil,
                  certificate: CertificateGrant? = nil,
                  payloadPattern: JSONPattern? = nil) -> Result<APNsPush, APNsRejection> {
        var known = [String?](repeating: nil, count: Self.singleHeaders.count)
        // By index: `for header in` copies each element, a retain and a release of both its Strings.
        for i in requestHeaders.indices {
            if let problem = Self.note(requestHeaders[i].name, requestHeaders[i].value, in: &known) {
                return .failure(problem)
            }
        }
        return validate(method: method, path: path, known: known, body: body, apnsID: apnsID, nowNanos: nowNanos,
                        nowEpochSeconds: nowEpochSeconds, authorize: authorize, certificate: certificate,
                        payloadPattern: payloadPattern)
    }

    /// Files one header under its `singleHeaders` slot; the rejection when that slot already holds a value.
    private static func note(_ name: String, _ value: String, in known: inout [String?]) -> APNsRejection? {
        guard let slot = singleHeaderSlot(name) else { return nil }
        if known[slot] != nil { return APNsRejection(.duplicateHeaders, detail: name) }
        known[slot] = value
        return nil
    }

    /// The checks after the header pass; `known` holds the `singleHeaders` values by slot.
    private func validate(method: String, path: String, known: [String?], body: [UInt8], apnsID: String,
                          nowNanos: UInt64, nowEpochSeconds: Int64, authorize: ((String) -> APNsRejection?)?,
                          certificate: CertificateGrant?, payloadPattern: JSONPattern? = nil)
        -> Result<APNsPush, APNsRejection> {
        func header(_ name: String) -> String? { Self.singleHeaderSlot(name).flatMap { known[$0] } }
        // On UTF-8 bytes: String.hasPrefix and dropFirst work in Characters (grapheme breaking), a visible
        // share of a push's cost; the path is ASCII when valid, and a non-ASCII one fails the hex check below.
        guard ByteSearch.hasPrefix(path[...], "/3/device/") else {
            return .failure(APNsRejection(.badPath, detail: path))
        }
        guard method == "POST" else { return .failure(APNsRejection(.methodNotAllowed, detail: method)) }
        let token = String(path[path.utf8.index(path.startIndex, offsetBy: 10)...])
        if token.isEmpty { return .failure(APNsRejection(.missingDeviceToken)) }
        guard token.utf8.count >= 64, Self.allHex(token) else {
            return .failure(APNsRejection(.badDeviceToken, detail: "token must be 64 or more hex digits"))
        }
        if let problem = authenticate(header("authorization"), certificate: certificate,
                                      nowEpochSeconds: nowEpochSeconds, authorize: authorize) {
            return .failure(problem)
        }
        guard let topic = header("apns-topic") ?? certificate?.defaultTopic, !topic.isEmpty else {
            return .failure(APNsRejection(.missingTopic))
        }
        if let certificate, !certificate.topics.contains(topic) {
            return .failure(APNsRejection(.topicDisallowed, detail: "the client certificate allows "
                + certificate.topics.joined(separator: ", ") + ", not \(topic)"))
        }
        let pushType: APNsPush.PushType
        if let raw = header("apns-push-type") {
            // VoIP first: the enum's rawValue init compares against every case in turn.
            guard let parsed = raw == "voip" ? .voip : APNsPush.PushType(rawValue: raw) else {
                return .failure(APNsRejection(.invalidPushType, detail: raw))
            }
            pushType = parsed
        } else if topic.hasSuffix(".voip") {
            pushType = .voip
        } else {
            // APNs requires apns-push-type since iOS 13 / watchOS 6.
            return .failure(APNsRejection(.invalidPushType, detail: "apns-push-type is missing"))
        }
        if let problem = checkTopic(topic, pushType: pushType) { return .failure(problem) }
        var priority = 10
        if let raw = header("apns-priority") {
            guard let value = Int(raw), [1, 5, 10].contains(value) else {
                return .failure(APNsRejection(.badPriority, detail: raw))
            }
            priority = value
        }
        var expiration: Int64?
        if let raw = header("apns-expiration") {
            guard let value = Int64(raw), value >= 0 else { return .failure(APNsRejection(.badExpirationDate, detail: raw)) }
            expiration = value
        }
        let collapseID = header("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return .failure(APNsRejection(.badCollapseId)) }
        if body.isEmpty { return .failure(APNsRejection(.payloadEmpty)) }
        let limit = pushType == .voip ? Self.maxVoIPPayload : Self.maxPayload
        if body.count > limit {
            return .failure(APNsRejection(.payloadTooLarge, detail: "\(body.count) bytes, limit \(limit)"))
        }
        let read = PayloadCheck.read(body, pattern: payloadPattern)
        guard read.isObject else {
            // APNs answers a body that is not a JSON dictionary with 400 PayloadEmpty only when empty; otherwise
            // it is accepted and dropped. We refuse it loudly so a broken target shows up in the report.
            return .failure(APNsRejection(.payloadEmpty, detail: "payload is not a JSON object"))
        }
        return .success(APNsPush(token: token, apnsID: apnsID, pushType: pushType, topic: topic, priority: priority,
                                 expiration: expiration, collapseID: collapseID, payload: body,
                                 acceptedNanos: nowNanos, scanned: read.scanned))
    }

    /// Certificate-based auth (the connection's certificate decides; an authorization header is ignored) or
    /// token-based auth; nil when the push may go on to the topic checks.
    private func authenticate(_ authorization: String?, certificate: CertificateGrant?, nowEpochSeconds: Int64,
                              authorize: ((String) -> APNsRejection?)?) -> APNsRejection? {
        if let certificate { return certificate.problem }
        guard configuration.requireProviderToken else { return nil }
        guard let authorization else {
            return APNsRejection(.missingProviderToken, detail: "neither a client certificate nor an authorization "
                + "header")
        }
        return authorize.map { $0(authorization) }
            ?? ProviderToken.check(authorization, nowEpochSeconds: nowEpochSeconds, keys: configuration.keys)
    }

    private func checkTopic(_ topic: String, pushType: APNsPush.PushType) -> APNsRejection? {
        let bundle = configuration.bundleID
        switch pushType {
        case .voip:
            if topic != voipTopic {
                return APNsRejection(topic.hasPrefix(bundle) ? .deviceTokenNotForTopic : .topicDisallowed,
                                     detail: "voip pushes need topic \(bundle).voip, got \(topic)")
            }
        case .complication, .fileprovider, .liveactivity, .pushtotalk, .widgets, .location:
            if !topic.hasPrefix(topicPrefix) { return APNsRejection(.topicDisallowed, detail: topic) }
        case .alert, .background, .mdm:
            if topic != bundle { return APNsRejection(.topicDisallowed, detail: "expected topic \(bundle), got \(topic)") }
        }
        return nil
    }

    /// `apns-id` must be a canonical UUID (8-4-4-4-12 hex) when given.
    /// Read over the string's own UTF-8: an array of its bytes was an allocation per push that carried an id.
    public static func isValidAPNsID(_ value: String) -> Bool {
        guard value.utf8.count == 36 else { return false }
        var value = value
        return value.withUTF8 { bytes in
            for i in 0..<36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    if bytes[i] != UInt8(ascii: "-") { return false }
                } else if !isHex(bytes[i]) {
                    return false
                }
            }
            return true
        }
    }

    /// The index of `name` in `singleHeaders`, told apart by length first so most names cost one comparison.
    static func singleHeaderSlot(_ name: String) -> Int? {
        switch name.utf8.count {
        case 13: return name == "authorization" ? 0 : name == "apns-priority" ? 5 : nil
        case 14: return name == "apns-push-type" ? 1 : nil
        case 10: return name == "apns-topic" ? 2 : nil
        case 7: return name == "apns-id" ? 3 : nil
        case 15: return name == "apns-expiration" ? 4 : nil
        case 16: return name == "apns-collapse-id" ? 6 : nil
        default: return nil
        }
    }

    /// Whether every byte is a hex digit, over the string's contiguous UTF-8 (the generic UTF8View walk cost
    /// ~40 instructions a byte).
    static func allHex(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.allSatisfy(isHex) }
    }

    /// Two unsigned range tests (a digit, or a letter a–f in either case, folded to lower case by its 0x20 bit)
    /// instead of three two-sided ones: every push's 64-digit token goes through here.
    static func isHex(_ b: UInt8) -> Bool {
        (b &- 48) < 10 || ((b | 0x20) &- 97) < 6
    }
}
