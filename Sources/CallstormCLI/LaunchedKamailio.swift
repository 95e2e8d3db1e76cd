import FaultControl
import Foundation
import Kamailio
import Locking
import Reports

/// The Kamailio a run started (`target.sip.kamailio`): the server, the reader of its log and how it was sized.
/// What its log says is the harness's business: a server callstorm configured too small for the load is the
/// harness's configuration, not the server's defect, and the verdict says so (`attribution`).
///
/// Thread safety: the owner's thread (the run's), apart from the log watch's own thread and a target fault's
/// kill and restart (below), which the server serializes.
final class LaunchedKamailio: @unchecked Sendable {
    let server: KamailioServer
    let watch: KamailioLogWatch
    let sizing: KamailioSizing
    private var finalFindings: KamailioLogFindings?

    init(server: KamailioServer, watch: KamailioLogWatch, sizing: KamailioSizing) {
        self.server = server
        self.watch = watch
        self.sizing = sizing
    }

    /// Stops the server, then reads the last of its log. Idempotent.
    func stop() {
        server.stop()
        if finalFindings == nil { finalFindings = watch.stop() }
    }

    /// What its log said: final once `stop` ran, so far before.
    var findings: KamailioLogFindings { finalFindings ?? watch.findings }

    /// The server as the run's facts name it.
    var facts: ServerFacts {
        ServerFacts(name: "Kamailio", version: KamailioServer.version ?? "unknown (kamailio -v did not answer)",
                    address: "127.0.0.1:\(server.port) (UDP and TCP)",
                    configuration: server.options.configuration.path, defines: server.options.shownDefines,
                    sharedMemoryMB: sizing.sharedMemoryMB, privateMemoryMB: sizing.privateMemoryMB,
                    children: sizing.children, sizing: sizing.basis, startedBy: "callstorm")
    }

    // MARK: - The verdict's words

    /// The server's memory exhaustion so far (final once `stop` ran), nil when its log shows none.
    var exhaustion: KamailioExhaustion? {
        KamailioExhaustion(findings: findings, sharedMemoryMB: sizing.sharedMemoryMB,
                           privateMemoryMB: sizing.privateMemoryMB, children: sizing.children, basis: sizing.basis)
    }

    /// The failure the verdict leads with when the server ran out of memory, with the key that changes it; nil
    /// when its log shows no exhaustion.
    var failure: String? { exhaustion?.failure }

    /// The run's notes: the same, with the log's first lines and what it means for the rest of the report.
    var notes: [String] { exhaustion?.notes ?? [] }

    /// Appended to the history checker's failure when the server ran out of memory during the run.
    static let checkerAttribution = KamailioExhaustion.checkerAttribution
}

/// A target fault window (`target: { restart_after: 2s }`) kills and restarts the run's Kamailio as it does a
/// reference target run as a child process: every registration it held in memory is lost, every connection to it
/// is cut, and devices must register again (the registration storm, docs/SIP.md). Called on the fault
/// controller's queue; the server serializes them with `stop`.
extension LaunchedKamailio: ControlledTarget {
    var pid: Int32? { server.running ? server.pid : nil }

    func kill(signal: Int32) { server.kill(signal: signal) }

    func restart() throws { try server.restart() }
}

/// The target the fault controller kills and restarts when it is the run's Kamailio: the controller is made
/// before Kamailio starts (it decides the devices' URL), so it holds this, and `startKamailio` sets the server.
final class DeferredTarget: ControlledTarget, @unchecked Sendable {
    private let current = Mutex<ControlledTarget?>(nil)

    func set(_ target: ControlledTarget) { current.withLock { $0 = target } }

    var pid: Int32? { current.withLock { $0 }?.pid }

    func kill(signal: Int32) { current.withLock { $0 }?.kill(signal: signal) }

    func restart() throws { try current.withLock { $0 }?.restart() }
}
