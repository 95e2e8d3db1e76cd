import Foundation
import Kamailio
import Scenario

/// `target.sip.kamailio`: the run starts Kamailio itself, on a free loopback port, with the push route pointed at
/// the run's gateway when devices sleep, and `teardown` stops it by PID on every way out (Ctrl-C and failures
/// included). It runs in a process group of its own, so a Ctrl-C reaches only callstorm, which drains its calls
/// through the server before stopping it.
extension RunSession {
    /// Starts Kamailio when the scenario asks for one and points the scenario's SIP target at it. Called after
    /// the gateway started (its URL is the push route's) and before the driver is made (it reads the registrar).
    func startKamailio(servers: EmbeddedServers) throws(CLIError) {
        guard let sip = scenario.sip, let launch = sip.kamailio, let device = scenario.device.sip else { return }
        let what = "Kamailio (target.sip.kamailio)"
        do {
            var options = KamailioOptions(configuration: try configuration(launch), ownProcessGroup: true,
                                          sharedMemoryMB: 64)
            options.defines = ["SIP_PASSWORD=\"\(sip.password)\""]
            if launch.pushes(devicesSleep: device.sleep) {
                options.defines += KamailioOptions.pushDefines(
                    url: servers.gatewayURL, token: try servers.providerToken(teamID: scenario.push.authTeamID),
                    timeoutMillis: launch.pushTimeoutNanos.map { max(1, Int($0 / 1_000_000)) })
            }
            try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
            options.logFile = bundle.kamailioLog
            let server = try KamailioServer(options: options)
            kamailio = server
            scenario.sip?.host = "127.0.0.1"
            scenario.sip?.port = server.port
            say("callstorm: Kamailio pid \(server.pid) on 127.0.0.1:\(server.port) (UDP and TCP), "
                + "log \(bundle.kamailioLog.path)")
        } catch {
            throw .cannotStart(what: what, cause: error)
        }
    }

    /// The scenario's `config`, else the shipped configuration under the current directory or callstorm's checkout.
    private func configuration(_ launch: KamailioLaunchSpec) throws -> URL {
        if let path = launch.configuration { return URL(fileURLWithPath: path) }
        let here = FileManager.default.currentDirectoryPath
        guard let shipped = KamailioOptions.shippedConfiguration(under: here) else {
            throw KamailioServer.Failure.noConfiguration(here + "/" + KamailioOptions.shippedPath
                + " (run from a callstorm checkout, or give target.sip.kamailio.config)")
        }
        return shipped
    }
}
