import Faults
import Determinism
@testable import Driver
import Foundation
import MediaIO
import Metrics
import PushModel
import Scenario
import SIPClient
import SIPEmbedded
import XCTest

/// A real `Worker` whose devices speak SIP, on an `EmbeddedLoop` under the manual clock, against the SIP embedded
/// twin: its agents in a `MemorySIPPool`, the `SIPTwinProxy` standing where Kamailio stands in the end-to-end
/// tests (Tests/CallstormCLITests/SIP*RunTests.swift), pushing through the real push sink (`DevicePushSink`, as
/// callstorm's gateway hands it each push). No socket, no Kamailio, no thread, no sleep: the tests read what the
/// worker shows (its counters, histograms, history lines), not how its SIP part keeps them.
final class SIPRig {
    let clock = ManualClock()
    let loop: EmbeddedLoop
    let network: SIPNetwork
    let proxy: SIPTwinProxy
    /// The media wire the calls' RTP travels (`MemoryMediaStreams`), when the scenario has `media:`.
    let mediaWire: MediaWire?
    let worker: Worker
    let sink: DevicePushSink
    let loadClock = LoadClock()
    let settings: DriverSettings
    /// The faults the run injected, as faults.csv lists them.
    let faultLog = FaultLog()
    /// Where the run's files go when the rig keeps a history.
    let directory: URL?
    private var recorder: Recorder?

    static let second: UInt64 = 1_000_000_000

    /// `pushTimeout`: the push route's PUSH_TIMEOUT (nil: no push route, as Kamailio without WITH_PUSH);
    /// `reusePorts`: a sleeping device's old port goes to the next socket opened (the stale-contact race);
    /// `history`: the worker writes its history to a temporary run directory; `configure`: what a test sets on
    /// the settings besides the scenario (OpenTelemetry's span buffers).
    /// `fork`: the twin's forking routes (WITH_FORK): several bindings per address of record, a device woken after
    /// its call ended told so unless `lateTold` is false (WITH_FORK_NO_LATE).
    init(_ yaml: String, pushTimeout: UInt64? = 10 * SIPRig.second, reusePorts: Bool = false,
         history: Bool = false, fork: Bool = false, lateTold: Bool = true,
         configure: (inout DriverSettings) -> Void = { _ in }) throws {
        loop = EmbeddedLoop(clock: clock)
        network = SIPNetwork(clock: clock)
        network.reusesPorts = reusePorts
        let scenario = try ScenarioLoader.parse(yaml, file: "sip-embedded.yaml").get()
        var settings = DriverSettings(scenario: scenario, targetURL: "http://target.embedded", workers: 1)
        directory = history ? FileManager.default.temporaryDirectory
            .appendingPathComponent("sip-rig-\(UUID().uuidString)") : nil
        if let directory {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("raw"),
                                                    withIntermediateDirectories: true)
            settings.runDirectory = directory
        }
        configure(&settings)
        self.settings = settings
        let gateway = Gateway()
        let sip = try XCTUnwrap(scenario.sip, "the scenario has target.sip")
        proxy = SIPTwinProxy(network: network, configuration: .init(
            port: sip.port, push: pushTimeout.map { .init(timeoutNanos: $0) { gateway.accept($0) } }, fork: fork,
            forkTellsLateWake: lateTold))
        loop.sipNetwork = network
        mediaWire = scenario.media == nil ? nil : MediaWire(clock: clock)
        loop.mediaWire = mediaWire
        let deviceCalls = DeviceCalls(devices: settings.devices)
        worker = try Worker(index: 0, settings: settings, loop: loop, deviceIndexes: settings.deviceIndexes(worker: 0),
                            runStartNanos: clock.nowNanos(), faultLog: faultLog, deviceCalls: deviceCalls)
        sink = DevicePushSink(workers: [worker], settings: settings,
                              schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                              loadClock: loadClock, clock: clock, faultLog: faultLog, deviceCalls: deviceCalls)
        gateway.sink = sink
        self.gateway = gateway
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The push gateway's hand-over: set once the sink exists. A push `hold` picks waits in `held` until
    /// `releasePushes` (how a test orders a push after the INVITE it is for).
    final class Gateway {
        var sink: DevicePushSink?
        var hold: ((APNsPush) -> Bool)?
        private(set) var held: [APNsPush] = []

