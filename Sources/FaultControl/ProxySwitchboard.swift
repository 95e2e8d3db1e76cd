import FaultProxy
import Faults
import Foundation
import Metrics

/// The network windows on their TCP fault proxies: the shared proxy every device goes through, and a proxy of its
/// own for each window that hits only some devices (`flows`, `devices`; the driver routes those devices' requests
/// there, see `routes`). Toxics go on and off as the load's clock passes the windows' edges (`network.on`/`off`
/// rows of faults.csv); each toxic that acted on a connection becomes a row (`network.<kind>`, `conn-<n>`).
///
/// Ownership rule: used only on the fault controller's queue.
final class ProxySwitchboard {
    private let windows: [FaultWindow]
    /// The proxy every device goes through, for network windows that hit every device.
    let shared: FaultProxy?
    let routed: [Int: FaultProxy]
    private var routedStats: [Int: ProxyStats] = [:]
    private var routedDecisionsSeen: [Int: Int] = [:]
    private var routedOn: Set<Int> = []
    private var activeShared: [Int] = []
    private var lastStats = ProxyStats()
    private var decisionsSeen = 0

    /// Starts the proxies in front of `upstreamURL` that the windows need (none without a network window).
    init(windows: [FaultWindow], seed: UInt64, upstreamURL: String) throws(FaultControlError) {
        self.windows = windows
        guard windows.contains(where: { $0.network != nil }) else {
            shared = nil
            routed = [:]
            return
        }
        guard let url = URLComponents(string: upstreamURL), let host = url.host else {
            throw .noHost(url: upstreamURL)
        }
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        let upstreamHost = host == "localhost" ? "127.0.0.1" : host
        var started: [FaultProxy] = []
        func start(_ seed: UInt64) throws(FaultControlError) -> FaultProxy {
            let proxy = FaultProxy(upstreamHost: upstreamHost, upstreamPort: port, seed: seed)
            do {
                try proxy.start()
            } catch {
                started.forEach { $0.stop() }
                throw .proxyFailed("\(error)")
            }
            started.append(proxy)
            return proxy
        }
        shared = windows.contains { $0.network != nil && !NetworkPlan.isRouted($0) }
            ? try start(DrawStream.networkSeed(seed)) : nil
        var routed: [Int: FaultProxy] = [:]
        for (i, w) in windows.enumerated() where NetworkPlan.isRouted(w) {
            routed[i] = try start(DrawStream.routedNetworkSeed(seed, window: i))
        }
        self.routed = routed
    }

    /// Switches toxics on or off where a window's edge has passed, logging each switch.
    func switchToxics(since: UInt64, run: FaultRunContext) {
        for (i, proxy) in routed.sorted(by: { $0.key < $1.key }) {
            let open = windows[i].contains(since)
            guard open != routedOn.contains(i) else { continue }
            if open { routedOn.insert(i) } else { routedOn.remove(i) }
            let kind = open ? NetworkPlan.switchedOn : NetworkPlan.switchedOff
            run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: kind, subject: "proxy-w\(i)", seq: 0)
            set(proxy, open ? NetworkPlan.toxicSpecs(of: windows[i], index: i) : [])
        }
        guard let shared else { return }
        let active = NetworkPlan.openShared(windows, at: since)
        guard active != activeShared else { return }
        for i in Set(active).subtracting(activeShared).sorted() {
            run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: NetworkPlan.switchedOn,
                         subject: "proxy", seq: 0)
        }
        for i in Set(activeShared).subtracting(active).sorted() {
            run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: NetworkPlan.switchedOff,
                         subject: "proxy", seq: 0)
        }
        activeShared = active
        set(shared, active.flatMap { NetworkPlan.toxicSpecs(of: windows[$0], index: $0) })
    }

    /// Validation let every value through the registry's ranges; say so if one slipped by.
    private func set(_ proxy: FaultProxy, _ toxics: [ToxicSpec]) {
        do {
            try proxy.setToxics(toxics)
        } catch {
            FileHandle.standardError.write(Data("callstorm: fault proxy refused the toxics: \(error)\n".utf8))
        }
    }

    /// The proxies' counters since the last look, as per-second counters; toxics that acted, as fault-log rows
    /// (the routed proxies' connections are `w<i>-conn-<n>`).
    func collect(since: UInt64, now: UInt64, run: FaultRunContext, into recorder: inout Recorder) {
        if let shared {
            let stats = shared.stats
            count(from: lastStats, to: stats, now: now, into: &recorder)
            if stats.toxics != lastStats.toxics || stats.connectionsAccepted != lastStats.connectionsAccepted {
                let decisions = shared.decisionLog
                for d in decisions.dropFirst(decisionsSeen) where d.applied {
                    let (index, kind) = NetworkPlan.parse(toxicName: d.toxic)
                    let window = windows.indices.contains(index) ? windows[index].name : ""
                    run.logFault(sinceLoadNanos: since, window: window, kind: NetworkPlan.faultKind(toxicKind: kind),
                                 subject: "conn-\(d.connection)", seq: d.connection)
                }
                decisionsSeen = decisions.count
            }
            lastStats = stats
        }
        for (i, proxy) in routed.sorted(by: { $0.key < $1.key }) {
            let stats = proxy.stats
            count(from: routedStats[i] ?? ProxyStats(), to: stats, now: now, into: &recorder)
            let decisions = proxy.decisionLog
            for d in decisions.dropFirst(routedDecisionsSeen[i] ?? 0) where d.applied {
                let kind = NetworkPlan.faultKind(toxicKind: NetworkPlan.parse(toxicName: d.toxic).kind)
                run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: kind,
                             subject: "w\(i)-conn-\(d.connection)", seq: d.connection)
            }
            routedDecisionsSeen[i] = decisions.count
            routedStats[i] = stats
        }
    }

    private func count(from last: ProxyStats, to stats: ProxyStats, now: UInt64, into recorder: inout Recorder) {
        for (name, by) in NetworkPlan.counterGrowth(from: last, to: stats) {
            recorder.count(Metric(named: name), by: by, atNanos: now)
        }
    }

    func stop() {
        shared?.stop()
        routed.values.forEach { $0.stop() }
    }
}
