import CallModel
import Credentials
import EventPolling
import Foundation
import HTTPServer
import PushGateway
import ReferenceTarget
import Results
import Scenario
import TextEscaping
import Locking
import Metrics

/// A sink set after the gateway starts: the gateway's port must be known before the target and the driver
/// exist, and the driver is what owns the devices the pushes go to.
final class LateSink: PushSink {
    private let inner = Mutex<PushSink?>(nil)

    func set(_ sink: PushSink) { inner.withLock { $0 = sink } }

    func accept(_ push: APNsPush) -> APNsRejection? {
        guard let sink = inner.withLock({ $0 }) else {
            return APNsRejection(.serviceUnavailable, detail: "no devices yet")
        }
        return sink.accept(push)
    }

    func answer(_ push: APNsPush) -> PushSinkAnswer {
        guard let sink = inner.withLock({ $0 }) else {
            return PushSinkAnswer(rejection: APNsRejection(.serviceUnavailable, detail: "no devices yet"))
        }
        return sink.answer(push)
    }

    func gatewayFault(token: Substring) -> GatewayFault? {
        inner.withLock { $0 }?.gatewayFault(token: token)
    }

    var payloadPattern: JSONPattern? { inner.withLock { $0 }?.payloadPattern }
}

/// The push gateway (always) and the embedded reference target (when the scenario uses it), on loopback.
///
/// With `push.tls` (the default) the gateway serves HTTP/2 over TLS with a certificate from callstorm's local
/// CA, and the embedded target's APNs client trusts that CA and signs ES256 provider tokens the gateway
/// verifies: the whole push path is what a production APNs client does.
final class EmbeddedServers {
    let sink = LateSink()
    let gateway: APNsGateway
    let gatewayServer: HTTPServer
    /// The TLS files in use; nil when the gateway speaks cleartext.
    let tls: TLSMaterial?
    /// The local CA's files whenever the gateway serves TLS at all: on its listener, or inside CONNECT tunnels.
    private let material: TLSMaterial?
    /// How the embedded target reaches and authenticates to the gateway (`push.via`, `push.auth`).
    private let route: PushRoute
    private let clientCertificatePath: String?
    /// What the embedded target signs its provider tokens with (a key the gateway verifies against).
    private let targetSigner: ProviderTokenSigner?
    private(set) var target: ReferenceTarget?
    private(set) var targetServer: HTTPServer?

    /// How the embedded target's threads (its HTTP loop and its push client's thread) share the cores with the
    /// driver's workers: `CALLSTORM_TARGET_PRIORITY` (`ThreadScheduling`'s text: `normal`, `batch`, `idle`, each
    /// optionally `:NICE`). A load tool's own event loops should get a contended core first, as a target on
    /// another machine would never take it from them; the target's figures (push_to_report, the capacity knee)
    /// then carry the contention instead of callstorm's lag. Default `batch`: SCHED_BATCH never preempts a worker
    /// as it wakes (the workers' involuntary switches per call halved) and keeps nice 0's share, so it cannot
    /// starve as `idle` did. `batch:10` halved the workers' run-queue wait at a fixed 1,500 calls/s but, in two
    /// ramps of capacity.yaml, put callstorm's lag over 1 ms in most seconds below 1,000 calls/s where `normal`
    /// and `batch` did not (docs/BENCHMARKS.md; shared machine, not judged); quietly, `batch` and `normal` could not
    /// be told apart in one capacity run each, so `batch` stays (it cannot take a core from a worker as it wakes).
    static let targetScheduling = ThreadScheduling.fromEnvironment("CALLSTORM_TARGET_PRIORITY", or: .targetDefault)
    /// The push gateway's loop (`CALLSTORM_GATEWAY_PRIORITY`, the same text): it stands for APNs, and every push
    /// reaches a device through it. Default `fifo`, as the workers (`ThreadLoop`): at SCHED_OTHER beside
    /// SCHED_FIFO workers it was taken off its core by the worker each push woke, and on the SIP wake-up bench's
    /// one client core at 1,600 calls/s the run completed 43 % and 46 % of its calls (6.8–7.2 switches a call);
    /// at `fifo` beside them it held (100 %, lag p99 0.44 ms, 1.95 switches a call). Equal real-time priorities
    /// do not preempt each other, so a push the gateway posts waits for its turn to end, not the other way round
    /// (docs/BENCHMARKS.md, "The workers at SCHED_FIFO").
    static let gatewayScheduling = ThreadScheduling.fromEnvironment("CALLSTORM_GATEWAY_PRIORITY", or: .fifo)

