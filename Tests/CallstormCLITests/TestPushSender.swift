import Credentials
import Dispatch
import Foundation
import struct Synchronization.Atomic
import Transport

/// The APNs client of the test call servers (AltCallServer, ForeignCallServer, DialectCallServer): ordinary
/// provider-API requests to callstorm's gateway, so each server's pushes travel the path a real server's do.
/// Over `https` it speaks HTTP/2 over TLS trusting `caFile`; its ES256 provider token is made once, because APNs
/// answers TooManyProviderTokenUpdates to a connection whose token changes more often than every 20 minutes.
final class TestPushSender: @unchecked Sendable {
    private let gateway: String
    private let providerToken: String
    private let queue: DispatchQueue
    /// Touched only on `queue`.
    private var client: HTTPClient!
    /// Pushes the gateway did not answer 200 (or that never reached it).
    let failed = Atomic<Int>(0)

    /// `caFile` and `signer` for an `https` gateway that verifies tokens; without them a cleartext gateway that
    /// accepts any well-formed token.
    init(gatewayURL: String, caFile: String? = nil, signer: ProviderTokenSigner? = nil, label: String = "test.push") {
        gateway = gatewayURL
        queue = DispatchQueue(label: label)
        providerToken = signer?.token(issuedAt: Int64(Date().timeIntervalSince1970)) ?? ProviderTokenText.make()
        var configuration = HTTPClient.Configuration()
        if gatewayURL.hasPrefix("https://") {
            configuration.version = .http2TLS
            configuration.caFile = caFile
            configuration.maxConnections = 4
        }
        queue.sync { client = HTTPClient(queue: queue, configuration: configuration) }
    }

    func close() { queue.sync { client.close() } }

    /// Sends one push to `token` (VoIP at priority 10, or background at 5) without waiting for the answer.
    func send(_ token: String, voip: Bool = true, _ payload: String) {
        let header = providerToken
        queue.async { [self] in
            let request = ClientRequest(method: "POST", url: "\(gateway)/3/device/\(token)", headers: [
                "authorization: bearer \(header)", "apns-push-type: \(voip ? "voip" : "background")",
                "apns-topic: com.example.callstorm\(voip ? ".voip" : "")", "apns-priority: \(voip ? 10 : 5)",
            ], body: Array(payload.utf8))
            send(request, retries: 1)
        }
    }

    /// As an APNs client does, a request that never got an answer (a pooled connection the gateway of an earlier
    /// run had closed) is sent again once on a fresh connection; an answer other than 200 is not retried.
    private func send(_ request: ClientRequest, retries: Int) {
        client.send(request) { [self] result in
            switch result {
            case .success(let response):
                if response.status != 200 { failed.add(1, ordering: .relaxed) }
            case .failure where retries > 0:
                send(request, retries: retries - 1)
            case .failure:
                failed.add(1, ordering: .relaxed)
            }
        }
    }
}

/// A well-formed ES256 provider token (the gateway checks shape and age unless keys are configured).
enum ProviderTokenText {
    static func make() -> String {
        func b64(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let now = Int(Date().timeIntervalSince1970)
        return b64("{\"alg\":\"ES256\",\"kid\":\"ALTSERVER1\"}") + "."
            + b64("{\"iss\":\"ALTTEAM123\",\"iat\":\(now)}") + ".c2lnbmF0dXJl"
    }
}
