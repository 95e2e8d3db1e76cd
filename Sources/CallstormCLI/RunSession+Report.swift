import Determinism
import Driver
import Faults
import Foundation
import Metrics
import Reports
import Results
import Scenario

extension RunSession {
    // MARK: - Account

    /// What the servers counted, added once they have stopped (so these numbers are final): the push books of
    /// the gateway and the pushes handed over after the workers stopped, the target's device-clock latencies
    /// (clock_skew faults) and the gateway's GOAWAYs.
    func account(_ result: inout LoadDriver.Result, servers: EmbeddedServers, driver: LoadDriver) {
        let origin = result.recorder.runStartNanos
        let ingress = [servers.gateway.ingressStats(.apns), servers.gateway.ingressStats(.fcm)]
        var books = driver.lateCounters()
        books[Books.Counter.gatewaySent, default: 0] += Int64(servers.gateway.requestsReceived)
        books[Books.Counter.gatewayAccepted, default: 0] += Int64(ingress.reduce(0) { $0 + $1.accepted })
        books[Books.Counter.gatewayRejected, default: 0] += Int64(ingress.reduce(0) { $0 + $1.rejectedTotal })
        for (name, n) in books { result.recorder.count(Metric(named: name), by: n, atNanos: origin) }
        servers.recordConnectionCounters(into: &result.recorder, atNanos: origin)
        var ownServer = false
        if case .url = scenario.target { ownServer = true }
        var rejected: [String: Int] = [:]
        for stats in ingress { rejected.merge(stats.rejected, uniquingKeysWith: +) }
        let diagnoses = FirstContact.diagnose(FirstContact.Facts(
            counters: result.recorder.counters, gatewayURL: servers.gatewayURL, caPath: servers.caPath,
            rejected: rejected, ownServer: ownServer, sipDevices: scenario.device.sip != nil))
        result.notes.insert(contentsOf: diagnoses, at: 0)
        diagnoses.forEach(say)
        if FaultSchedule(windows: scenario.faults, seed: scenario.seed).hasClockSkew,
           let samples = servers.target?.reportLatencyByDeviceClock {
            // clock_skew faults: push-to-report as the embedded target measured it from device timestamps.
            for ms in samples {
                if ms < 0 {
                    result.recorder.count(Metric.targetReportLatencyDeviceClockNegative, atNanos: origin)
                } else {
                    result.recorder.record(Metric.targetReportLatencyDeviceClock, micros: max(1, ms * 1000),
                                           atNanos: origin)
                }
            }
        }
        if let target = servers.target, target.pushesRetried > 0 {
            // How the target recovered from push-path faults: attempts made again, and pushes that got through.
            result.recorder.count(Metric.targetPushesRetried, by: Int64(target.pushesRetried), atNanos: origin)
            result.recorder.count(Metric.targetPushesRecovered, by: Int64(target.pushesRecovered), atNanos: origin)
        }
        let gatewayStats = servers.gatewayServer.stats
        if gatewayStats.goAwaysSent > 0 {
            // GOAWAY faults: how often the gateway ended a connection, and the connections the client reopened.
            result.recorder.count(Metric.gatewayGoAwaysSent, by: Int64(gatewayStats.goAwaysSent), atNanos: origin)
            result.recorder.count(Metric.gatewayConnections, by: Int64(gatewayStats.connectionsAccepted),
                                  atNanos: origin)
        }
    }

    // MARK: - Report

    /// The history check, the fault table, every report file, the books and the exit code.
    func report(_ driven: Driven, distributed: DistributedRun, driver: LoadDriver) throws(CLIError)
        -> RunCommand.Outcome {
        var result = driven.result
        var notes = result.notes + distributed.notes
        notes.append(String(format: "Devices registered in the first %.1f s; calls start after that.",
                            result.loadStartSecond))
        var failures: [String] = []
        if let abortedBy = driven.abortedBy {
            failures.append("aborted by abort_on_fail threshold \(abortedBy.threshold.text): measured "
                + "\(abortedBy.measuredText) at a live check; the results are partial")
            notes.append("The run was stopped early because \(abortedBy.threshold.key) failed during the run.")
        }
        if let saturation = driven.abortedBySaturation {
            failures.append("aborted: \(saturation.summary) (harness.on_saturation: abort); the results are partial")
        }
        let written: RunReporting.Written
        do {
            try RunReporting.save(driven.facts, to: bundle.facts)
            // faults.csv first: the history check attributes findings to the faults on their paths.
            try writeFaults(faultsCSV: driver.faultsCSV, loadStartSecond: result.loadStartSecond)
            HeapPages.giveBack()  // the run's freed pages, before the join and the check allocate their own
            try RunResults.joinHistory(run: bundle.directory)
            try checkHistory(&result, notes: &notes, failures: &failures)
            attributeToKamailio(notes: &notes, failures: &failures)
            try RunReporting.save(notes, to: bundle.notes)
            try RunResults.replaceFile(bundle.finished, with: Data())
            written = try RunReporting.write(run: bundle.directory, facts: driven.facts, recorder: result.recorder,
                                             thresholds: scenario.slo, notes: notes, extraFailures: failures,
                                             historyJoined: true)
        } catch {
            throw .cannotWrite(what: "the report", directory: bundle.directory.path, cause: error)
        }
        summarize(written, recorder: result.recorder)
        otlp?.finish(runDirectory: bundle.directory, recorder: result.recorder)
        try distributed.finish(scenario: scenario, result: result, facts: driven.facts,
                               runDirectory: bundle.directory, notes: notes)
        return outcome(written, result: result, driven: driven)
    }

