import Faults
import Determinism
import Dispatch
import Foundation
import Metrics
import PushModel
import Scenario
import Locking
import struct Synchronization.Atomic

/// Runs a plan: registers every device, starts the open-model arrivals on all workers at one instant, waits for
/// the arrivals to end and the calls in flight to drain (bounded by the scenario's drain time), and returns the
/// merged measurements. A stop request ends arrivals early; a second one ends the drain too.
public final class LoadDriver: @unchecked Sendable {
    /// What the progress line shows, read from atomics without stopping any worker.
    public struct Progress: Sendable {
        public var elapsedSeconds: Double
        public var callsStarted: Int
        public var activeConversations: Int
        public var callsCompleted: Int
        public var pushToReportP99Micros: Int
    }

    public struct Result: Sendable {
        public var recorder: Recorder
        public var registeredDevices: Int
        /// Second (since the run's origin) at which the load began; registration comes before it.
        public var loadStartSecond: Double
        public var interrupted: Bool
        public var drainedCleanly: Bool
        public var notes: [String]
        /// Unix second at which second 0 of the recorder's series begins (series seconds are wall-clock
        /// seconds), so `callstorm merge` can align shards by wall-clock second.
        public var originUnixSeconds: Int64
    }

    public let settings: DriverSettings
    private let clock: Clock
    private let workers: [Worker]
    private let runStart: UInt64
    private let originUnixSeconds: Int64
    private let stopRequests = Atomic<Int>(0)
    private let wakeup = DispatchSemaphore(value: 0)
    private let state = Mutex<(loadStart: UInt64, drained: Int, arrivalEndNote: String?)>((0, 0, nil))

    /// Throws when the run directory cannot be written.
    public init(settings: DriverSettings, clock: Clock = MonotonicClock()) throws {
        self.settings = settings
        self.clock = clock
        let origin = SeriesOrigin(clock: clock)
        let start = origin.monotonicNanos
        self.runStart = start
        self.originUnixSeconds = origin.unixSeconds
        let faultLog = FaultLog()
        let loadClock = LoadClock()
        let deviceCalls = DeviceCalls(devices: settings.devices)
        self.faultLog = faultLog
        self.loadClock = loadClock
        let workers = try (0..<settings.workers).map { i in
            try Worker(index: i, settings: settings, clock: clock, deviceIndexes: settings.deviceIndexes(worker: i),
                   runStartNanos: start, faultLog: faultLog, deviceCalls: deviceCalls)
        }
        self.workers = workers
        self.sink = DevicePushSink(workers: workers, settings: settings,
                                   schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                                   loadClock: loadClock, clock: clock, faultLog: faultLog, deviceCalls: deviceCalls)
    }

    var workersForSnapshot: [Worker] { workers }

    /// Called once, on the thread running `run()`, when registration is over and the load starts, with the number
    /// of devices registered (the CLI tells the user that outside parties may call now). Set before `run()`.
    public var onLoadStart: (@Sendable (_ registered: Int) -> Void)?

    /// Routes gateway pushes to the worker that owns the token's device.
    public var pushSink: PushSink { sink }
    private let sink: DevicePushSink
    /// Every fault injected in this run (`faults.csv`).
    let faultLog: FaultLog
    let loadClock: LoadClock

    /// Every fault injected, one row each (`faults.csv`): time since the load began, window, kind, device, push
    /// number. The same seed gives the same rows.
    public var faultsCSV: String { faultLog.csv() }

    /// Nanoseconds since the load began, once it has (nil during registration): the clock fault windows run on.
    /// Safe from any thread.
    public func sinceLoadNanos() -> UInt64? {
        let start = loadClock.start.load(ordering: .relaxed)
        let now = clock.nowNanos()
        return start > 0 && now >= start ? now - start : nil
    }

    /// The driver's monotonic clock and the origin of its per-second series, for recorders made outside the
    /// driver that are merged into its result.
    public func nowNanos() -> UInt64 { clock.nowNanos() }
    public var seriesStartNanos: UInt64 { runStart }

    /// Adds a fault injected outside the driver (network toxics, target kills) to `faults.csv`.
    /// `subject` names what it hit (`conn-12`, `target`). Safe from any thread.
    public func logFault(sinceLoadNanos: UInt64, window: String, kind: String, subject: String, seq: UInt64 = 0) {
        faultLog.add(.init(sinceLoadNanos: sinceLoadNanos, window: window, kind: kind, device: -1, seq: seq,
                           subject: subject))
    }

    /// Asks the run to stop: the first call ends arrivals and drains, the second ends the drain at once.
    /// Safe from any thread (a signal handler's queue).
    public func requestStop() {
        stopRequests.add(1, ordering: .relaxed)
        wakeup.signal()
    }

    /// Ends arrivals and drains the calls in flight, like a first signal, but as a planned end of the run (not
    /// an interruption): the capacity watch calls it at the knee. `note` goes into the run's notes.
    public func endArrivals(note: String) {
        state.withLock { $0.arrivalEndNote = note }
        wakeup.signal()
    }

