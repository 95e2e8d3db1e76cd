import Foundation
import Reports

/// The commonest first runs against a new server fail for a reason callstorm can see in its own counters: no
/// push reached the gateway, every push was refused for one reason, a capture path never matched, every poll
/// was answered 404. Each diagnosis names the likely cause and the fix; the terminal and the report's banner
/// lead with them (report notes starting with `prefix`).
enum FirstContact {
    static let prefix = RunResult.diagnosisPrefix

    struct Facts {
        var counters: [String: Int64]
        var gatewayURL: String
        /// The CA the gateway's certificate chains to, when it serves TLS.
        var caPath: String?
        /// Pushes the gateway refused, by reason.
        var rejected: [String: Int]
        /// Whether the target is the user's own server (its APNs client is the user's to point).
        var ownServer: Bool
        /// Whether the devices are SIP phones (their push tokens are in their REGISTER's Contact, RFC 8599).
        var sipDevices = false
    }

    static func diagnose(_ f: Facts) -> [String] {
        var out: [String] = []
        let c = f.counters
        // With no device registered nothing else ran, so every error counted is a registration's.
        if (c["devices.registered"] ?? 0) == 0,
           let (name, count) = c.filter({ $0.key.hasPrefix("errors.") && $0.value > 0 })
               .max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) {
            out.append("no device registered with the target (\(name) \(count)): "
                + registrationAdvice(for: String(name.dropFirst("errors.".count))))
        }
        let calls = c["calls.started"] ?? 0
        let received = c["gateway.pushes.sent"] ?? 0
        if calls > 0, received == 0, f.ownServer {
            let trust = f.caPath.map { " and trust \($0)" } ?? ""
            out.append("no push reached the gateway at \(f.gatewayURL): point your server's APNs client there"
                + "\(trust), or set HTTPS_PROXY to it (docs/YOUR-SERVER.md)")
        }
        let rejectedTotal = f.rejected.values.reduce(0, +)
        if rejectedTotal > 0, rejectedTotal == Int(received), f.rejected.count == 1,
           let reason = f.rejected.keys.first {
            out.append("every push (\(rejectedTotal)) was rejected with \(reason): "
                + advice(for: reason, sip: f.sipDevices))
        }
        for (name, missed) in c where name.hasPrefix("api.capture.") && name.hasSuffix(".missed") && missed > 0 {
            let capture = String(name.dropFirst("api.capture.".count).dropLast(".missed".count))
            if (c["api.capture.\(capture).matched"] ?? 0) == 0 {
                out.append("the capture '\(capture)' never matched a response (\(missed) tried): check its JSON "
                    + "path against a real response (callstorm run --trace 5 writes them to trace.jsonl)")
            }
        }
        let polls = c["observe.polls"] ?? 0
        if polls > 0, c["observe.polls_not_found"] == polls {
            out.append("every poll (\(polls)) was answered 404: check target.api.get's path, and that the "
                + "conversation id it names is the one your server returns (see trace.jsonl with --trace)")
        }
        return out.sorted().map { prefix + $0 }
    }

    private static func registrationAdvice(for kind: String) -> String {
        switch kind {
        case "tls":
            return "its certificate was not trusted; name the CA that signed it with target: { ca: FILE } "
                + "(docs/YOUR-SERVER.md), or check that target.url's scheme is the one the server speaks"
        case "refused", "connect":
            return "nothing accepted the connection; check target.url's host and port, and that the server is up"
        case "timeout":
            return "it did not answer within action_timeout; check target.url and the server's health"
        default:
            return "check target.api.register against your server (callstorm run --trace 5 writes the exchange "
                + "to trace.jsonl)"
        }
    }

    private static func advice(for reason: String, sip: Bool) -> String {
        switch reason {
        case "BadDeviceToken" where sip, "DeviceTokenNotForTopic" where sip:
            return "push to the token each phone registered: its REGISTER Contact's pn-prid parameter (RFC 8599), "
                + "POST /3/device/<pn-prid> with apns-topic <pn-param without the team id> (docs/SIP.md)"
        case "BadDeviceToken", "DeviceTokenNotForTopic":
            return "send to the device tokens callstorm registered (the register request's ${device.token})"
        case "MissingTopic", "TopicDisallowed", "BadTopic":
            return "set apns-topic to the scenario's bundle id (with .voip for VoIP pushes)"
        case "InvalidProviderToken", "MissingProviderToken", "ExpiredProviderToken":
            return "sign an ES256 provider token with a key the gateway trusts (push.auth in the scenario)"
        default:
            return "see docs/GATEWAY.md for what the gateway checks"
        }
    }
}
