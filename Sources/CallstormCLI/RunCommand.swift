import Dispatch
import Driver
import Foundation
import Metrics
import PushGateway
import Reports
import Results
import Scenario

/// `callstorm run FILE`: embedded servers, the driver, a progress line, the report, the exit code.
enum RunCommand {
    struct Options {
        var file: String
        var out: String?
        var targetURL: String?
        /// Hosts outside loopback the user named with `--allow-remote HOST`.
        var allowRemote: Set<String> = []
        var seed: UInt64?
        var durationNanos: UInt64?
        var workers: Int?
        var quiet = false
        var distributed = DistributedOptions()
    }

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let valued = DistributedOptions.valuedFlags.union(["out", "target", "seed", "duration", "workers",
                                                           "allow-remote"])
        let parsed = try Arguments(args, valued: valued,
                                   boolean: ["help", "quiet"])
        if parsed.has("help") {
            print(Help.run)
            return .passed
        }
        guard parsed.positional.count == 1, let file = parsed.positional.first else {
            throw .usage("run takes exactly one scenario file")
        }
        var options = Options(file: file)
        options.out = parsed.value("out")
        options.targetURL = parsed.value("target")
        options.allowRemote = try Loopback.allowedHosts(parsed.value("allow-remote"))
        options.quiet = parsed.has("quiet")
        options.distributed = try DistributedOptions.parse(parsed)
        if let s = parsed.value("seed") {
            guard let seed = UInt64(s) else { throw .usage("--seed must be a non-negative integer, got '\(s)'") }
            options.seed = seed
        }
        if let d = parsed.value("duration") {
            do {
                options.durationNanos = try Quantity.duration(d)
            } catch {
                throw .usage("--duration: \(error.message)")
            }
        }
        if let w = parsed.value("workers") {
            guard let n = Int(w), n >= 1, n <= 256 else { throw .usage("--workers must be 1…256, got '\(w)'") }
            options.workers = n
        }
        let outcome = try perform(options)
        print("report: \(outcome.reportPath)")
        return outcome.exitCode
    }

    struct Outcome {
        var reportPath: String
        var runDirectory: URL
        var exitCode: ExitCode
        var result: LoadDriver.Result
        var verdict: Verdict
    }

    /// The whole run; separate from flag parsing so tests can drive it.
    static func perform(_ options: Options) throws(CLIError) -> Outcome {
        var scenario = try ValidateCommand.loadScenario(options.file)
        if let seed = options.seed { scenario.seed = seed }
        if let d = options.durationNanos { scenario.duration = d }
        let targetOverride = options.targetURL ?? {
            if case .url(let url) = scenario.target { return url }
            return nil
        }()
        // The safety interlock, before any socket is opened: a refused run sends nothing.
        if let url = targetOverride {
            guard let host = Loopback.host(ofURL: url) else { throw .usage("target URL '\(url)' has no host") }
            try Loopback.require(host, role: "target", allowed: options.allowRemote)
        }
        try Loopback.require(scenario.push.listenHost, role: "push listener", allowed: options.allowRemote)
        let startedAt = Date()
        let servers: EmbeddedServers
        var targetURL: String
        let runDirectory = URL(fileURLWithPath: options.out ?? defaultRunDirectory(scenario.name, startedAt))
        // A child-process target and the network fault proxy (fault windows acting outside the driver).
        var targetProcess: TargetProcess?
        var faultController: FaultController?
        do {
            let scenarioDirectory = URL(fileURLWithPath: options.file).deletingLastPathComponent().path
            servers = try EmbeddedServers(push: scenario.push, scenarioDirectory: scenarioDirectory,
                                          embeddedTarget: targetOverride == nil)
            if scenario.targetProcess, targetOverride == nil {
                try FileManager.default.createDirectory(at: runDirectory, withIntermediateDirectories: true)
                let child = try TargetProcess(
                    arguments: servers.childTargetArguments(directory: runDirectory)
                        + ["--bundle-id", scenario.push.bundleID]
                        + (scenario.targetBugs.isEmpty ? [] : ["--bug", scenario.targetBugs.joined(separator: ",")])
                        + ["--push-expiration", "\(scenario.push.expirationSeconds)"],
                    directory: runDirectory)
                targetProcess = child
                try child.start()
                targetURL = child.url
            } else {
                targetURL = try targetOverride ?? servers.startTarget(
                    bundleID: scenario.push.bundleID, bugs: scenario.targetBugs,
                    pushExpirationSeconds: scenario.push.expirationSeconds)
            }
            if FaultController.isNeeded(scenario) {
                let controller = try FaultController(windows: scenario.faults, seed: scenario.seed,
                                                     upstreamURL: targetURL, target: targetProcess)
                faultController = controller
                targetURL = controller.deviceURL(for: targetURL)
            }
        } catch {
            targetProcess?.stop()
            throw .harness("could not start the embedded servers: \(error)")
        }
        let workers = options.workers ?? scenario.workers ?? ProcessInfo.processInfo.activeProcessorCount
        var settings = DriverSettings(scenario: scenario, targetURL: targetURL, workers: workers)
        settings.networkRoutes = faultController?.routes(for: targetURL) ?? [:]
        settings.runDirectory = runDirectory
        options.distributed.apply(to: &settings)
        let distributed = DistributedRun(options: options.distributed)
        distributed.probeClock(targetURL: targetURL, embeddedTarget: targetOverride == nil)
        let driver: LoadDriver
        let runStartNanos = HarnessSampler.monotonicNanos()
        do {
            driver = try LoadDriver(settings: settings)
        } catch {
            faultController?.stop()
            targetProcess?.stop()
            servers.stop()
            throw .harness("cannot write results into \(runDirectory.path): \(error)")
        }
        servers.sink.set(driver.pushSink)
        do {
            try distributed.startEndpoint(driver: driver, labels: .init(
                scenario: scenario.name, seed: scenario.seed, shard: options.distributed.shard.description))
        } catch {
            faultController?.stop()
            targetProcess?.stop()
            servers.stop()
            throw error
        }
        faultController?.historyFile = WorkerJournal.rawDirectory(runDirectory)
            .appendingPathComponent("history-wfaults.jsonl")
        faultController?.start(driver: driver)
        if !options.quiet {
            FileHandle.standardError.write(Data(("callstorm: \(scenario.name), seed \(scenario.seed), " +
                "\(scenario.devices) devices, \(workers) workers, target \(targetURL), gateway \(servers.gatewayURL)\n").utf8))
        }
        // Saved before the first call, so `callstorm report` can rebuild the report if this process is killed.
        var facts = RunFacts(
            scenario: scenario.name, scenarioFile: options.file, seed: scenario.seed, version: Command.version,
            startedAt: startedAt, durationSeconds: 0, machine: Machine.describe(),
            workers: workers, devices: scenario.devices,
            target: targetOverride ?? "embedded (\(targetURL))",
            pushDeadlineMicros: Int64(scenario.push.deadlineNanos / 1000),
            shard: options.distributed.shard.isWhole ? nil : options.distributed.shard.description,
            commandLine: CommandLine.arguments.joined(separator: " "), interrupted: false)
        facts.rowSampleEvery = settings.rowSampleEvery
        try? FileManager.default.removeItem(at: RunReporting.scenarioURL(runDirectory))
        try? FileManager.default.copyItem(at: URL(fileURLWithPath: options.file),
                                          to: RunReporting.scenarioURL(runDirectory))
        try? RunReporting.save(facts, to: RunReporting.factsURL(runDirectory))
        let sampler = HarnessSampler(runDirectory: runDirectory, runStartNanos: runStartNanos)
        let watch = LiveThresholdWatch(thresholds: scenario.slo, runDirectory: runDirectory) {
            // Twice: end arrivals and the drain at once, as a second Ctrl-C would.
            driver.requestStop()
            driver.requestStop()
        }
        let capacityWatch = CapacityWatch(spec: scenario.capacity, runDirectory: runDirectory) {
            driver.endArrivals(note: "Arrivals ended at the capacity knee (capacity.stop); calls in flight drained.")
        }
        let signals = SignalWatch { _ in driver.requestStop() }
        let progress = options.quiet ? nil : makeProgress(driver: driver, settings: settings)
        var result = driver.run()
        progress?.stop()
        signals.cancel()
        let abortedBy = watch?.stop()
        let knee = capacityWatch?.stop()
        if !options.quiet, let broken = knee?.broken {
            FileHandle.standardError.write(Data(("callstorm: capacity limit broke at second \(broken.second); "
                + "arrivals ended\n").utf8))
        }
        if let counted = faultController?.finish() { result.recorder.merge(counted) }
        targetProcess?.stop()
        servers.stop()
        if !options.quiet {
            FileHandle.standardError.write(Data(("gateway " + GatewayCommand.summary(servers.gateway,
                                                                                     servers.gatewayServer.stats)
                .replacingOccurrences(of: "\n", with: "\ngateway ")).dropLast(8).utf8))
        }
        result.recorder.merge(sampler.finish())
        // The push books: what the gateway received and answered, and what it handed over after the workers
        // stopped (the servers are stopped now, so these numbers are final).
        let origin = result.recorder.runStartNanos
        let ingress = [servers.gateway.ingressStats(.apns), servers.gateway.ingressStats(.fcm)]
        var books = driver.lateCounters()
        books[Books.Counter.gatewaySent, default: 0] += Int64(servers.gateway.requestsReceived)
        books[Books.Counter.gatewayAccepted, default: 0] += Int64(ingress.reduce(0) { $0 + $1.accepted })
        books[Books.Counter.gatewayRejected, default: 0] += Int64(ingress.reduce(0) { $0 + $1.rejectedTotal })
        for (name, n) in books { result.recorder.count(name, by: n, atNanos: origin) }
        servers.recordConnectionCounters(into: &result.recorder, atNanos: origin)
        if scenario.faults.contains(where: { ($0.device?.clockSkewNanos ?? 0) > 0 }),
           let samples = servers.target?.reportLatencyByDeviceClock {
            // clock_skew faults: push-to-report as the embedded target measured it from device timestamps.
            for ms in samples {
                if ms < 0 {
                    result.recorder.count("target.report_latency_device_clock.negative", atNanos: origin)
                } else {
                    result.recorder.record("target.report_latency_device_clock", micros: max(1, ms * 1000),
                                           atNanos: origin)
                }
            }
        }
        let gatewayStats = servers.gatewayServer.stats
        if gatewayStats.goAwaysSent > 0 {
            // GOAWAY faults: how often the gateway ended a connection, and the connections the client reopened.
            result.recorder.count("gateway.goaways_sent", by: Int64(gatewayStats.goAwaysSent), atNanos: origin)
            result.recorder.count("gateway.connections", by: Int64(gatewayStats.connectionsAccepted), atNanos: origin)
        }

        facts.durationSeconds = Date().timeIntervalSince(startedAt)
        facts.interrupted = result.interrupted && abortedBy == nil
        var notes = result.notes + distributed.notes
        notes.append(String(format: "Devices registered in the first %.1f s; calls start after that.",
                            result.loadStartSecond))
        var failures: [String] = []
        if let abortedBy {
            failures.append("aborted by abort_on_fail threshold \(abortedBy.threshold.text): measured "
                + "\(abortedBy.measuredText) at a live check; the results are partial")
            notes.append("The run was stopped early because \(abortedBy.threshold.key) failed during the run.")
        }
        let written: RunReporting.Written
        do {
            try RunReporting.save(facts, to: RunReporting.factsURL(runDirectory))
            try RunResults.joinHistory(run: runDirectory)
            if let check = try HistoryCheck.run(runDirectory) {
                // Violations become counters, so `slo: { invariant_violations: "== 0" }` can gate on them.
                let now = result.recorder.runStartNanos
                result.recorder.count("invariant_violations", by: Int64(check.report.violations.count), atNanos: now)
                for (rule, n) in check.report.countsByRule where n > 0 {
                    result.recorder.count("invariant_violations.\(rule.rawValue)", by: Int64(n), atNanos: now)
                }
                notes += check.lines
                if !check.report.violations.isEmpty {
                    failures.append("history checker: \(check.report.violations.count) violations of the " +
                                    "conversation rules (checker.json)")
                }
                if !options.quiet { check.lines.forEach { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } }
            }
            try RunReporting.save(notes, to: RunReporting.notesURL(runDirectory))
            if !scenario.faults.isEmpty {
                // Report seconds count from the run's origin; fault windows from the load's start.
                let offset = result.loadStartSecond
                let csv = driver.faultsCSV
                let injected = FaultDescription.injectedByWindow(faultsCSV: csv)
                let windows = scenario.faults.map {
                    Reports.FaultWindow(fromSecond: offset + Double($0.atNanos) / 1e9,
                                        toSecond: offset + Double($0.atNanos + $0.forNanos) / 1e9, label: $0.name,
                                        what: FaultDescription.describe($0), injected: injected[$0.name] ?? [:])
                }
                try RunReporting.save(windows, to: RunReporting.faultWindowsURL(runDirectory))
                try csv.write(to: runDirectory.appendingPathComponent("faults.csv"), atomically: true, encoding: .utf8)
            }
            _ = FileManager.default.createFile(atPath: RunReporting.finishedURL(runDirectory).path, contents: Data())
            written = try RunReporting.write(run: runDirectory, facts: facts, recorder: result.recorder,
                                             thresholds: scenario.slo, notes: notes, extraFailures: failures,
                                             historyJoined: true)
        } catch {
            throw .harness("could not write the report to \(runDirectory.path): \(error)")
        }
        if !options.quiet {
            for item in written.thresholds { FileHandle.standardError.write(Data((item.summary + "\n").utf8)) }
            if let spec = scenario.capacity {
                let line = "capacity: " + CapacityAnalysis.analyze(result.recorder, spec: spec).summary + "\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
            for line in written.books.lines { FileHandle.standardError.write(Data(("books: " + line + "\n").utf8)) }
        }
        try distributed.finish(scenario: scenario, result: result, facts: facts, runDirectory: runDirectory,
                               notes: notes)
        if !written.books.balanced {
            for problem in written.books.problems {
                FileHandle.standardError.write(Data("callstorm: accounting does not balance: \(problem)\n".utf8))
            }
            return Outcome(reportPath: written.files.html.path, runDirectory: runDirectory, exitCode: .harnessFailure,
                           result: result, verdict: written.verdict)
        }
        let code: ExitCode = abortedBy != nil ? .thresholdsFailed
            : (facts.interrupted ? .interrupted : (written.verdict.passed ? .passed : .thresholdsFailed))
        return Outcome(reportPath: written.files.html.path, runDirectory: runDirectory, exitCode: code,
                       result: result, verdict: written.verdict)
    }

    static func defaultRunDirectory(_ name: String, _ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" }
        return "Reports/\(String(safe))-\(f.string(from: date))"
    }
}

/// One line a second on stderr: elapsed, calls started, active conversations, push-to-report p99 so far.
final class ProgressLine: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(driver: LoadDriver) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "callstorm.progress"))
        timer.setEventHandler {
            let p = driver.progress
            let line = String(format: "[%6.1fs] calls started %d, active %d, done %d | push→report p99 %.1f ms\n",
                              p.elapsedSeconds, p.callsStarted, p.activeConversations, p.callsCompleted,
                              Double(p.pushToReportP99Micros) / 1000)
            FileHandle.standardError.write(Data(line.utf8))
        }
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.resume()
    }

    func stop() { timer.cancel() }
}

enum Machine {
    static func describe() -> String {
        var u = utsname()
        uname(&u)
        let sys = withUnsafeBytes(of: &u.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let rel = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let arch = withUnsafeBytes(of: &u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let info = ProcessInfo.processInfo
        let gib = Double(info.physicalMemory) / Double(1 << 30)
        return "\(info.hostName) \(sys) \(rel) \(arch), \(info.activeProcessorCount) cores, " +
            String(format: "%.0f GiB", gib)
    }
}
