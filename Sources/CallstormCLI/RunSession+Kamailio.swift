import Credentials
import Foundation
import Kamailio
import Scenario
import StreamIO

/// `target.sip.kamailio`: the run starts Kamailio itself, on a free loopback port, sized for the scenario's load
/// (`KamailioSizing`, with the scenario's explicit sizes over it), with the push route pointed at the run's
/// gateway when devices sleep; its log is read while the run goes (`KamailioLogWatch`), and `teardown` stops it
/// by PID on every way out (Ctrl-C and failures included). It runs in a process group of its own, so a Ctrl-C
/// reaches only callstorm, which drains its calls through the server before stopping it.
extension RunSession {
    /// Starts Kamailio when the scenario asks for one and points the scenario's SIP target at it. Called after
    /// the gateway started (its URL is the push route's) and before the driver is made (it reads the registrar).
    func startKamailio(servers: EmbeddedServers) throws(CLIError) {
        guard let sip = scenario.sip, let launch = sip.kamailio, let device = scenario.device.sip else { return }
        let what = "Kamailio (target.sip.kamailio)"
        let relayDefines = try startRelay()
        do {
            let sizing = kamailioSizing(launch, devicesSleep: device.sleep)
            var options = KamailioOptions(configuration: try configuration(launch), ownProcessGroup: true,
                                          sharedMemoryMB: sizing.sharedMemoryMB,
                                          privateMemoryMB: sizing.privateMemoryMB)
            options.children = sizing.children
            // Debian's Kamailio 5.6.3 double-frees in its tls module with two or more TCP/TLS readers (a worker
            // dies or handshakes break off: a server callstorm started wrong must not fail the run), so a TLS or
            // WSS run gets one reader unless the scenario set `children` itself.
            if device.transport.isSecure, launch.children == nil { options.tcpChildren = 1 }
            options.defines = ["SIP_PASSWORD=\"\(sip.password)\""] + relayDefines
            if launch.pushes(devicesSleep: device.sleep) {
                let token = try servers.providerToken(teamID: scenario.push.authTeamID)
                options.defines += KamailioOptions.pushDefines(
                    url: servers.gatewayURL, token: token,
                    timeoutMillis: launch.pushTimeoutNanos.map { max(1, Int($0 / 1_000_000)) })
                // The run's devices share one bundle, so their VoIP pushes one topic: each push task worker keeps
                // one connection to the run's gateway for them (route[PUSHKEPT]) instead of one per push.
                options.defines += KamailioOptions.keptPushDefines(url: servers.gatewayURL, token: token,
                                                                   topic: scenario.push.bundleID + ".voip")
                // A user's several devices under one address of record (deploy/kamailio/fork.cfg).
                if let fork = launch.fork {
                    options.defines.append(KamailioOptions.forkDefine)
                    if fork == .noLate { options.defines.append(KamailioOptions.forkNoLateDefine) }
                }
            }
            try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
            options.logFile = bundle.kamailioLog
            let ca = try listeners(&options, for: device.transport)
            let server = try KamailioServer(options: options)
            let watch = KamailioLogWatch(path: bundle.kamailioLog.path)
            if !self.options.quiet {
                watch.onExhausted = { f in
                    FileHandle.standardError.write(Data(("callstorm: Kamailio is out of memory (\(f.memoryLines) "
                        + "lines in kamailio.log so far): calls will fail; the verdict will name the key to raise\n")
                        .utf8))
                }
            }
            watch.start()
            let launched = LaunchedKamailio(server: server, watch: watch, sizing: sizing)
            kamailio = launched
            kamailioTarget.set(launched)
            scenario.sip?.host = "127.0.0.1"
            scenario.sip?.port = server.port
            var listening = "\(server.port) (UDP and TCP)"
            if let ca, let tlsPort = server.ports.tls ?? server.ports.secureWebSocket {
                // TLS and WSS devices connect to their listener, and trust callstorm's CA unless the scenario
                // names one.
                scenario.sip?.port = tlsPort
                if scenario.sip?.caFile == nil { scenario.sip?.caFile = ca }
                listening += ", \(device.transport == .tls ? "TLS" : "WSS") on 127.0.0.1:\(tlsPort) "
                    + "(certificate from callstorm's local CA)"
            }
            if let wsPort = server.ports.webSocket {
                scenario.sip?.port = wsPort
                listening += ", WS on 127.0.0.1:\(wsPort)"
            }
            say("callstorm: Kamailio pid \(server.pid) on 127.0.0.1:\(listening), "
                + "-m \(sizing.sharedMemoryMB) -M \(sizing.privateMemoryMB) -n \(sizing.children) "
                + (options.tcpChildren.map { "-N \($0) (the tls module's double free with more) " } ?? "")
                + "(\(sizing.basis)), log \(bundle.kamailioLog.path)")
        } catch {
            throw .cannotStart(what: what, cause: error)
        }
    }

