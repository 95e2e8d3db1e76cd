import CallModel
import Quantities
extension Scenario {
    /// A short human summary for `callstorm validate`: enough to confirm the file says what the author meant
    /// (the planned number of calls is often the surprise) without running anything.
    public func describe() -> String {
        let plan = ArrivalPlan(scenario: self)
        let d = Quantity.format(nanos:)
        let r = Quantity.format(ratePerSecond:)
        var lines = ["scenario '\(name)' (\(sourceFile))"]
        var targetText: String
        switch target {
        case .embedded: targetText = "embedded reference server"
        case .url(let url): targetText = url + (targetCA.map { " (trusting the CA in \($0))" } ?? "")
        }
        if targetClient == .curl { targetText += " (HTTP through libcurl, target.client: curl)" }
        // SIP devices call through the SIP server alone (the embedded target still starts, unused), and a SIP
        // scenario has no merge or unmerge, so no unmerge policy to hold a server to.
        lines.append("  seed \(seed), \(devices) devices, target \(sip == nil ? targetText : "SIP server")")
        if let sip {
            lines.append("  SIP devices register at \(registrar(sip))")
        } else if let unmerge = serverPolicy(embedded: target == .embedded).unmerge {
            lines.append("  server policy: unmerge \(unmerge.rawValue) (held to by unmerge-follows-policy)")
        } else {
            lines.append("  server policy: none declared (unmerge-follows-policy will not be checked)")
        }
        if let users { lines.append(users.describe()) }
        let stages = load.map { stage -> String in
            switch stage {
            case .hold(let rate, let nanos): return "hold \(r(rate)) for \(d(nanos))"
            case .ramp(let from, let to, let nanos): return "ramp \(r(from)) -> \(r(to)) over \(d(nanos))"
            }
        }
        let stagesTotal = load.reduce(UInt64(0)) { $0 &+ $1.nanos }
        var window = "  arrivals: \(arrivals.rawValue) over \(d(plan.totalNanos))"
        if onlyOutsideCalls {
            lines.append("  load: none; every flow is started by an outside party")
            window = "  outside calls: taken for \(d(plan.totalNanos)) from the load's start"
        } else {
            lines.append("  load: \(stages.joined(separator: ", "))")
        }
        if onlyOutsideCalls {
            // No stages to cut or extend.
        } else if let duration, duration < stagesTotal {
            window += " (duration cuts the stages at \(d(duration)))"
        } else if let duration, duration > stagesTotal {
            window += " (the last rate holds for \(d(duration - stagesTotal)) after the stages)"
        }
        lines.append(window)
        let planned = Int(plan.plannedTotal.rounded())
        let approx = arrivals == .poisson ? "about " : ""
        lines.append("  planned calls: \(approx)\(planned) (peak \(r(plan.peakRate)))")
        let totalWeight = mix.reduce(0) { $0 + $1.weight }
        let shares = mix.map { entry in
            "\(entry.flow) \(Quantity.decimal(totalWeight > 0 ? entry.weight / totalWeight * 100 : 0))%"
        }
        lines.append("  mix: \(shares.joined(separator: ", "))")
        lines.append(contentsOf: describeFlows())
        lines.append("  behavior: answer after \(behavior.answerAfter), talk \(behavior.talk), "
            + "hangup \(behavior.hangup.rawValue)"
            + (behavior.redialAfterDrop.map {
                "; after a drop \(Quantity.decimal($0.share * 100))% of callers redial after \($0.delay)"
            } ?? ""))
        lines.append("  push: \(push.listenHost):\(push.listenPort), deadline \(d(push.deadlineNanos)), "
            + "bundle \(push.bundleID)"
            + (push.authKind == .certificate ? ", certificate auth" : "")
            + (push.route == .connect ? ", via CONNECT" : ""))
        let workerText = workers.map(String.init) ?? "one per core"
        lines.append("  drain \(d(drainNanos)), action timeout \(d(actionTimeoutNanos)), workers \(workerText)")
        if slo.isEmpty {
            lines.append("  slo: none")
        } else {
            lines.append("  slo:")
            for threshold in slo {
                lines.append("    \(threshold.text)\(threshold.abortOnFail ? " (abort_on_fail)" : "")")
            }
        }
        if let capacity {
            lines.append("  capacity: knee where \(capacity.limit.text) breaks over \(capacity.windowSeconds) s windows "
                + "(at least \(capacity.minimumSamples) samples)\(capacity.stopAtKnee ? ", then stop arrivals" : "")")
        }
        return lines.joined(separator: "\n")
    }

    /// Where SIP devices register, and the share that sleeps when not all do (`device.sleep: 50%`).
    private func registrar(_ sip: SIPTargetSpec) -> String {
        var text = sip.summary(devicesSleep: device.sip?.sleep ?? false, transport: device.sip?.transport ?? .udp)
        if let spec = device.sip, spec.sleep, spec.sleepShare < 1 {
            text += "; \(Int((spec.sleepShare * 100).rounded()))% of the devices sleep (each one's seeded draw)"
        }
        return text
    }
}
