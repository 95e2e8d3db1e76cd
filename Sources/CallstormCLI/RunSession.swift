import Determinism
import Dispatch
import Driver
import FaultControl
import Faults
import Foundation
import Kamailio
import Metrics
import PushGateway
import Quantities
import Reports
import Results
import Scenario

/// One `callstorm run`, in four phases: **start** (embedded servers, a child target, a Kamailio, the fault proxy,
/// the driver), **drive** (the load, with its watches and progress line), **account** (what the servers counted,
/// once they have stopped) and **report** (the history check, the report files, the exit code).
///
/// Whatever `start` brought up is stopped by `teardown`, which `run` defers: every way out, an error in any
/// phase included, stops the same things once. The success path calls it early too, after driving, because the
/// gateway's books are final only once the servers have stopped (`teardown` is idempotent).
final class RunSession {
    // Read by the report phase (RunSession+Report.swift).
    let options: RunCommand.Options
    /// As loaded, and then pointed at the Kamailio the run started, if it starts one.
    var scenario: Scenario
    /// The user's target (`--target` or `target: { url: }`); nil runs the embedded one.
    private let targetOverride: String?
    private let startedAt = Date()
    let bundle: RunBundle
    private var servers: EmbeddedServers?
    private var targetProcess: TargetProcess?
    /// `target.sip.kamailio`'s server and the reader of its log (RunSession+Kamailio.swift).
    var kamailio: LaunchedKamailio?
    /// What target fault windows kill and restart in a SIP run: that Kamailio, once it runs.
    let kamailioTarget = DeferredTarget()
    /// `target.sip.rtpengine`'s relay and the book of its counts (RunSession+Relay.swift).
    var relay: LaunchedRelay?
    private var faultController: FaultController?
    private var tornDown = false
    /// OpenTelemetry export (`OTLPRun`: `--otlp`), nil when no endpoint is set.
    var otlp: OTLPRun?

    /// What `start` made, for the later phases.
    private struct Started {
        var servers: EmbeddedServers
        var targetURL: String
        var settings: DriverSettings
        var driver: LoadDriver
        var distributed: DistributedRun
        /// As asked for (the facts say so), before the settings clamp it.
        var workers: Int
        /// Taken before the driver is made, as the harness sampler's origin.
        var runStartNanos: UInt64
    }

    /// What `drive` brought back.
    struct Driven {
        var result: LoadDriver.Result
        var facts: RunFacts
        /// The live `abort_on_fail` threshold that stopped the run early, if one did.
        var abortedBy: ThresholdResult?
        /// callstorm saturated and `harness.on_saturation: abort` stopped the run.
        var abortedBySaturation: HarnessSaturation?
    }

    /// Loads the scenario and applies the command line to it; refuses a non-loopback target or push listener
    /// before any socket is opened (a refused run sends nothing).
    init(_ options: RunCommand.Options) throws(CLIError) {
        var scenario = try ValidateCommand.loadScenario(options.file)
        if let seed = options.seed { scenario.seed = seed }
        if let d = options.durationNanos { scenario.duration = d }
        let targetOverride = options.targetURL ?? {
            if case .url(let url) = scenario.target { return url }
            return nil
        }()
        if let url = targetOverride {
            guard let host = Loopback.host(ofURL: url) else {
                throw .badValue(flag: "target", value: url, expected: "a URL with a host, like http://127.0.0.1:8080")
            }
            try Loopback.require(host, role: "target", allowed: options.allowRemote)
            if let storm = scenario.faults.first(where: { $0.target?.socketStorm != nil }) {
                throw .usage("fault window '\(storm.name)' has a socket_storm, which only the embedded target can "
                    + "carry out; --target \(url) is a server callstorm cannot tell to drop its sockets")
            }
        }
        try Loopback.require(scenario.push.listenHost, role: "push listener", allowed: options.allowRemote)
        self.options = options
        self.scenario = scenario
        self.targetOverride = targetOverride
        self.bundle = RunBundle(URL(fileURLWithPath: options.out
            ?? RunCommand.defaultRunDirectory(scenario.name, startedAt)))
    }

    /// The whole run.
    func run() throws(CLIError) -> RunCommand.Outcome {
        defer { teardown() }
        let started = try start()
        var driven = drive(started)
        account(&driven.result, servers: started.servers, driver: started.driver)
        return try report(driven, distributed: started.distributed, driver: started.driver)
    }

    /// A run kept nowhere (a `replay` repetition without `--out`): only the files its history check reads
    /// (history.jsonl, faults.csv, the scenario copy), no report and no check of its own, since the caller checks
    /// the history once and removes the directory. The report was most of a short repetition's time.
    func runForHistory() throws(CLIError) -> URL {
        defer { teardown() }
        let started = try start()
        let driven = drive(started)
        try keepHistory(driven, driver: started.driver)
        return bundle.directory
    }

    /// Stops what `start` brought up (the metrics endpoint is the distributed run's: it lingers after the report).
    private func teardown() {
        guard !tornDown else { return }
        tornDown = true
        kamailio?.stop()
        relay?.stop()
        faultController?.stop()
        targetProcess?.stop()
        servers?.stop()
    }

