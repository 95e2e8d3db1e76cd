import Chaos
import Dispatch
import Driver
import FaultProxy
import Foundation
import Metrics
import RunFormats
import Scenario

/// Runs the fault windows that act outside the driver, on the load's clock: the network toxics of a TCP fault
/// proxy that stands between the devices and the target (switched on and off live at each window's edges), and
/// kills and restarts of a target callstorm runs as a child process.
///
/// The proxy's per-connection decisions come from the scenario seed, the connection number and the toxic's
/// name; each toxic that acted on a connection is a row of `faults.csv` (`network.<kind>`, `conn-<n>`).
/// What to do and when comes from Chaos (`NetworkPlan`, `TargetSchedule`); this is the wiring to the proxies,
/// the child target, the driver's fault log and a recorder.
/// Thread safety: `start`, `stop` and `finish` from the run's thread; the ticks run on a private queue.
/// More than 15 stored properties: the live state of every proxy and of the child target, each touched only by the
/// tick on `queue`; the decisions themselves live in Chaos.
final class FaultController: @unchecked Sendable {
    private let windows: [FaultWindow]
    /// The proxy every device goes through, for network windows that hit every device.
    let proxy: FaultProxy?
    /// A proxy of its own for each network window that hits only some devices (`flows`, `devices`): the driver
    /// sends those devices' requests there while the window is open (`routes`).
    private(set) var routed: [Int: FaultProxy] = [:]
    private var routedStats: [Int: ProxyStats] = [:]
    private var routedDecisionsSeen: [Int: Int] = [:]
    private var routedOn: Set<Int> = []
    let target: TargetProcess?
    private let queue = DispatchQueue(label: "callstorm.faults")
    /// Kills and restarts block for a moment (waiting for the child); they must not hold up the toxic switches.
    private let targetQueue = DispatchQueue(label: "callstorm.faults.target")
    private var timer: DispatchSourceTimer?
    private var driver: LoadDriver?
    // Owned by `queue` while the ticks run.
    private var recorder: Recorder?
    private var activeNetwork: [Int] = []
    private var targetSchedule: TargetSchedule
    /// `socket_storm` windows, carried out through the in-process embedded target's hook.
    private var stormSchedule: SocketStormSchedule
    private let dropEventSockets: (@Sendable (UInt16?) -> Int)?
    private var lastStats = ProxyStats()
    private var decisionsSeen = 0
    private var ticks = 0
    /// Where the kills go into the run's history (`raw/history-wfaults.jsonl`, joined with the workers' parts),
    /// so the checker knows the target's conversations died with it.
    var historyFile: URL?

    /// Whether the scenario has windows this controller runs.
    static func isNeeded(_ scenario: Scenario) -> Bool {
        scenario.faults.contains { $0.network != nil || $0.target != nil }
    }

