import Metrics

/// Whether the run met its SLOs, and if not, why — one human-readable reason per failed threshold.
public struct Verdict: Sendable, Codable, Equatable {
    public var passed: Bool
    public var reasons: [String]
    /// Why the run did nothing worth judging (no device registered, no call started, or none of those started
    /// connected: answered, or unanswered by its flow's steps or as its `expect` declares), or nil. Such a run fails
    /// whatever its thresholds say, with its own exit code, so nightly CI
    /// never stays green against a server nobody reached.
    public var nothingDone: String?

    public init(passed: Bool, reasons: [String] = []) {
        self.passed = passed
        self.reasons = reasons
    }

    /// The verdict of a run: it passes when every threshold holds and nothing else failed it. A run that was
    /// interrupted or under-delivered its planned rate says so in `reasons`, failing only through thresholds
    /// (or `extraFailures`), so a scenario decides what CI must reject.
    public init(thresholds: [ThresholdResult], warnings: [String] = [], extraFailures: [String] = [],
                nothingDone: String? = nil) {
        let failed = thresholds.filter { !$0.passed }
        passed = failed.isEmpty && extraFailures.isEmpty && nothingDone == nil
        reasons = [nothingDone].compactMap { $0 } + extraFailures + failed.map(\.summary) + warnings
        self.nothingDone = nothingDone
        if thresholds.isEmpty, extraFailures.isEmpty {
            reasons.append("no thresholds set (add an 'slo:' section to the scenario to gate on results)")
        }
    }

    /// Why a run with these counters did nothing, or nil: no device registered, no call started (when any was
    /// planned, or always for a whole run: a shard may be planned none), or none of the calls started completed.
    public static func nothingDone(counters c: [String: Int64], devices: Int, isShard: Bool) -> String? {
        let registered = c[MetricName.devicesRegistered] ?? 0
        let planned = c[MetricName.callsPlanned] ?? 0
        let started = c[MetricName.callsStarted] ?? 0
        let completed = c[MetricName.callsCompleted] ?? 0
        if devices > 0, registered == 0 {
            return "the run did nothing: no device registered with the target"
        }
        if started == 0, !isShard || planned > 0 {
            return "the run did nothing: no call was started"
        }
        // Calls their callers abandoned while the devices rang (`calls.missed_abandoned`) did not connect, by the
        // callers' choice: a run of only those did what it could (issue 32), it is not one that "did nothing".
        if started > 0, completed == 0, (c[MetricName.callsMissedAbandoned] ?? 0) == 0 {
            return "the run did nothing: none of the \(started) calls started connected (none was answered, and none "
                + "ended unanswered by its flow's steps or as its 'expect' declares)" + why(counters: c)
        }
        return nil
    }

    /// Calls refused before anyone answered that their flows do not declare (`calls.failed.sip_<status>`, issue
    /// 32): they fail the run whatever the thresholds say, as a refusal is the server's (or the party it routed
    /// to) word that the call did not happen; nil when there were none.
    /// In a run with fault windows only the calls with no injected fault on their path count
    /// (`calls.failed_without_fault`): a refusal a fault caused (a lost wake, the push timeout's 408) is the
    /// fault's, and the fault attribution line says so.
    public static func refusals(counters c: [String: Int64]) -> String? {
        let refused = MetricName.refusals(in: c)
        var total = refused.reduce(0) { $0 + $1.calls }
        let attributed = c[MetricName.callsAttributedToFaults] != nil || c[MetricName.callsFailedWithoutFault] != nil
        if attributed { total = min(total, c[MetricName.callsFailedWithoutFault] ?? 0) }
        guard total > 0 else { return nil }
        let list = refused.map { "\($0.reason) ×\($0.calls)" }.joined(separator: ", ")
        return "\(total) call\(total == 1 ? " was" : "s were") refused before anyone answered"
            + (attributed ? " with no injected fault on their path (refusals: \(list))" : " (\(list))")
            + "; a flow whose calls may be refused says so: 'expect: { unanswered: [refused] }'"
    }

    /// What became of the calls of a run where none connected: how many failed and were missed, and the statuses
    /// that refused them (`calls.failed.sip_408`), so the verdict says why.
    private static func why(counters c: [String: Int64]) -> String {
        let refusals = MetricName.refusals(in: c).map { "\($0.reason) ×\($0.calls)" }
        var parts: [String] = []
        if let failed = c[MetricName.callsFailed], failed > 0 {
            parts.append("\(failed) failed" + (refusals.isEmpty ? "" : ", refused: " + refusals.joined(separator: ", ")))
        }
        if let missed = c[MetricName.callsMissed], missed > 0 { parts.append("\(missed) missed") }
        return parts.isEmpty ? "" : ": " + parts.joined(separator: "; ")
    }
}
