import Chaos
import Checker
import Foundation
import Reports

/// The injected faults of a run, read back from its `faults.csv`, for the history checker's attribution.
extension HistoryCheck {
    /// Requests and pushes in flight when a network window opens or closes, or a target dies, are on its path too.
    static let serverFaultMarginNanos: UInt64 = 1_000_000_000

    static func injectedFaults(run: URL) -> [InjectedFault] {
        guard let text = try? String(contentsOf: run.appendingPathComponent("faults.csv"), encoding: .utf8),
              let facts = RunReporting.load(RunFacts.self, from: RunReporting.factsURL(run)) else { return [] }
        let offset = UInt64(max(0, facts.loadStartSecond ?? 0) * 1e9)
        let rows = text.split(separator: "\n").dropFirst().compactMap { FaultRow($0, offset: offset) }
        return injectedFaults(rows, runEndNanos: offset + UInt64(max(0, facts.durationSeconds) * 1e9))
    }

    /// One row of faults.csv (`t_s,window,kind,subject,call,role,seq`), its time on the history's clock.
    struct FaultRow {
        var nanos: UInt64
        var window: String
        var kind: String
        var subject: String
        var call: Int?

        init?(_ line: Substring, offset: UInt64) {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 5, let seconds = Double(fields[0]) else { return nil }
            nanos = offset + UInt64(max(0, seconds) * 1e9)
            window = String(fields[1])
            kind = String(fields[2])
            subject = String(fields[3])
            call = Int(fields[4]).flatMap { $0 >= 0 ? $0 : nil }
        }
    }

    /// Push and device rows hit one device's call (socket drops and stalls: the device, around their instant);
    /// network windows span from `network.on` to `network.off` and carry the toxics their connections met; a
    /// target kill spans until its restart; a socket storm touches every device's view for the attribution's
    /// lookback after it (reconnects and resyncs).
    static func injectedFaults(_ rows: [FaultRow], runEndNanos: UInt64) -> [InjectedFault] {
        let margin = serverFaultMarginNanos
        var out: [InjectedFault] = []
        var opened: [String: UInt64] = [:]
        var killed: [String: UInt64] = [:]
        var toxics: [String: Set<String>] = [:]
        var spans: [(window: String, from: UInt64, to: UInt64, kind: String?)] = []
        for row in rows {
            switch row.kind {
            case "network.on": opened[row.window] = row.nanos
            case "network.off":
                if let from = opened.removeValue(forKey: row.window) {
                    spans.append((row.window, from, row.nanos, nil))
                }
            case "target.killed": killed[row.window] = row.nanos
            case "target.restarted":
                if let from = killed.removeValue(forKey: row.window) {
                    spans.append((row.window, from, row.nanos, "target.killed"))
                }
            default:
                if row.kind.hasPrefix("network.") {
                    toxics[row.window, default: []].insert(row.kind)
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .network,
                                             fromNanos: row.nanos &- min(row.nanos, margin), toNanos: row.nanos + margin))
                } else if row.kind.hasPrefix(SocketStormFault.storm) {
                    // Every device's socket at once: their views may lag until they reconnect and resync.
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .network,
                                             fromNanos: row.nanos &- min(row.nanos, margin),
                                             toNanos: row.nanos + FaultAttribution.lookbackNanos))
                } else if row.subject.hasPrefix("dev-") {
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .device, device: row.subject,
                                             call: row.call, fromNanos: row.nanos, toNanos: row.nanos))
                }
            }
        }
        for (window, from) in opened { spans.append((window, from, runEndNanos, nil)) }
        for (window, from) in killed { spans.append((window, from, runEndNanos, "target.killed")) }
        for span in spans {
            let kinds = span.kind.map { [$0] } ?? (toxics[span.window].map { $0.sorted() } ?? ["network.window"])
            for kind in kinds {
                out.append(InjectedFault(kind: kind, window: span.window, family: kind == "target.killed" ? .target : .network,
                                         fromNanos: span.from &- min(span.from, margin), toNanos: span.to + margin))
            }
        }
        return out
    }
}
