import Foundation
import HTTPServer
import TextEscaping

/// An FCM HTTP v1 error: the status, FCM's canonical status name and error code, in FCM's body shape.
public struct FCMRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidArgument = "INVALID_ARGUMENT"
        case unregistered = "UNREGISTERED"
        case senderIDMismatch = "SENDER_ID_MISMATCH"
        case quotaExceeded = "QUOTA_EXCEEDED"
        case unavailable = "UNAVAILABLE"
        case internalError = "INTERNAL"
        case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"
        /// Not an FCM error code: Google's own answer to a request without OAuth credentials.
        case unauthenticated = "UNAUTHENTICATED"
        case notFound = "NOT_FOUND"
        case methodNotAllowed = "METHOD_NOT_ALLOWED"

        public var status: Int {
            switch self {
            case .invalidArgument: return 400
            case .unregistered, .notFound: return 404
            case .senderIDMismatch: return 403
            case .quotaExceeded: return 429
            case .unavailable: return 503
            case .internalError: return 500
            case .thirdPartyAuthError, .unauthenticated: return 401
            case .methodNotAllowed: return 405
            }
        }

        /// The `status` string in the error body (the google.rpc code FCM maps each error code to).
        var rpcStatus: String {
            switch self {
            case .unregistered: return "NOT_FOUND"
            case .senderIDMismatch: return "PERMISSION_DENIED"
            case .quotaExceeded: return "RESOURCE_EXHAUSTED"
            case .thirdPartyAuthError: return "UNAUTHENTICATED"
            default: return rawValue
            }
        }

        /// Whether the body names the code in `details[].errorCode` (FCM's own codes do; Google's generic ones
        /// don't).
        var isFCMCode: Bool {
            switch self {
            case .unauthenticated, .notFound, .methodNotAllowed: return false
            default: return true
            }
        }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var status: Int { code.status }

    public var body: String {
        let text = JSONText.escape(message)
        var details = ""
        if code.isFCMCode {
            details = ",\"details\":[{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.FcmError\","
                + "\"errorCode\":\"\(code.rawValue)\"}]"
        }
        return "{\"error\":{\"code\":\(status),\"message\":\"\(text)\",\"status\":\"\(code.rpcStatus)\"\(details)}}"
    }

    public var description: String { "\(status) \(code.rawValue): \(message)" }
}

/// The FCM HTTP v1 ingress: `POST /v1/projects/{project}/messages:send` with an OAuth bearer and
/// `{"message": {"token", "data": {string: string}, "android": {"priority": "HIGH", "ttl": "…s"}}}`.
/// A high-priority data message becomes a VoIP-class push for the device, a normal one a background push.
public struct FCMIngress: Sendable {
    public static let pathPrefix = "/v1/projects/"
    public static let maxMessageBytes = 4096

    /// The project every request must name; nil accepts any.
    public var projectID: String?

    public init(projectID: String? = nil) {
        self.projectID = projectID
    }

    public static func matches(_ path: Substring) -> Bool {
        ByteSearch.hasPrefix(path, "/v1/projects/")  // bytes: `hasPrefix` walks Characters (~1,200 per push)
    }

    /// The push to deliver, or FCM's rejection. `messageID` names the accepted message.
    public func validate(_ request: HTTPRequest, messageID: String, nowNanos: UInt64)
        -> Result<APNsPush, FCMRejection> {
        let path = request.pathWithoutQuery
        let rest = path.dropFirst(Self.pathPrefix.count)
        guard let slash = rest.firstIndex(of: "/"), rest[slash...] == "/messages:send" else {
            return .failure(FCMRejection(.notFound, "no such method: \(path)"))
        }
        let project = String(rest[..<slash])
        guard request.method == "POST" else {
            return .failure(FCMRejection(.methodNotAllowed, "messages:send takes POST, not \(request.method)"))
        }
        guard let auth = request.header("authorization"), auth.hasPrefix("Bearer ") || auth.hasPrefix("bearer "),
              auth.utf8.count > 7 else {
            return .failure(FCMRejection(.unauthenticated,
                                         "Request is missing required authentication credential. Expected OAuth 2 "
                                            + "access token."))
        }
        if let projectID, project != projectID {
            return .failure(FCMRejection(.senderIDMismatch, "project \(project) is not the sender of this token"))
        }
        guard JSONShape.isObject(request.body),
              let root = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
              let message = root["message"] as? [String: Any] else {
            return .failure(FCMRejection(.invalidArgument, "the body must be {\"message\": {...}}"))
        }
        guard let token = message["token"] as? String, !token.isEmpty else {
            return .failure(FCMRejection(.invalidArgument, "message.token is required (topic and condition sends "
                + "are not simulated)"))
        }
        var data: [String: String] = [:]
        if let raw = message["data"] {
            guard let dict = raw as? [String: Any] else {
                return .failure(FCMRejection(.invalidArgument, "message.data must be a map of strings"))
            }
            for (key, value) in dict {
                guard let text = value as? String else {
                    return .failure(FCMRejection(.invalidArgument, "message.data.\(key) must be a string"))
                }
                data[key] = text
            }
        }
        var high = false
        var collapseKey: String?
        if let raw = message["android"] {
            guard let android = raw as? [String: Any] else {
                return .failure(FCMRejection(.invalidArgument, "message.android must be an object"))
            }
            if let priority = android["priority"] {
                switch priority as? String {
                case "HIGH", "high": high = true
                case "NORMAL", "normal": high = false
                default:
                    return .failure(FCMRejection(.invalidArgument, "message.android.priority must be HIGH or NORMAL"))
                }
            }
            if let ttl = android["ttl"] {
                guard let text = ttl as? String, Self.isDuration(text) else {
                    return .failure(FCMRejection(.invalidArgument, "message.android.ttl must look like \"30s\""))
                }
            }
            collapseKey = android["collapse_key"] as? String
        }
        let payload = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])).map { [UInt8]($0) }
            ?? Array("{}".utf8)
        if payload.count > Self.maxMessageBytes {
            return .failure(FCMRejection(.invalidArgument, "Message is too big: \(payload.count) bytes of data, "
                + "limit \(Self.maxMessageBytes)"))
        }
        return .success(APNsPush(token: token, apnsID: messageID, pushType: high ? .voip : .background,
                                 topic: "fcm:" + project, priority: high ? 10 : 5, expiration: nil,
                                 collapseID: collapseKey, payload: payload, acceptedNanos: nowNanos))
    }

    /// `"3.5s"`, `"0s"`: protobuf's Duration in JSON.
    static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let number = text.dropLast()
        guard !number.isEmpty else { return false }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return false }
        return parts.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } } && (parts.count == 1 || !parts[1].isEmpty)
    }
}