    /// Book-keeping counters for pushes the gateway handed over after the workers finished (they are
    /// undelivered at stop). Call after the gateway has stopped: it waits for every worker queue to run what the
    /// sink queued, so nothing accepted is left uncounted.
    public func lateCounters() -> [String: Int64] {
        var all: [String: Int64] = [:]
        for worker in workers {
            worker.loop.waitUntilStopped()  // what the sink posted runs on the event thread, then it ends
            worker.loop.sync {}
            all.merge(worker.books.lateCounts.withLock { $0 }, uniquingKeysWith: +)
        }
        return all
    }

    public var progress: Progress {
        let loadStart = state.withLock { $0.loadStart }
        let now = clock.nowNanos()
        return Progress(
            elapsedSeconds: loadStart == 0 || now < loadStart ? 0 : Double(now - loadStart) / 1e9,
            callsStarted: workers.reduce(0) { $0 + $1.live.started.load(ordering: .relaxed) },
            activeConversations: workers.reduce(0) { $0 + $1.live.active.load(ordering: .relaxed) },
            callsCompleted: workers.reduce(0) { $0 + $1.live.completed.load(ordering: .relaxed) },
            pushToReportP99Micros: workers.map { $0.live.p99Micros.load(ordering: .relaxed) }.max() ?? 0)
    }

    /// Runs to the end; blocks the calling thread (never call it on a worker queue).
    public func run() -> Result {
        var notes: [String] = []
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            worker.registerAll(concurrency: settings.registrationConcurrency) { group.leave() }
        }
        while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if stopRequests.load(ordering: .relaxed) > 0 { break }
        }
        let (loadStart, startNote) = SeriesOrigin.loadStart(clock: clock, startAt: settings.startAt)
        if let startNote { notes.append(startNote) }
        state.withLock { $0.loadStart = loadStart }
        loadClock.start.store(loadStart, ordering: .relaxed)
        let interruptedEarly = stopRequests.load(ordering: .relaxed) > 0
        if interruptedEarly {
            notes.append("Stopped by a signal during device registration; no calls were started.")
        } else {
            announceLoadStart()
            for worker in workers {
                worker.start(loadStartNanos: loadStart) { [self] in
                    state.withLock { $0.drained += 1 }
                    wakeup.signal()
                }
            }
        }
        var deadline = loadStart + settings.plan.totalNanos + settings.drainNanos
        var drainedCleanly = false
        var arrivalsStopped = false
        while !interruptedEarly {
            if state.withLock({ $0.drained }) == workers.count {
                drainedCleanly = true
                break
            }
            let stops = stopRequests.load(ordering: .relaxed)
            let now = clock.nowNanos()
            if stops >= 2 {
                notes.append("Stopped at once by a second signal; calls in flight are counted as in flight at stop.")
                break
            }
            if stops == 1, !arrivalsStopped {
                arrivalsStopped = true
                workers.forEach { $0.stopArrivals() }
                deadline = min(deadline, now + settings.drainNanos)
                notes.append("Stopped early by a signal; arrivals ended, calls in flight were given the drain time.")
            }
            if !arrivalsStopped, let note = state.withLock({ $0.arrivalEndNote }) {
                arrivalsStopped = true
                workers.forEach { $0.stopArrivals() }
                deadline = min(deadline, now + settings.drainNanos)
                notes.append(note)
            }
            if now >= deadline {
                notes.append("Drain time ran out with calls still in flight; they are counted as in flight at stop.")
                break
            }
            _ = wakeup.wait(timeout: .now() + .milliseconds(100))
        }
        var merged = Recorder(runStartNanos: runStart)
        for worker in workers {
            merged.merge(worker.finish())
            // Merged: the worker's own copy (a dense histogram per metric, ~13 MB for the SIP hold call) would
            // stay beside the merged one through the check and the report, the run's peak.
            notes += worker.loop.sync { worker.books.handedOver() }
        }
        if let note = noOutsideCallNote(merged) { notes.append(note) }
        let registered = Int(merged.counters["devices.registered"] ?? 0)
        let owned = settings.shard.deviceCount(of: settings.devices)
        if registered < owned {
            notes.append("\(owned - registered) of \(owned) devices failed to register.")
        }
        return Result(recorder: merged, registeredDevices: registered,
                      loadStartSecond: Double(loadStart &- runStart) / 1e9,
                      interrupted: stopRequests.load(ordering: .relaxed) > 0,
                      drainedCleanly: drainedCleanly, notes: notes, originUnixSeconds: originUnixSeconds)
    }
}

extension LoadDriver {
    /// Tells `onLoadStart` how many devices registered (read on each worker's loop).
    fileprivate func announceLoadStart() {
        guard let onLoadStart else { return }
        onLoadStart(workersForSnapshot.reduce(0) { sum, worker in
            sum + worker.loop.sync { Int(worker.books.recorder.counters[MetricName.devicesRegistered] ?? 0) }
        })
    }

    /// The run's note when its devices waited for outside parties' calls and took none.
    fileprivate func noOutsideCallNote(_ merged: Recorder) -> String? {
        guard settings.scenario.expectsOutsideCalls, merged.counters[MetricName.callsStartedByOutside] == nil else {
            return nil
        }
        return "No outside party placed a call the devices took while they waited for one (flows started by "
            + "outside parties: " + settings.flows.filter(\.startsOutside).map(\.name).joined(separator: ", ") + ")."
    }
}

/// When the load began, for the push sink's fault windows (0 until then: no faults during registration).
final class LoadClock: Sendable {
    let start = Atomic<UInt64>(0)
}
