import Foundation
import Kamailio
import Reports
import Results

/// A Kamailio callstorm started that ran out of memory, in the verdict's and the notes' words: what its log said
/// and how the run sized it. The run makes one from its `LaunchedKamailio`; `callstorm report` makes one again from
/// the run directory's kamailio.log and the facts' server, so a rebuilt report names the same failure (exit 3).
struct KamailioExhaustion {
    let findings: KamailioLogFindings
    let sharedMemoryMB: Int
    let privateMemoryMB: Int
    let children: Int
    /// How the sizes were chosen (`KamailioSizing.basis`).
    let basis: String

    /// From a finished run's directory: nil unless callstorm started the Kamailio (facts.server) and its
    /// kamailio.log shows memory exhaustion.
    init?(run: URL, facts: RunFacts) {
        guard let server = facts.server, server.name == "Kamailio", server.startedBy == "callstorm",
              let text = try? String(contentsOf: RunBundle(run).kamailioLog, encoding: .utf8) else { return nil }
        var findings = KamailioLogFindings()
        findings.read(text: text)
        self.init(findings: findings, sharedMemoryMB: server.sharedMemoryMB, privateMemoryMB: server.privateMemoryMB,
                  children: server.children, basis: server.sizing)
    }

    /// Nil when `findings` show no exhaustion.
    init?(findings: KamailioLogFindings, sharedMemoryMB: Int, privateMemoryMB: Int, children: Int, basis: String) {
        guard findings.exhausted else { return nil }
        self.findings = findings
        self.sharedMemoryMB = sharedMemoryMB
        self.privateMemoryMB = privateMemoryMB
        self.children = children
        self.basis = basis
    }

    /// The failure the verdict leads with, with the key that changes it.
    var failure: String {
        "the Kamailio callstorm started ran out of \(pools), \(findings.memoryLines) lines in kamailio.log: "
            + "the harness's configuration of the server, not a server defect; \(advice)"
    }

    /// The run's notes: the same, with the log's first lines and what it means for the rest of the report.
    var notes: [String] {
        let f = findings
        var lines = ["Kamailio (started by callstorm with -m \(sharedMemoryMB) -M \(privateMemoryMB) -n "
            + "\(children), \(basis)) ran out of \(pools): \(f.sharedMemory) lines "
            + "name shared memory, \(f.privateMemory) private memory, \(f.unnamedMemory) say \"out of mem\". "
            + "Calls it answered 500 or dropped then, and the conversation-rule findings that follow from them, "
            + "are the harness's configuration of the server, not a server defect: \(advice)."]
        lines += f.firstLines.map { "  kamailio.log: " + $0.trimmingCharacters(in: .whitespaces) }
        return lines
    }

    /// Appended to the history checker's failure when the server ran out of memory during the run.
    static let checkerAttribution = " — found while the Kamailio callstorm started was out of memory (see above): "
        + "not judged a server defect"

    private var pools: String {
        switch (findings.sharedMemory > 0 || findings.unnamedMemory > 0, findings.privateMemory > 0) {
        case (true, true): return "shared and private memory"
        case (false, true): return "private memory (pkg)"
        default: return "shared memory (shm)"
        }
    }

    private var advice: String {
        var keys: [String] = []
        if findings.sharedMemory > 0 || findings.unnamedMemory > 0 {
            keys.append("raise target.sip.kamailio.shared_memory_mb (this run: \(sharedMemoryMB))")
        }
        if findings.privateMemory > 0 {
            keys.append("raise target.sip.kamailio.private_memory_mb (this run: \(privateMemoryMB))")
        }
        return keys.joined(separator: " and ")
    }
}
