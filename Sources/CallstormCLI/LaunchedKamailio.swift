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

    /// The failure the verdict leads with when the server ran out of memory, with the key that changes it; nil
    /// when its log shows no exhaustion.
    var failure: String? {
        let f = findings
        guard f.exhausted else { return nil }
        return "the Kamailio callstorm started ran out of \(pools(f)), \(f.memoryLines) lines in kamailio.log: "
            + "the harness's configuration of the server, not a server defect; \(advice(f))"
    }

    /// The run's notes: the same, with the log's first lines and what it means for the rest of the report.
    var notes: [String] {
        let f = findings
        guard f.exhausted else { return [] }
        var lines = ["Kamailio (started by callstorm with -m \(sizing.sharedMemoryMB) -M \(sizing.privateMemoryMB) -n "
            + "\(sizing.children), \(sizing.basis)) ran out of \(pools(f)): \(f.sharedMemory) lines "
            + "name shared memory, \(f.privateMemory) private memory, \(f.unnamedMemory) say \"out of mem\". "
            + "Calls it answered 500 or dropped then, and the conversation-rule findings that follow from them, "
            + "are the harness's configuration of the server, not a server defect: \(advice(f))."]
        lines += f.firstLines.map { "  kamailio.log: " + $0.trimmingCharacters(in: .whitespaces) }
        return lines
    }

    /// Appended to the history checker's failure when the server ran out of memory during the run.
    static let checkerAttribution = " — found while the Kamailio callstorm started was out of memory (see above): "
        + "not judged a server defect"

    private func pools(_ f: KamailioLogFindings) -> String {
        switch (f.sharedMemory > 0 || f.unnamedMemory > 0, f.privateMemory > 0) {
        case (true, true): return "shared and private memory"
        case (false, true): return "private memory (pkg)"
        default: return "shared memory (shm)"
        }
    }

    private func advice(_ f: KamailioLogFindings) -> String {
        var keys: [String] = []
        if f.sharedMemory > 0 || f.unnamedMemory > 0 {
            keys.append("raise target.sip.kamailio.shared_memory_mb (this run: \(sizing.sharedMemoryMB))")
        }
        if f.privateMemory > 0 {
            keys.append("raise target.sip.kamailio.private_memory_mb (this run: \(sizing.privateMemoryMB))")
        }
        return keys.joined(separator: " and ")
    }
}
