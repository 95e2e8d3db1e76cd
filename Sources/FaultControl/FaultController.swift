import Determinism
import Dispatch
import Faults
import Foundation
import Metrics
import Scenario

/// Runs the fault windows that act outside the driver, on the load's clock: the network toxics of TCP fault
/// proxies between the devices and the target (`ProxySwitchboard`), and kills, restarts and socket storms of the
/// target (`TargetControl`). Every instant comes from the run (`FaultRunContext`, which reads the run's one
/// `Clock`), so a test drives it with a `ManualClock`, without sleeping: every move of that clock ticks it.
///
/// Thread safety: `start`, `stop` and `finish` from the run's thread; ticks on a private queue, from a repeating
/// timer (`start`), a move of the clock `attach` was given, or a test's `tick()`.
public final class FaultController: @unchecked Sendable {
    private let proxies: ProxySwitchboard
    private let targets: TargetControl
    private let queue = DispatchQueue(label: "callstorm.faults")
    private var timer: DispatchSourceTimer?
    // Owned by `queue` once the run is set.
    private var run: FaultRunContext?
    private var recorder: Recorder?
    private var ticks = 0
    /// The hand-moved clock that ticks this controller (`attach`), and its waker's token.
    private var waking: (clock: Clock, token: Int)?

    /// How often the timer ticks: windows open and close within this of their instant.
    public static let tickNanos: UInt64 = 2_000_000
    /// Proxy counters and decisions are collected every this many ticks (and once more at `finish`).
    static let collectEvery = 25

    /// Whether the scenario has windows this controller runs.
    public static func isNeeded(_ scenario: Scenario) -> Bool {
        scenario.faults.contains { $0.network != nil || $0.target != nil }
    }

    /// Starts the proxies in front of `upstreamURL` that network windows need. `dropEventSockets` is the embedded
    /// target's storm hook (validation refuses a storm on any other target).
    public init(windows: [FaultWindow], seed: UInt64, upstreamURL: String, target: ControlledTarget?,
                dropEventSockets: (@Sendable (UInt16?) -> Int)? = nil) throws(FaultControlError) {
        proxies = try ProxySwitchboard(windows: windows, seed: seed, upstreamURL: upstreamURL)
        targets = TargetControl(windows: windows, target: target, dropEventSockets: dropEventSockets)
    }

    /// Where kills are marked in the run's history; set before `start`.
    public var historyFile: URL? {
        get { targets.historyFile }
        set { targets.historyFile = newValue }
    }

    /// Window index → base URL of its own proxy, for `DriverSettings.networkRoutes`.
    public func routes(for targetURL: String) -> [Int: String] {
        proxies.routed.compactMapValues { Self.url(targetURL, port: $0.port) }
    }

    /// The URL devices use: the shared proxy's when there is one, else `targetURL` itself.
    public func deviceURL(for targetURL: String) -> String {
        guard let proxy = proxies.shared else { return targetURL }
        return Self.url(targetURL, port: proxy.port) ?? targetURL
    }

    private static func url(_ targetURL: String, port: Int) -> String? {
        guard var url = URLComponents(string: targetURL) else { return nil }
        url.host = "127.0.0.1"
        url.port = port
        return url.string
    }

    /// Begins acting on `driver`'s load clock, with a timer ticking every `tickNanos` (nothing happens during
    /// registration: the load's clock has not begun).
    public func start(driver: FaultRunContext) {
        attach(driver)
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        timer.setEventHandler { [unowned self] in onQueue() }
        timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(Self.tickNanos)), leeway: .microseconds(500))
        timer.resume()
        self.timer = timer
    }

    /// Begins acting on `run` without a timer: each move of `clock` (a `ManualClock` a test moves) ticks the
    /// controller at once, and the caller may `tick()` too (the clock a run reads flows and wakes nothing).
    public func attach(_ run: FaultRunContext, tickingOn clock: Clock? = nil) {
        queue.sync {
            self.run = run
            recorder = Recorder(runStartNanos: run.seriesStartNanos)
        }
        if let clock, let token = clock.wakeOnMove({ [weak self] in self?.tick() }) { waking = (clock, token) }
    }

    private func stopTicking() {
        timer?.cancel()
        if let waking { waking.clock.stopWaking(waking.token) }
        waking = nil
    }

    /// One tick now, on the controller's queue, then waits for the kills and restarts it began.
    public func tick() {
        queue.sync { onQueue() }
        targets.settle()
    }

    private func onQueue() {
        guard let run, let since = run.sinceLoadNanos() else { return }
        let now = run.nowNanos()
        ticks += 1
        proxies.switchToxics(since: since, run: run)
        if ticks % Self.collectEvery == 0, recorder != nil {
            proxies.collect(since: since, now: now, run: run, into: &recorder!)
        }
        guard recorder != nil else { return }
        targets.perform(since: since, now: now, run: run, recorder: &recorder!) { [weak self] name in
            guard let self else { return }
            queue.async { self.recorder?.count(name, atNanos: run.nowNanos()) }
        }
    }

    /// Stops the ticks and the proxies, and returns what the controller counted, to merge into the run's results.
    public func finish() -> Recorder? {
        stopTicking()
        queue.sync {}
        targets.settle()
        return queue.sync {
            if let run, recorder != nil {
                proxies.collect(since: run.sinceLoadNanos() ?? 0, now: run.nowNanos(), run: run, into: &recorder!)
            }
            proxies.stop()
            return recorder
        }
    }

    /// Stops what this controller started (the proxies; the child target is the run's to stop).
    public func stop() {
        stopTicking()
        proxies.stop()
    }
}
