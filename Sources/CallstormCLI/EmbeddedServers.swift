import Foundation
import HTTPServer
import PushGateway
import ReferenceTarget
import Synchronization

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
}

/// The push gateway (always) and the embedded reference target (when the scenario uses it), on loopback.
final class EmbeddedServers {
    let sink = LateSink()
    let gateway: APNsGateway
    let gatewayServer: HTTPServer
    private(set) var target: ReferenceTarget?
    private(set) var targetServer: HTTPServer?

    init(gatewayHost: String, gatewayPort: Int, bundleID: String) throws {
        gateway = APNsGateway(validator: APNsValidator(configuration: .init(bundleID: bundleID)), sink: sink)
        var config = HTTPServerConfiguration()
        config.host = gatewayHost
        config.port = gatewayPort
        gatewayServer = HTTPServer(configuration: config, handler: gateway)
        try gatewayServer.start()
    }

    var gatewayURL: String { "http://\(urlHost(gatewayServer.configuration.host)):\(gatewayServer.port)" }

    /// Starts the reference target on a free loopback port; returns its base URL.
    func startTarget(bundleID: String, bugs: [String] = []) throws -> String {
        let target = ReferenceTarget(configuration: .init(
            gatewayURL: gatewayURL, bundleID: bundleID, bugs: Set(bugs.compactMap(ReferenceTarget.Bug.init(rawValue:)))))
        var config = HTTPServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        let server = HTTPServer(configuration: config, handler: target)
        try server.start()
        self.target = target
        self.targetServer = server
        return "http://127.0.0.1:\(server.port)"
    }

    /// Stops servers in dependency order: the target (and its push client) first, then the gateway.
    func stop() {
        targetServer?.stop()
        target?.close()
        gatewayServer.stop()
    }
}

func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