    /// What `runForHistory` leaves: the history joined from the workers' files and the faults it is judged with.
    func keepHistory(_ driven: Driven, driver: LoadDriver) throws(CLIError) {
        do {
            try writeFaults(faultsCSV: driver.faultsCSV, loadStartSecond: driven.result.loadStartSecond)
            try RunResults.joinHistory(run: bundle.directory)
        } catch {
            throw .cannotWrite(what: "the history", directory: bundle.directory.path, cause: error)
        }
    }

    /// The history checker's verdict: violations become counters, so `slo: { invariant_violations: "== 0" }`
    /// can gate on them, and a failure of the run.
    private func checkHistory(_ result: inout LoadDriver.Result, notes: inout [String],
                              failures: inout [String]) throws {
        guard let check = try HistoryCheck.run(bundle.directory) else { return }
        let now = result.recorder.runStartNanos
        result.recorder.count(Metric.invariantViolations, by: Int64(check.report.violations.count), atNanos: now)
        for (rule, n) in check.report.countsByRule where n > 0 {
            result.recorder.count(Metric.invariantViolations(rule.rawValue), by: Int64(n), atNanos: now)
        }
        notes += check.lines
        if let attributed = check.report.attributed, !attributed.isEmpty {
            result.recorder.count(Metric.invariantViolationsAttributed, by: Int64(attributed.count), atNanos: now)
            notes.append(Self.recoveryLine(result.recorder.counters))
        }
        if !check.report.violations.isEmpty {
            failures.append("history checker: \(check.report.violations.count) violations of the " +
                            "conversation rules (checker.json)")
        }
        check.lines.forEach(say)
    }

    /// faults.csv and the report's fault table (report seconds count from the run's origin; fault windows from
    /// the load's start).
    private func writeFaults(faultsCSV csv: String, loadStartSecond offset: Double) throws {
        guard !scenario.faults.isEmpty else { return }
        let injected = FaultDescription.injectedByWindow(faultsCSV: csv)
        let windows = scenario.faults.map {
            Reports.FaultSpan(fromSecond: offset + Double($0.atNanos) / 1e9,
                                toSecond: offset + Double($0.atNanos + $0.forNanos) / 1e9, label: $0.name,
                                what: FaultDescription.describe($0), injected: injected[$0.name] ?? [:])
        }
        try RunReporting.save(windows, to: bundle.faultWindows)
        try RunResults.replaceFile(bundle.faults, with: Data(csv.utf8))
    }

    /// The thresholds, the capacity knee and the books, on stderr.
    private func summarize(_ written: RunReporting.Written, recorder: Recorder) {
        guard !options.quiet else { return }
        for item in written.thresholds { say(item.summary) }
        if let capacity = written.capacity { say("capacity: " + capacity.summary) }
        if let harness = written.harness { say("callstorm: " + harness.summary) }
        for line in written.books.lines { say("books: " + line) }
    }

    /// The exit code: books that do not balance are a harness failure; then an abort, an interruption or the
    /// verdict decides.
    private func outcome(_ written: RunReporting.Written, result: LoadDriver.Result, driven: Driven)
        -> RunCommand.Outcome {
        let code: ExitCode
        if !written.books.balanced {
            for problem in written.books.problems {
                FileHandle.standardError.write(Data("callstorm: accounting does not balance: \(problem)\n".utf8))
            }
            code = .harnessFailure
        } else if driven.abortedBySaturation != nil || kamailio?.findings.exhausted == true {
            // A server callstorm started and sized too small is the harness's configuration (the verdict says so).
            code = .harnessFailure
        } else if driven.abortedBy != nil {
            code = .thresholdsFailed
        } else {
            code = .of(written.verdict, interrupted: driven.facts.interrupted)
        }
        return RunCommand.Outcome(reportPath: written.files.html.path, runDirectory: bundle.directory,
                                  exitCode: code, result: result, verdict: written.verdict)
    }

    /// How the server recovered from the push faults it met, from what callstorm can see of it.
    static func recoveryLine(_ c: [String: Int64]) -> String {
        let refused = c.filter { $0.key.hasPrefix("faults.push.error_") && $0.key.split(separator: ".").count == 3 }
            .values.reduce(0, +) + (c["faults.push.brownout_refused"] ?? 0)
        guard let retried = c[MetricName.targetPushesRetried] else {
            return "  recovery: the push gateway refused \(refused) pushes by injected fault; whether the server retried "
                + "them is not known to callstorm for a server it does not run (a retry is a new push to the gateway)"
        }
        return "  recovery: the push gateway refused \(refused) pushes by injected fault; the target retried "
            + "\(retried) attempts and \(c[MetricName.targetPushesRecovered] ?? 0) pushes got through on a retry"
    }
}
