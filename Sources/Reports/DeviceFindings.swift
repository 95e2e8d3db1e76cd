import Metrics

/// What the simulated devices found wrong with what the server sent them (docs/LCK.md), as lines for the
/// verdict: they reach the banner and summary.json's `verdict.reasons`. They fail a run only through a
/// threshold (`voip_without_call_rate`, or the counter itself), like every other figure.
public enum DeviceFindings {
    /// `harnessLagged`: callstorm itself fell behind (saturated or lagging), so a call it failed is not put on
    /// the target alone.
    public static func lines(counters: [String: Int64], harnessLagged: Bool = false) -> [String] {
        var lines: [String] = []
        if let line = voipWithoutCall(counters) { lines.append(line) }
        if let line = capabilities(counters) { lines.append(line) }
        if let line = callerHandles(counters) { lines.append(line) }
        if let line = elsewhere(counters) { lines.append(line) }
        if let line = faultAttributedCalls(counters, harnessLagged: harnessLagged) { lines.append(line) }
        return lines
    }

    /// `calls not completed: 9 attributed to injected faults (push.dropped 3, sip.late_wake 3); 0 with no fault
    /// on their path (the target's)`: present in runs with fault windows where a call failed or was missed. When
    /// outside parties placed calls, the rest may be theirs (SIPp hanging up early) as much as the target's.
    static func faultAttributedCalls(_ counters: [String: Int64], harnessLagged: Bool = false) -> String? {
        let attributed = counters[MetricName.callsAttributedToFaults] ?? 0
        let server = counters[MetricName.callsFailedWithoutFault] ?? 0
        guard attributed + server > 0 else { return nil }
        let prefix = MetricName.callsAttributed(to: "")
        let kinds = counters.filter { $0.key.hasPrefix(prefix) && $0.value > 0 }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { "\($0.key.dropFirst(prefix.count)) \($0.value)" }
        var line = "calls not completed: \(attributed) attributed to injected faults"
        if !kinds.isEmpty { line += " (" + kinds.joined(separator: ", ") + ")" }
        var whose = (counters[MetricName.callsStartedByOutside] ?? 0) > 0
            ? "the target's, or an outside party's" : "the target's"
        if harnessLagged { whose += ", unless callstorm's own lag above explains them" }
        return line + "; \(server) with no injected fault on their path (\(whose))"
    }

    /// `server defect: the caller handle of 12 of 40 VoIP pushes was missing 12 …`.
    static func callerHandles(_ counters: [String: Int64]) -> String? {
        let found = MetricName.callerHandleDefects.compactMap { defect -> String? in
            let n = counters[MetricName.callerHandle(defect)] ?? 0
            return n > 0 ? "\(defect) \(n)" : nil
        }
        guard !found.isEmpty else { return nil }
        let checked = counters[MetricName.callerHandlesChecked] ?? 0
        return "server defect: caller handle in VoIP pushes (\(checked) checked): " + found.joined(separator: ", ")
            + "; the app shows and redials this handle from Recents (docs/LCK.md)"
    }

    /// `server defect: 4 devices rang on after their user answered or declined on another device …` (users with
    /// several devices, docs/USERS.md): devices left ringing, ended with the wrong reason, or rung by their own
    /// user's outgoing call.
    static func elsewhere(_ counters: [String: Int64]) -> String? {
        let ringing = counters[MetricName.elsewhereRingingAfterAnswer] ?? 0
        let wrong = counters[MetricName.elsewhereWrongReason] ?? 0
        let outgoing = counters[MetricName.elsewhereOutgoingRang] ?? 0
        guard ringing + wrong + outgoing > 0 else { return nil }
        var parts: [String] = []
        if ringing > 0 {
            parts.append("\(ringing) device\(ringing == 1 ? "" : "s") rang on past the grace after the call was "
                + "answered or declined on another device of the user")
        }
        if wrong > 0 { parts.append("\(wrong) ended with another reason than joinedElsewhere/declinedElsewhere") }
        if outgoing > 0 { parts.append("\(outgoing) rang with their own user's outgoing call") }
        return "server defect: " + parts.joined(separator: "; ") + " (docs/USERS.md)"
    }

    /// `capabilities withdrawn mid-call: pausing 12; steps refused for a missing capability: pausing@hold-resume/hold 12`.
    static func capabilities(_ counters: [String: Int64]) -> String? {
        let lost = counters.filter { $0.key.hasPrefix(MetricName.capabilityLost("")) && $0.value > 0 }
            .sorted { $0.key < $1.key }
            .map { "\($0.key.dropFirst(MetricName.capabilityLost("").count)) \($0.value)" }
        let steps = counters.filter { $0.key.hasPrefix(MetricName.missingCapabilityPrefix) && $0.value > 0 }
            .sorted { $0.key < $1.key }
            .map { "\($0.key.dropFirst(MetricName.missingCapabilityPrefix.count)) \($0.value)" }
        guard !lost.isEmpty || !steps.isEmpty else { return nil }
        var parts: [String] = []
        if !lost.isEmpty { parts.append("capabilities withdrawn mid-call: " + lost.joined(separator: ", ")) }
        if !steps.isEmpty {
            parts.append("steps refused for a missing capability (as LiveCommunicationKit fails the action): "
                + steps.joined(separator: ", "))
        }
        return parts.joined(separator: "; ") + " (docs/LCK.md)"
    }

    /// `server defect: 12 VoIP pushes carried no new call (ended_conversation 8, known_conversation 4) …`.
    static func voipWithoutCall(_ counters: [String: Int64]) -> String? {
        let total = counters[MetricName.pushesVoIPWithoutCall] ?? 0
        guard total > 0 else { return nil }
        let causes = MetricName.voipWithoutCallCauses.compactMap { cause -> String? in
            let n = counters[MetricName.pushesVoIPWithoutCall(cause)] ?? 0
            return n > 0 ? "\(cause) \(n)" : nil
        }
        var line = "server defect: \(total) VoIP push\(total == 1 ? "" : "es") carried no new call ("
            + causes.joined(separator: ", ") + "); iOS terminates an app that reports no conversation for a VoIP push"
        let flashed = counters[MetricName.pushesVoIPReportedAndEnded] ?? 0
        let terminated = counters[MetricName.devicesTerminatedVoIPWithoutCall] ?? 0
        let blocked = counters[MetricName.devicesVoIPBlocked] ?? 0
        if flashed > 0 { line += "; \(flashed) reported and ended at once (a flash of incoming-call UI)" }
        if terminated > 0 { line += "; \(terminated) app terminations" }
        if blocked > 0 { line += "; \(blocked) device\(blocked == 1 ? "" : "s") no longer launched for VoIP pushes" }
        return line + " (docs/LCK.md)"
    }
}