    /// The embedded key's ids, used when the scenario names no key the target can sign with.
    static let embeddedKeyID = "CALLSTORM1"
    static let embeddedTeamID = "CALLSTORMT"

    /// Starts the gateway for `push`. Relative key paths are resolved against `scenarioDirectory`; the local CA
    /// lives under `stateDirectory`. With `embeddedTarget` false (the scenario drives a server of its own) no
    /// key is generated for the embedded target: without `push.auth.keys` any well-formed token passes.
    init(push: PushSpec, scenarioDirectory: String = ".",
         stateDirectory: String = LocalCertificateAuthority.defaultStateDirectory, embeddedTarget: Bool = true) throws {
        var keys: [String: ES256Key] = [:]
        for (keyID, path) in push.authKeyPaths {
            let resolved = path.hasPrefix("/") ? path : scenarioDirectory + "/" + path
            keys[keyID] = try ES256Key(contentsOf: resolved)
        }
        var signer: ProviderTokenSigner?
        if let (keyID, key) = keys.first(where: { $0.value.canSign }) {
            signer = ProviderTokenSigner(keyID: keyID, teamID: push.authTeamID ?? Self.embeddedTeamID, key: key)
        } else if embeddedTarget {
            let key = try ES256Key.generate()
            let team = push.authTeamID ?? Self.embeddedTeamID
            keys[Self.embeddedKeyID] = key
            signer = ProviderTokenSigner(keyID: Self.embeddedKeyID, teamID: team, key: key)
        }
        targetSigner = signer
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        let configuration = APNsGateway.Configuration(
            validator: .init(bundleID: push.bundleID, keys: keys.isEmpty ? nil
                : ProviderKeys(teamID: push.authTeamID ?? signer?.teamID, keys: keys)),
            unregistered: Dictionary(push.unregisteredTokens.map { ($0, nowMillis) }, uniquingKeysWith: { a, _ in a }))
        gateway = APNsGateway(configuration: configuration, sink: sink)
        var config = HTTPServerConfiguration()
        config.host = push.listenHost
        config.port = push.listenPort
        route = push.route
        let needsTLS = push.tls || push.route == .connect || push.authKind == .certificate
        material = needsTLS ? try LocalCertificateAuthority.ensure(stateDirectory: stateDirectory).material : nil
        if let material {
            // Client certificates are asked for (not required) from the local CA: certificate auth.
            let files = TLSFiles(certificatePath: material.certificatePath, keyPath: material.keyPath,
                                 clientCAPath: material.caCertificatePath)
            if push.tls { config.tls = files }
            config.connect = APNsGateway.connectPolicy(tunnelTLS: push.tls ? nil : files)
        }
        tls = push.tls ? material : nil
        if push.authKind == .certificate {
            let path = stateDirectory + "/tls/embedded-target-voip-\(push.bundleID).pem"
            try PushClientCertificate.issue(PushClientCertificate.Request(bundleID: push.bundleID),
                                            stateDirectory: stateDirectory, to: path)
            clientCertificatePath = path
        } else {
            clientCertificatePath = nil
        }
        config.threadName = "cs.gateway"
        config.threadScheduling = Self.gatewayScheduling
        gatewayServer = HTTPServer(configuration: config, handler: gateway)
        try gatewayServer.start()
    }

    /// The old shape: a cleartext gateway with no configured keys.
    convenience init(gatewayHost: String, gatewayPort: Int, bundleID: String) throws {
        var push = PushSpec(listenHost: gatewayHost, listenPort: gatewayPort, bundleID: bundleID)
        push.tls = false
        try self.init(push: push)
    }

    /// The CA a client must trust to reach the gateway over TLS; nil when it serves cleartext.
    var caPath: String? { material?.caCertificatePath }

    var gatewayURL: String {
        "\(tls == nil ? "http" : "https")://\(urlHost(gatewayServer.configuration.host)):\(gatewayServer.port)"
    }

    /// The URL the embedded target's APNs client uses: the gateway's own, or Apple's host name when it goes
    /// through a CONNECT tunnel (`proxyURL`) as a client behind `HTTPS_PROXY` does.
    var targetGatewayURL: String {
        route == .connect ? "https://api.push.apple.com" : gatewayURL
    }