    /// Starts the proxy in front of `upstreamURL` when a window has network faults. `dropEventSockets` is the
    /// embedded target's storm hook (validation refuses a storm on any other target).
    init(windows: [FaultWindow], seed: UInt64, upstreamURL: String, target: TargetProcess?,
         dropEventSockets: (@Sendable (UInt16?) -> Int)? = nil) throws {
        self.windows = windows
        self.target = target
        self.targetSchedule = TargetSchedule(windows: windows)
        self.stormSchedule = SocketStormSchedule(windows: windows)
        self.dropEventSockets = dropEventSockets
        guard windows.contains(where: { $0.network != nil }) else {
            proxy = nil
            return
        }
        guard let url = URLComponents(string: upstreamURL), let host = url.host else {
            throw CLIError.usage("cannot put the fault proxy in front of '\(upstreamURL)': no host")
        }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        let upstreamHost = host == "localhost" ? "127.0.0.1" : host
        func started(_ seed: UInt64) throws -> FaultProxy {
            let proxy = FaultProxy(upstreamHost: upstreamHost, upstreamPort: port, seed: seed)
            do {
                try proxy.start()
            } catch {
                throw CLIError.harness("the fault proxy could not start: \(error)")
            }
            return proxy
        }
        proxy = windows.contains { $0.network != nil && !NetworkPlan.isRouted($0) }
            ? try started(DrawStream.networkSeed(seed)) : nil
        do {
            for (i, w) in windows.enumerated() where NetworkPlan.isRouted(w) {
                routed[i] = try started(DrawStream.routedNetworkSeed(seed, window: i))
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Window index → base URL of its own proxy, for `DriverSettings.networkRoutes`.
    func routes(for targetURL: String) -> [Int: String] {
        routed.compactMapValues { proxy in
            guard var url = URLComponents(string: targetURL) else { return nil }
            url.host = "127.0.0.1"
            url.port = proxy.port
            return url.string
        }
    }

    /// The URL devices use: the proxy's when there is one, else `targetURL` itself.
    func deviceURL(for targetURL: String) -> String {
        guard let proxy, var url = URLComponents(string: targetURL) else { return targetURL }
        url.host = "127.0.0.1"
        url.port = proxy.port
        return url.string ?? targetURL
    }

    /// Starts ticking; windows open and close on the driver's load clock (nothing happens during registration).
    func start(driver: LoadDriver) {
        self.driver = driver
        recorder = Recorder(runStartNanos: driver.seriesStartNanos)
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        timer.setEventHandler { [unowned self] in tick() }
        timer.schedule(deadline: .now(), repeating: .milliseconds(2), leeway: .microseconds(500))
        timer.resume()
        self.timer = timer
    }

    private func tick() {
        guard let driver, let since = driver.sinceLoadNanos() else { return }
        let now = driver.nowNanos()
        for (i, routedProxy) in routed {
            let open = windows[i].contains(since)
            guard open != routedOn.contains(i) else { continue }
            if open { routedOn.insert(i) } else { routedOn.remove(i) }
            let kind = open ? NetworkPlan.switchedOn : NetworkPlan.switchedOff
            driver.logFault(sinceLoadNanos: since, window: windows[i].name, kind: kind, subject: "proxy-w\(i)")
            do {
                try routedProxy.setToxics(open ? NetworkPlan.toxics(of: windows[i], index: i) : [])
            } catch {
                FileHandle.standardError.write(Data("callstorm: fault proxy refused the toxics: \(error)\n".utf8))
            }
        }
        ticks += 1
        if !routed.isEmpty, ticks % 25 == 0 { collectRouted(since: since, now: now) }
        if let proxy {
            let active = NetworkPlan.openShared(windows, at: since)
            if active != activeNetwork {
                for i in Set(active).subtracting(activeNetwork).sorted() {
                    driver.logFault(sinceLoadNanos: since, window: windows[i].name, kind: NetworkPlan.switchedOn,
                                    subject: "proxy")
                }
                for i in Set(activeNetwork).subtracting(active).sorted() {
                    driver.logFault(sinceLoadNanos: since, window: windows[i].name, kind: NetworkPlan.switchedOff,
                                    subject: "proxy")
                }
                activeNetwork = active
                do {
                    try proxy.setToxics(active.flatMap { NetworkPlan.toxics(of: windows[$0], index: $0) })
                } catch {
                    // Validation let every value through the registry's ranges; say so if one slipped by.
                    FileHandle.standardError.write(Data("callstorm: fault proxy refused the toxics: \(error)\n".utf8))
                }
            }
            if ticks % 25 == 0 { collect(proxy, since: since, now: now) }
        }
        for i in stormSchedule.due(at: since) { storm(window: i, since: since, now: now, driver: driver) }
        if let target {
            for step in targetSchedule.due(at: since) {
                switch step {
                case .kill(let i): kill(target, window: i, since: since, now: now, driver: driver)
                case .restart(let i): restart(target, window: i, since: since, driver: driver)
                }
            }
        }
    }

    /// Kills the child target for window `i`'s fault, and marks the kill in the run's history.
    private func kill(_ target: TargetProcess, window i: Int, since: UInt64, now: UInt64, driver: LoadDriver) {
        guard let fault = targetSchedule.faults[i] else { return }
        let pid = target.pid ?? 0
        // The history's mark comes once the child is reaped, plus a moment for what it sent before dying (a push
        // in the gateway, an answer on the wire) to land, but never after the restart: the checker ends every
        // conversation live at the mark. Stamped when decided, a push the target sent just before its death
        // landed after the mark and revived its conversation (seen 1 run in 10).
        let restartMono = now + (fault.restartAtNanos > since ? fault.restartAtNanos - since : 0)
        let origin = driver.seriesStartNanos
        targetQueue.async { [historyFile] in
            target.kill(signal: fault.signal)
            let mark = min(driver.nowNanos() + 50_000_000, max(restartMono, now))
            if let historyFile {
                var line: [UInt8] = []
                HistoryText.targetKilled(t: mark &- origin, into: &line)
                line.append(10)
                Self.append(line, to: historyFile)
            }
        }
        recorder?.count(MetricName.fault(TargetKillFault.killed), atNanos: now)
        driver.logFault(sinceLoadNanos: since, window: windows[i].name, kind: TargetKillFault.killed,
                        subject: "pid-\(pid)")
    }

    /// Has the embedded target end every event socket for window `i`'s storm; counts the sockets it ended
    /// (`socket.storm_dropped`, which the books set apart as callstorm's doing).
    private func storm(window i: Int, since: UInt64, now: UInt64, driver: LoadDriver) {
        guard let fault = stormSchedule.storms[i], let dropEventSockets else { return }
        // Logged first: a worker attributes a socket that ends after this mark, and began before it, to the storm.
        driver.logFault(sinceLoadNanos: since, window: windows[i].name, kind: fault.kind, subject: "target")
        let ended = dropEventSockets(fault.code)
        recorder?.count(MetricName.fault(fault.kind), atNanos: now)
        recorder?.count(SocketStormFault.socketsCounter, by: Int64(ended), atNanos: now)
    }

    /// Starts the child target again after window `i`'s kill.
    private func restart(_ target: TargetProcess, window i: Int, since: UInt64, driver: LoadDriver) {
        let name = windows[i].name
        targetQueue.async { [self] in
            do {
                try target.start()
                let at = driver.sinceLoadNanos() ?? since
                driver.logFault(sinceLoadNanos: at, window: name, kind: TargetKillFault.restarted,
                                subject: "pid-\(target.pid ?? 0)")
                queue.async {
                    self.recorder?.count(MetricName.fault(TargetKillFault.restarted), atNanos: driver.nowNanos())
                }
            } catch {
                queue.async {
                    self.recorder?.count(MetricName.fault(TargetKillFault.restartFailed), atNanos: driver.nowNanos())
                }
                FileHandle.standardError.write(Data("callstorm: \(error)\n".utf8))
            }
        }
    }

    private static func append(_ line: [UInt8], to file: URL) {
        if !FileManager.default.fileExists(atPath: file.path) {
            FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        guard let handle = try? FileHandle(forWritingTo: file) else { return }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line))
        try? handle.close()
    }

    /// What a proxy's counters grew by since `last`, added to the run's per-second counters.
    private func countGrowth(from last: ProxyStats, to stats: ProxyStats, now: UInt64) {
        for (name, by) in NetworkPlan.counterGrowth(from: last, to: stats) {
            recorder?.count(name, by: by, atNanos: now)
        }
    }

    /// Proxy counters since the last look, as per-second counters; toxics that acted, as fault-log rows.
    private func collect(_ proxy: FaultProxy, since: UInt64, now: UInt64) {
        let stats = proxy.stats
        countGrowth(from: lastStats, to: stats, now: now)
        if stats.toxics != lastStats.toxics || stats.connectionsAccepted != lastStats.connectionsAccepted {
            let decisions = proxy.decisionLog
            for d in decisions.dropFirst(decisionsSeen) where d.applied {
                let (index, kind) = NetworkPlan.parse(toxicName: d.toxic)
                let window = windows.indices.contains(index) ? windows[index].name : ""
                driver?.logFault(sinceLoadNanos: since, window: window, kind: NetworkPlan.faultKind(toxicKind: kind),
                                 subject: "conn-\(d.connection)", seq: d.connection)
            }
            decisionsSeen = decisions.count
        }
        lastStats = stats
    }

    /// The routed proxies' counters and decisions, like `collect`; their connections are `w<i>-conn-<n>`.
    private func collectRouted(since: UInt64, now: UInt64) {
        for (i, proxy) in routed {
            let stats = proxy.stats
            countGrowth(from: routedStats[i] ?? ProxyStats(), to: stats, now: now)
            let decisions = proxy.decisionLog
            for d in decisions.dropFirst(routedDecisionsSeen[i] ?? 0) where d.applied {
                let kind = NetworkPlan.faultKind(toxicKind: NetworkPlan.parse(toxicName: d.toxic).kind)
                driver?.logFault(sinceLoadNanos: since, window: windows[i].name, kind: kind,
                                 subject: "w\(i)-conn-\(d.connection)", seq: d.connection)
            }
            routedDecisionsSeen[i] = decisions.count
            routedStats[i] = stats
        }
    }

    /// Stops the ticks and the proxy, and returns what the controller counted, to merge into the run's results.
    func finish() -> Recorder? {
        timer?.cancel()
        queue.sync {}
        targetQueue.sync {}
        if let driver {
            queue.sync {
                if let proxy { collect(proxy, since: driver.sinceLoadNanos() ?? 0, now: driver.nowNanos()) }
                collectRouted(since: driver.sinceLoadNanos() ?? 0, now: driver.nowNanos())
            }
        }
        proxy?.stop()
        routed.values.forEach { $0.stop() }
        return recorder
    }

    /// Stops what this controller started (the proxy; the child target is the run's to stop).
    func stop() {
        timer?.cancel()
        proxy?.stop()
        routed.values.forEach { $0.stop() }
    }
}
