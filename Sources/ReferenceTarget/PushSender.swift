import Dispatch
import Foundation
import Synchronization
import Transport

/// The reference target's APNs client: sends VoIP and background pushes to the push gateway on its own queue.
final class PushSender: @unchecked Sendable {
    // Ownership: `client` and `token*` are touched only on `queue`.
    private let queue = DispatchQueue(label: "callstorm.target.push")
    private var client: HTTPClient!
    private let baseURL: String
    private let bundleID: String
    private var token = ""
    private var tokenIssued: Int64 = 0
    let sent = Atomic<Int>(0)
    let failed = Atomic<Int>(0)

    init(gatewayURL: String, bundleID: String) {
        self.baseURL = gatewayURL.hasSuffix("/") ? String(gatewayURL.dropLast()) : gatewayURL
        self.bundleID = bundleID
        queue.sync { self.client = HTTPClient(queue: self.queue) }
    }

    func close() {
        queue.sync { client.close() }
    }

    enum Kind {
        case voip
        case background
    }

    func send(_ kind: Kind, token deviceToken: String, payload: String) {
        queue.async { [self] in
            let isVoIP = kind == .voip
            let headers = [
                "authorization: bearer \(providerToken())",
                "apns-push-type: \(isVoIP ? "voip" : "background")",
                "apns-topic: \(isVoIP ? bundleID + ".voip" : bundleID)",
                "apns-priority: \(isVoIP ? 10 : 5)",
                "apns-expiration: 0",
                "content-type: application/json",
            ]
            let request = ClientRequest(method: "POST", url: "\(baseURL)/3/device/\(deviceToken)", headers: headers,
                                        body: Array(payload.utf8), timeoutMillis: 10_000)
            client.send(request) { [self] result in
                if case .success(let response) = result, response.status == 200 {
                    sent.add(1, ordering: .relaxed)
                } else {
                    failed.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// A well-formed ES256 provider token, renewed every 40 minutes (APNs refuses one older than an hour and one
    /// renewed more often than every 20 minutes). The signature is a placeholder until the gateway verifies keys.
    private func providerToken() -> String {
        let now = Int64(Date().timeIntervalSince1970)
        if token.isEmpty || now - tokenIssued > 40 * 60 {
            tokenIssued = now
            let header = Data("{\"alg\":\"ES256\",\"kid\":\"CALLSTORM1\"}".utf8)
            let claims = Data("{\"iss\":\"CALLSTORMT\",\"iat\":\(now)}".utf8)
            token = [header, claims, Data(repeating: 7, count: 64)].map(base64URL).joined(separator: ".")
        }
        return token
    }

    private func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