    /// The gateway's port as an HTTP proxy, when the target goes through CONNECT.
    var proxyURL: String? {
        route == .connect ? "http://\(urlHost(gatewayServer.configuration.host)):\(gatewayServer.port)" : nil
    }

    /// Starts the reference target on a free loopback port; returns its base URL.
    func startTarget(bundleID: String, bugs: [String] = [], pushExpirationSeconds: Int = 0,
                     pushRetries: Int = PushSpec.defaultRetries,
                     unmergePolicy: ServerPolicy.Unmerge = .holdSplit) throws -> String {
        let gatewayURL = targetGatewayURL
        PushClientSettings.register(PushClientSettings(caFile: material?.caCertificatePath, signer: targetSigner,
                                                       proxy: proxyURL, clientCertificatePath: clientCertificatePath),
                                    forGatewayURL: gatewayURL)
        var configuration = ReferenceTarget.Configuration(
            gatewayURL: gatewayURL, bundleID: bundleID, bugs: Set(bugs.compactMap(ReferenceTarget.Bug.init(rawValue:))),
            pushExpirationSeconds: pushExpirationSeconds, pushRetries: pushRetries)
        configuration.unmergePolicy = unmergePolicy
        // A test knob (issue 38): the traceparent each request arrived with, for a test to join with the spans.
        configuration.traceparentLog = ProcessInfo.processInfo.environment["CALLSTORM_TARGET_TRACEPARENT_LOG"]
        configuration.pushThreadScheduling = Self.targetScheduling
        let target = ReferenceTarget(configuration: configuration)
        var config = HTTPServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        config.threadName = "cs.target"
        config.threadScheduling = Self.targetScheduling
        let server = HTTPServer(configuration: config, handler: target)
        try server.start()
        self.target = target
        self.targetServer = server
        return "http://127.0.0.1:\(server.port)"
    }

    /// The arguments a `callstorm target` child needs to push to this gateway as the embedded target would:
    /// the CA to trust, the proxy and client certificate when the scenario uses them, and the provider-token
    /// key, written (mode 0600) into `directory`.
    func childTargetArguments(directory: URL) throws -> [String] {
        var args = ["--apns-url", targetGatewayURL]
        if let material { args += ["--apns-ca", material.caCertificatePath] }
        if let proxyURL { args += ["--apns-proxy", proxyURL] }
        if let clientCertificatePath { args += ["--apns-cert", clientCertificatePath] }
        if let signer = targetSigner {
            let keyFile = RunBundle(directory).targetAPNsKey.path
            FileManager.default.createFile(atPath: keyFile, contents: Data(signer.key.privateKeyPEM.utf8),
                                           attributes: [.posixPermissions: 0o600])
            args += ["--apns-key", "\(signer.keyID)=\(keyFile)", "--apns-team", signer.teamID]
        }
        return args
    }

    /// A provider token for a pusher the run starts beside the gateway (Kamailio's push route): signed with the
    /// scenario's key when `push.auth.keys` names one that can sign (the gateway then verifies it), else with a
    /// fresh key, which a gateway holding no key accepts as any well-formed ES256 token. Valid for an hour.
    func providerToken(teamID: String?) throws -> String? {
        let signer = try targetSigner ?? ProviderTokenSigner(keyID: Self.embeddedKeyID,
                                                             teamID: teamID ?? Self.embeddedTeamID,
                                                             key: ES256Key.generate())
        return signer.token(issuedAt: Int64(Date().timeIntervalSince1970))
    }

    /// The gateway's connection counters (`gateway.connections.certificate`, `gateway.connect.tunnels`,
    /// `gateway.jwt.iat_string`, …) into the run's recorder; zeros are left out.
    func recordConnectionCounters(into recorder: inout Recorder, atNanos origin: UInt64) {
        for (name, value) in gateway.connectionCounters where value > 0 {
            recorder.count(Metric(named: name), by: Int64(value), atNanos: origin)
        }
    }

    /// Stops servers in dependency order: the target (and its push client) first, then the gateway.
    func stop() {
        targetServer?.stop()
        target?.close()
        gatewayServer.stop()
    }
}

extension ThreadScheduling {
    /// The embedded target's threads unless `CALLSTORM_TARGET_PRIORITY` says otherwise.
    static let targetDefault = ThreadScheduling.batch
}

func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
