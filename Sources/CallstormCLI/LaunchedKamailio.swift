import Foundation
import Kamailio
import Reports

/// The Kamailio a run started (`target.sip.kamailio`): the server, the reader of its log and how it was sized.
/// What its log says is the harness's business: a server callstorm configured too small for the load is the
/// harness's configuration, not the server's defect, and the verdict says so (`attribution`).
///
/// Thread safety: the owner's thread (the run's), apart from the log watch's own thread.
final class LaunchedKamailio {
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
