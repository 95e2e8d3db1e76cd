import Credentials
import Dispatch
import Foundation
import HTTPServer
import PushGateway

/// Takes every push the gateway accepts (there are no devices behind `callstorm gateway`).
struct AcceptAllSink: PushSink {
    func accept(_ push: APNsPush) -> APNsRejection? { nil }
}

/// `callstorm gateway`: the push gateway on its own, logging every push it accepts or rejects, so a team can
/// point their server's APNs (or FCM) client at it by hand before writing a scenario.
enum GatewayCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(
            args, valued: ["allow-remote", "listen", "state-dir", "cert", "key", "bundle-id", "keys", "team", "threads",
                           "fcm-project", "unregistered", "client-ca"],
            boolean: ["tls", "help", "quiet"])
        if parsed.has("help") {
            print(Help.gateway)
            return .passed
        }
        let (host, port) = try parsed.hostPort("listen", default: "127.0.0.1:2197")
        try Loopback.require(host, role: "listen address", allowed: Loopback.allowedHosts(parsed.value("allow-remote")))
        let useTLS = parsed.has("tls") || parsed.value("cert") != nil
        var config = HTTPServerConfiguration()
        config.host = host
        config.port = port
        config.threads = try parsed.integer("threads", default: 1, in: 1...256)
        // The gateway's own listener or its tunnels; client certificates (certificate auth) are asked for from
        // --client-ca, else from the local CA when it is in use.
        let (files, caPath) = try TLSArguments.files(parsed, clientCA: try parsed.readableFile("client-ca"),
                                                 askLocalCA: true)
        if useTLS {
            config.tls = files
        } else {
            // The cleartext port still serves TLS inside CONNECT tunnels (and TLS sniffed on the port).
            config.connect = APNsGateway.connectPolicy(tunnelTLS: files)
        }
        if config.connect == nil { config.connect = APNsGateway.connectPolicy() }
        var keys: [String: ES256Key] = [:]
        for entry in (parsed.value("keys") ?? "").split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].utf8.count == 10 else {
                throw .badValue(flag: "keys", value: String(entry),
                                expected: "KEYID=path.pem[,KEYID=path.pem], with 10-character key ids")
            }
            do {
                keys[parts[0]] = try ES256Key(contentsOf: parts[1])
            } catch {
                throw .badValue(flag: "keys", value: String(entry), expected: "a readable ES256 key (\(error))")
            }
        }
        let team = parsed.value("team")
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        let unregistered = (parsed.value("unregistered") ?? "").split(separator: ",").map { (String($0), nowMillis) }
        let quiet = parsed.has("quiet")
        let validator = APNsValidator.Configuration(
            bundleID: parsed.value("bundle-id") ?? "com.example.callstorm",
            keys: keys.isEmpty ? nil : ProviderKeys(teamID: team, keys: keys))
        let gatewayConfiguration = APNsGateway.Configuration(
            validator: validator, fcm: FCMIngress(projectID: parsed.value("fcm-project")),
            unregistered: Dictionary(unregistered, uniquingKeysWith: { a, _ in a }))
        let printLine: @Sendable (String) -> Void = { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let log = quiet ? nil : printLine
        let gateway = APNsGateway(configuration: gatewayConfiguration, sink: AcceptAllSink(), log: log)
        let server = HTTPServer(configuration: config, handler: gateway)
        do { try server.start() } catch { throw .cannotStart(what: "the gateway on \(host):\(port)", cause: error) }
        let scheme = useTLS ? "https" : "http"
        var banner = "callstorm gateway listening on \(scheme)://\(urlHost(host)):\(server.port)"
        banner += useTLS ? " (HTTP/2 over TLS, ALPN h2 or none; HTTP/1.1)" : " (h2c prior knowledge; HTTP/1.1)"
        if let caPath { banner += "\ntrust this CA in your APNs client: \(caPath)" }
        banner += "\nHTTP CONNECT to the APNs hosts is served here: HTTPS_PROXY=http://\(urlHost(host)):\(server.port)"
        if let clientCA = files.clientCAPath {
            banner += "\nclient certificates (certificate auth) trusted from \(clientCA)"
        }
        banner += keys.isEmpty ? "\nprovider tokens: any well-formed ES256 JWT" :
            "\nprovider tokens: ES256 signatures verified for keys \(keys.keys.sorted().joined(separator: ", "))"
        FileHandle.standardOutput.write(Data((banner + "\n").utf8))
        let done = DispatchSemaphore(value: 0)
        let signals = SignalWatch { _ in done.signal() }
        done.wait()
        signals.cancel()
        server.stop()
        FileHandle.standardOutput.write(Data(summary(gateway, server.stats).utf8))
        return .passed
    }

    static func summary(_ gateway: APNsGateway, _ stats: HTTPServerStats) -> String {
        var lines: [String] = []
        for ingress in Ingress.allCases {
            let s = gateway.ingressStats(ingress)
            let rejected = s.rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let p99 = s.latencyMicros.isEmpty ? 0 : s.latencyMicros.value(atPercentile: 99)
            lines.append("\(ingress.rawValue): accepted \(s.accepted), rejected \(s.rejectedTotal)"
                + (rejected.isEmpty ? "" : " (\(rejected))") + ", \(s.bytesReceived) bytes, latency p99 \(p99) µs")
        }
        lines.append("connections \(stats.connectionsAccepted), TLS handshakes \(stats.tlsHandshakes), HTTP/2 "
            + "connections \(stats.http2Connections), most concurrent streams \(stats.maxStreamsOpen), HTTP/2 "
            + "protocol errors \(stats.http2ProtocolErrors)")
        let counters = Dictionary(gateway.connectionCounters.map { ($0.name, $0.value) }, uniquingKeysWith: +)
        func n(_ name: String) -> Int { counters["gateway." + name] ?? 0 }
        lines.append("connections by auth: certificate \(n("connections.certificate")), token "
            + "\(n("connections.token")), none \(n("connections.none")); CONNECT tunnels \(n("connect.tunnels")), "
            + "refused \(n("connect.refused")), malformed \(n("connect.malformed")); client certificates refused: "
            + "expired \(n("tls.client_cert_expired")), untrusted \(n("tls.client_cert_untrusted")); iat as a "
            + "string \(n("jwt.iat_string")), as a float \(n("jwt.iat_float"))")
        return lines.joined(separator: "\n") + "\n"
    }
}