        func accept(_ push: APNsPush) {
            if let hold, hold(push) { return held.append(push) }
            _ = sink?.accept(push)
        }

        /// Hands every held push to the sink now, in the order they came; returns how many.
        @discardableResult
        func releasePushes() -> Int {
            let now = held
            held = []
            for push in now { _ = sink?.accept(push) }
            return now.count
        }
    }

    /// Where the twin proxy's pushes go (hold them with `gateway.hold`).
    private(set) var gateway: Gateway!

    /// Registers every device (over SIP, through the twin's digest challenge).
    func registerAll(file: StaticString = #filePath, line: UInt = #line) {
        let registered = EmbeddedWorkerTests.Box(false)
        worker.registerAll(concurrency: 4) { registered.value = true }
        XCTAssertTrue(loop.run(until: clock.nowNanos() + 10 * Self.second) { registered.value }, "registered",
                      file: file, line: line)
    }

    /// Registers, runs the load to its end and the calls to completion within `limit`, and ends the worker.
    @discardableResult
    func run(limit: UInt64 = 120 * SIPRig.second, file: StaticString = #filePath, line: UInt = #line) -> Recorder {
        registerAll(file: file, line: line)
        start()
        let drained = drainedBox
        XCTAssertTrue(loop.run(until: clock.nowNanos() + limit) { drained.value }, "the calls drained",
                      file: file, line: line)
        return finish()
    }

    private let drainedBox = EmbeddedWorkerTests.Box(false)
    var drained: Bool { drainedBox.value }

    /// Starts the load now.
    func start() {
        let start = clock.nowNanos()
        loadClock.start.store(start, ordering: .relaxed)
        let drained = drainedBox
        worker.start(loadStartNanos: start) { drained.value = true }
    }

    /// Ends the worker (once) and returns its recorder.
    func finish() -> Recorder {
        if let recorder { return recorder }
        let done = worker.finish()
        recorder = done
        return done
    }

    /// The worker's history lines of `type` (`"dialog"`, `"sip"`, …), once it finished.
    func history(_ type: String) throws -> [String] {
        let directory = try XCTUnwrap(directory, "the rig keeps no history")
        let raw = directory.appendingPathComponent("raw")
        let files = try FileManager.default.contentsOfDirectory(at: raw, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix("history-w") }
        let text = try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        return text.split(separator: "\n").map(String.init).filter { $0.contains("\"type\":\"\(type)\"") }
    }

    /// A scenario of sleeping (or awake) SIP devices, `incoming-1to1` unless `mix` says otherwise, with `extra`
    /// lines appended (faults, flows).
    static func scenario(devices: Int = 4, rate: String = "1/s", seconds: Int = 2, sleep: Bool = true,
                         transport: String = "udp", answerAfter: String = "{ constant: 50ms }",
                         mix: String = "{ incoming-1to1: 100 }", actionTimeout: String = "5s",
                         extra: String = "") -> String {
        """
        name: sip-embedded
        seed: 26
        devices: \(devices)
        workers: 1
        target: { sip: { registrar: "127.0.0.1:5060" } }
        push: { listen: "127.0.0.1:2197", tls: false, deadline: 2s }
        device: { signaling: sip, sleep: \(sleep), transport: \(transport) }
        load: [ { hold: { rate: \(rate), for: \(seconds)s } } ]
        mix: \(mix)
        behavior:
          answer_after: \(answerAfter)
          talk: { constant: 200ms }
          hangup: random
        drain: 15s
        action_timeout: \(actionTimeout)

        """ + extra
    }
}