    /// A line on stderr, unless `--quiet`.
    func say(_ line: String) {
        if !options.quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    // MARK: - Start

    private func start() throws(CLIError) -> Started {
        let (servers, startedURL) = try startServers()
        var targetURL = startedURL
        try startKamailio(servers: servers)
        try checkSIPTrust()
        if let sip = scenario.sip, targetURL.isEmpty { targetURL = "sip:\(sip.host):\(sip.port)" }
        let workers = options.workers ?? scenario.workers ?? ProcessInfo.processInfo.activeProcessorCount
        var settings = DriverSettings(scenario: scenario, targetURL: targetURL, workers: workers)
        if let stall = ProcessInfo.processInfo.environment["CALLSTORM_STALL_PER_CALL"] {
            settings.stallPerCallNanos = (try? Quantity.duration(stall)) ?? 0
        }
        settings.networkRoutes = faultController?.routes(for: targetURL) ?? [:]
        settings.runDirectory = bundle.directory
        if let relay { settings.tracing.mediaLegs = { relay.add($0) } }
        if options.traceCalls > 0 {
            do {
                settings.trace = try TraceWriter(calls: options.traceCalls,
                                                 url: bundle.directory.appendingPathComponent("trace.jsonl"))
            } catch {
                throw .cannotWrite(what: "trace.jsonl", directory: bundle.directory.path, cause: error)
            }
        }
        options.distributed.apply(to: &settings)
        otlp = OTLPRun(flag: options.otlp, scenario: scenario, shard: options.distributed.shard.description,
                       shardIndex: options.distributed.shard.index)
        otlp?.apply(to: &settings)
        let distributed = DistributedRun(options: options.distributed)
        distributed.probeClock(targetURL: targetURL, embeddedTarget: targetOverride == nil)
        let driver: LoadDriver
        let runStartNanos = HarnessSampler.monotonicNanos()
        do {
            driver = try LoadDriver(settings: settings)
        } catch {
            throw .cannotWrite(what: "results", directory: bundle.directory.path, cause: error)
        }
        servers.sink.set(driver.pushSink)
        // Only the terminal's progress view, the metrics endpoint and OTLP read live histograms.
        driver.liveHistograms(!options.quiet || otlp != nil || options.distributed.metricsListen != nil)
        otlp?.start(driver: driver)
        try distributed.startEndpoint(driver: driver, labels: .init(
            scenario: scenario.name, seed: scenario.seed, shard: options.distributed.shard.description))
        faultController?.historyFile = bundle.faultsHistory
        faultController?.start(driver: driver)
        say("callstorm: \(scenario.name), seed \(scenario.seed), \(scenario.devices) devices, \(workers) workers, "
            + "target \(targetURL), gateway \(servers.gatewayURL)")
        return Started(servers: servers, targetURL: targetURL, settings: settings, driver: driver,
                       distributed: distributed, workers: workers, runStartNanos: runStartNanos)
    }

    /// The embedded servers, the target (embedded, a child process or the user's) and the fault proxy in front
    /// of it; returns the URL devices send to.
    private func startServers() throws(CLIError) -> (EmbeddedServers, String) {
        do {
            let scenarioDirectory = URL(fileURLWithPath: options.file).deletingLastPathComponent().path
            // SIP devices' pushes come from the SIP server, which signs its own tokens (or none is checked).
            let servers = try EmbeddedServers(push: scenario.push, scenarioDirectory: scenarioDirectory,
                                              embeddedTarget: targetOverride == nil && scenario.sip == nil)
            self.servers = servers
            var targetURL: String
            if scenario.targetProcess, targetOverride == nil {
                try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
                let child = try TargetProcess(
                    arguments: servers.childTargetArguments(directory: bundle.directory)
                        + ["--bundle-id", scenario.push.bundleID]
                        + (scenario.targetBugs.isEmpty ? [] : ["--bug", scenario.targetBugs.joined(separator: ",")])
                        + ["--push-expiration", "\(scenario.push.expirationSeconds)"]
                        + ["--push-retries", "\(scenario.push.retries)"]
                        + ["--unmerge-policy", scenario.embeddedUnmergePolicy.rawValue],
                    directory: bundle.directory)
                targetProcess = child
                try child.start()
                targetURL = child.url
            } else if targetOverride == nil, scenario.device.sip != nil, !FaultController.isNeeded(scenario) {
                // SIP devices speak only to the SIP server: no reference target runs unused beside it (its URL is
                // the SIP server's, known once Kamailio started).
                targetURL = ""
            } else {
                targetURL = try targetOverride ?? servers.startTarget(
                    bundleID: scenario.push.bundleID, bugs: scenario.targetBugs,
                    pushExpirationSeconds: scenario.push.expirationSeconds, pushRetries: scenario.push.retries,
                    unmergePolicy: scenario.embeddedUnmergePolicy)
            }
            if FaultController.isNeeded(scenario) {
                let controller = try FaultController(windows: scenario.faults, seed: scenario.seed,
                                                     upstreamURL: targetURL, target: controlledTarget(),
                                                     dropEventSockets: servers.socketStormHook)
                faultController = controller
                targetURL = controller.deviceURL(for: targetURL)
            }
            return (servers, targetURL)
        } catch {
            throw .cannotStart(what: "the embedded servers", cause: error)
        }
    }

    /// What target fault windows kill and restart: the reference target as a child process, or the run's
    /// Kamailio (set once `startKamailio` started it).
    private func controlledTarget() -> ControlledTarget? {
        if let targetProcess { return targetProcess }
        return scenario.sip?.kamailio != nil ? kamailioTarget : nil
    }

    // MARK: - Drive

    /// Runs the load until it drains or is stopped (Ctrl-C, a live threshold, the capacity knee), then stops
    /// the fault controller and merges what it and the harness sampler counted.
    private func drive(_ s: Started) -> Driven {
        let driver = s.driver
        var facts = saveFacts(s)
        let sampler = HarnessSampler(runDirectory: bundle.directory, runStartNanos: s.runStartNanos)
        let watch = LiveThresholdWatch(thresholds: scenario.slo, runDirectory: bundle.directory) {
            // Twice: end arrivals and the drain at once, as a second Ctrl-C would.
            driver.requestStop()
            driver.requestStop()
        }
        let capacityWatch = CapacityWatch(spec: scenario.capacity) {
            driver.endArrivals(note: "Arrivals ended at the capacity knee (capacity.stop); calls in flight drained.")
        }
        let saturationWatch = SaturationWatch(limit: scenario.harness, quiet: options.quiet) { saturation in
            switch saturation.limit.action {
            case .report: break  // never watched live (SaturationWatch.init)
            case .endArrivals:
                driver.endArrivals(note: "Arrivals ended when callstorm saturated (harness.on_saturation: "
                    + "end_arrivals) at second \(saturation.fromSecond); calls in flight drained.")
            case .abort:
                driver.requestStop()
                driver.requestStop()
            }
        }
        // Both read through one follower every two seconds, on the background thread.
        var checks: [CheckpointWatch.Check] = []
        if let capacityWatch { checks.append(capacityWatch.check) }
        if let saturationWatch { checks.append(saturationWatch.check) }
        let checkpointWatch = CheckpointWatch(runDirectory: bundle.directory, checks: checks)
        let signals = SignalWatch { _ in driver.requestStop() }
        let progress = options.quiet ? nil : makeProgress(driver: driver, settings: s.settings)
        driver.onLoadStart = readyCue(settings: s.settings, gatewayURL: s.servers.gatewayURL)
        var result = driver.run()
        // The relay's counts are read back before teardown stops it (every stream closed with the run).
        relay?.compare(into: &result, bundle: bundle, runStartNanos: s.runStartNanos,
                       nowNanos: HarnessSampler.monotonicNanos())
        otlp?.flush(into: &result.recorder)
        progress?.stop()
        signals.cancel()
        let abortedBy = watch?.stop()
        checkpointWatch?.stop()
        let abortedBySaturation = saturationWatch?.found.flatMap { $0.limit.action == .abort ? $0 : nil }
        if let broken = capacityWatch?.knee?.broken {
            say("callstorm: capacity limit broke at second \(broken.second); arrivals ended")
        }
        if let counted = faultController?.finish() { result.recorder.merge(counted) }
        teardown()
        if !options.quiet {
            FileHandle.standardError.write(Data(("gateway " + GatewayCommand.summary(s.servers.gateway,
                                                                                     s.servers.gatewayServer.stats)
                .replacingOccurrences(of: "\n", with: "\ngateway ")).dropLast(8).utf8))
        }
        result.recorder.merge(sampler.finish())
        facts.durationSeconds = Date().timeIntervalSince(startedAt)
        facts.interrupted = result.interrupted && abortedBy == nil && abortedBySaturation == nil
        facts.loadStartSecond = result.loadStartSecond
        return Driven(result: result, facts: facts, abortedBy: abortedBy, abortedBySaturation: abortedBySaturation)
    }

    /// The run's facts and scenario copy, saved before the first call so `callstorm report` can rebuild the
    /// report if this process is killed.
    private func saveFacts(_ s: Started) -> RunFacts {
        var facts = RunFacts(
            scenario: scenario.name, scenarioFile: options.file, seed: scenario.seed, version: Command.version,
            startedAt: startedAt, durationSeconds: 0, machine: Machine.describe(),
            workers: s.workers, devices: scenario.devices,
            target: targetOverride ?? targetDescription(s.targetURL),
            pushDeadlineMicros: Int64(scenario.push.deadlineNanos / 1000),
            shard: options.distributed.shard.isWhole ? nil : options.distributed.shard.description,
            commandLine: CommandLine.arguments.joined(separator: " "), interrupted: false)
        facts.rowSampleEvery = s.settings.rowSampleEvery
        facts.server = kamailio?.facts
        try? FileManager.default.removeItem(at: bundle.scenario)
        try? FileManager.default.copyItem(at: URL(fileURLWithPath: options.file), to: bundle.scenario)
        try? RunReporting.save(facts, to: bundle.facts)
        return facts
    }
}