    /// The listener the devices' transport needs beside UDP and TCP: TLS or WSS with the server certificate
    /// callstorm's local CA issues (for 127.0.0.1 and localhost), or WS in the clear. Returns the CA's certificate
    /// for TLS and WSS, which the devices trust by default; nil for the others.
    private func listeners(_ options: inout KamailioOptions, for transport: SIPDeviceSpec.Transport) throws
        -> String? {
        switch transport {
        case .udp, .tcp:
            return nil
        case .ws:
            options.listeners = KamailioListeners(tls: false, webSocket: true, secureWebSocket: false,
                                                  certificatePath: "", keyPath: "")
            return nil
        case .tls, .wss:
            let material = try LocalCertificateAuthority.ensure(stateDirectory: LocalCertificateAuthority
                .defaultStateDirectory).material
            options.listeners = KamailioListeners(tls: transport == .tls, webSocket: false,
                                                  secureWebSocket: transport == .wss,
                                                  certificatePath: material.certificatePath,
                                                  keyPath: material.keyPath)
            return material.caCertificatePath
        }
    }

    /// TLS devices' CA (`target.sip.ca`, or the local CA set by `startKamailio`) must load before the run starts:
    /// a file that is no PEM of certificates is a startup error here, not a handshake failure on every device.
    func checkSIPTrust() throws(CLIError) {
        guard let sip = scenario.sip, scenario.device.sip?.transport.isSecure == true else { return }
        do {
            _ = try ClientTLS(caFile: sip.caFile)
        } catch {
            throw .cannotStart(what: "SIP devices over TLS (target.sip.ca)", cause: error)
        }
    }

    /// What the server is sized for: the devices, the plan's peak rate and the transactions of the mix's
    /// busiest flow, with the scenario's explicit sizes over it.
    func kamailioSizing(_ launch: KamailioLaunchSpec, devicesSleep: Bool) -> KamailioSizing {
        let flows = scenario.mix.compactMap { scenario.flow(named: $0.flow) }
        let perCall = max(2, flows.map { Self.transactions($0.steps) }.max() ?? 4)
        let pushTimeout = launch.pushes(devicesSleep: devicesSleep)
            ? Double(launch.pushTimeoutNanos ?? 10_000_000_000) / 1e9 : nil
        let load = KamailioSizing.Load(devices: scenario.devices, peakCallsPerSecond: ArrivalPlan(scenario: scenario)
            .peakRate, transactionsPerCall: perCall, pushTimeoutSeconds: pushTimeout)
        return KamailioSizing.sized(for: load).overridden(sharedMemoryMB: launch.sharedMemoryMB,
                                                          privateMemoryMB: launch.privateMemoryMB,
                                                          children: launch.children)
    }

    /// The SIP transactions `steps` make at the proxy: an INVITE per start or redial, a re-INVITE per pause or
    /// resume, a BYE or CANCEL per end, one per life event (the busiest branch of a branch, each repetition of a
    /// repeat).
    static func transactions(_ steps: [FlowStep]) -> Int {
        steps.reduce(0) { sum, step in
            switch step.kind {
            case .start, .redial, .end, .pause, .resume, .life: return sum + 1
            case .branch(let branches): return sum + (branches.map { transactions($0.steps) }.max() ?? 0)
            case .repeatSteps(let count, let inner): return sum + count * transactions(inner)
            case .together(let inner, _): return sum + transactions(inner)
            default: return sum
            }
        }
    }

    /// The system under test as the run's facts name it: the SIP server for a SIP run, else the embedded target.
    func targetDescription(_ targetURL: String) -> String {
        guard let sip = scenario.sip, scenario.device.sip != nil else { return "embedded (\(targetURL))" }
        guard let kamailio else { return "SIP server at \(sip.host):\(sip.port) (domain \(sip.domain))" }
        // "kamailio 5.6.3 (x86_64/linux)" → "Kamailio 5.6.3 (x86_64/linux)".
        let version = KamailioServer.version.map {
            ($0.hasPrefix("kamailio ") ? String($0.dropFirst("kamailio ".count)) : $0) + " "
        }
        let ports = kamailio.server.ports
        let tls = ports.tls.map { " (TLS on 127.0.0.1:\($0))" } ?? ports.secureWebSocket
            .map { " (WSS on 127.0.0.1:\($0))" } ?? ports.webSocket.map { " (WS on 127.0.0.1:\($0))" } ?? ""
        return "Kamailio \(version ?? "")at 127.0.0.1:\(kamailio.server.port)\(tls), started by callstorm"
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

    /// The verdict's and the notes' words for a Kamailio that ran out of memory: its own failure first, and the
    /// history checker's failure marked as found while it was (not judged a server defect).
    func attributeToKamailio(notes: inout [String], failures: inout [String]) {
        guard let kamailio, let failure = kamailio.failure else { return }
        failures = [failure] + failures.map {
            $0.hasPrefix("history checker:") ? $0 + LaunchedKamailio.checkerAttribution : $0
        }
        notes = kamailio.notes + notes
        kamailio.notes.forEach(say)
    }
}
