import Checker
import Faults
import Foundation
import Reports
import Results
import RunFormats

/// The injected faults of a run, read back from its `faults.csv`, for the history checker's attribution.
extension HistoryCheck {
    /// Requests and pushes in flight when a network window opens or closes, or a target dies, are on its path too.
    static let serverFaultMarginNanos: UInt64 = 1_000_000_000

    static func injectedFaults(run: URL) -> [InjectedFault] {
        guard let text = try? String(contentsOf: RunBundle(run).faults, encoding: .utf8),
              let facts = RunReporting.load(RunFacts.self, from: RunReporting.factsURL(run)) else { return [] }
        let offset = UInt64(max(0, facts.loadStartSecond ?? 0) * 1e9)
        return injectedFaults(FaultRow.rows(fromCSV: text), offsetNanos: offset,
                              runEndNanos: offset + UInt64(max(0, facts.durationSeconds) * 1e9))
    }

    /// Push and device rows hit one device's call (socket drops and stalls: the device, around their instant);
    /// network windows span from `network.on` to `network.off` and carry the toxics their connections met; a
    /// target kill spans until its restart; a socket storm touches every device's view for the attribution's
    /// lookback after it (reconnects and resyncs); a SIP registration lapse is the device's until it registered
    /// again, and a SIP datagram fault on a message of no call is on no finding's path (`SIPRegistrationFaults`).
    /// `offsetNanos` puts faults.csv's times (since the load began) on the history's clock (since the run's origin).
    static func injectedFaults(_ rows: [FaultRow], offsetNanos: UInt64, runEndNanos: UInt64) -> [InjectedFault] {
        let margin = serverFaultMarginNanos
        var out: [InjectedFault] = []
        var opened: [String: UInt64] = [:]
        var killed: [String: UInt64] = [:]
        var toxics: [String: Set<String>] = [:]
        var spans: [(window: String, from: UInt64, to: UInt64, kind: String?)] = []
        var lapsed: [String: (window: String, from: UInt64)] = [:]
        for row in rows {
            let nanos = offsetNanos + row.sinceLoadNanos
            switch row.kind {
            case NetworkPlan.switchedOn: opened[row.window] = nanos
            case NetworkPlan.switchedOff:
                if let from = opened.removeValue(forKey: row.window) {
                    spans.append((row.window, from, nanos, nil))
                }
            case TargetKillFault.killed: killed[row.window] = nanos
            case TargetKillFault.restarted:
                if let from = killed.removeValue(forKey: row.window) {
                    spans.append((row.window, from, nanos, TargetKillFault.killed))
                }
            case SIPRegistrationFaults.lapsed: if let device = row.device { lapsed[device] = (row.window, nanos) }
            case SIPRegistrationFaults.restored:
                if let device = row.device, let lapse = lapsed.removeValue(forKey: device) {
                    out.append(Self.lapseFault(device, window: lapse.window, from: lapse.from, to: nanos))
                }
            case _ where SIPRegistrationFaults.onNoCallsPath(kind: row.kind, call: row.plannedCall ?? -1):
                continue  // a datagram of no call (a REGISTER refresh): on no finding's path
            default:
                if row.kind.hasPrefix(NetworkPlan.kindPrefix) {
                    toxics[row.window, default: []].insert(row.kind)
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .network,
                                             fromNanos: nanos &- min(nanos, margin), toNanos: nanos + margin))
                } else if row.kind.hasPrefix(SocketStormFault.storm) {
                    // Every device's socket at once: their views may lag until they reconnect and resync.
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .network,
                                             fromNanos: nanos &- min(nanos, margin),
                                             toNanos: nanos + FaultAttribution.lookbackNanos))
                } else if let device = row.device {
                    out.append(InjectedFault(kind: row.kind, window: row.window, family: .device, device: device,
                                             call: row.plannedCall, fromNanos: nanos, toNanos: nanos))
                }
            }
        }
        for (window, from) in opened { spans.append((window, from, runEndNanos, nil)) }
        for (window, from) in killed { spans.append((window, from, runEndNanos, TargetKillFault.killed)) }
        for (device, open) in lapsed {
            out.append(Self.lapseFault(device, window: open.window, from: open.from, to: runEndNanos))
        }
        for span in spans {
            let kinds = span.kind.map { [$0] } ?? (toxics[span.window].map { $0.sorted() } ?? [NetworkPlan.windowKind])
            for kind in kinds {
                let family: InjectedFault.Family = kind == TargetKillFault.killed ? .target : .network
                out.append(InjectedFault(kind: kind, window: span.window, family: family,
                                         fromNanos: span.from &- min(span.from, margin), toNanos: span.to + margin))
            }
        }
        return out
    }

    private static func lapseFault(_ device: String, window: String, from: UInt64, to: UInt64) -> InjectedFault {
        InjectedFault(kind: SIPRegistrationFaults.lapsed, window: window, family: .device, device: device,
                      fromNanos: from, toNanos: to)
    }
}
