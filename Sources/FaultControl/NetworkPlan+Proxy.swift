import FaultProxy
import Faults
import Metrics

/// The network plan on a real proxy: the toxics a window asks for as FaultProxy's specs, and the proxy's counters
/// as the run's. Faults decides what goes on a proxy (`ToxicPlan`); only this side links the proxy.
extension NetworkPlan {
    /// The toxics window `index` puts on its proxy (`toxics(of:index:)`, as the proxy takes them).
    public static func toxicSpecs(of window: FaultWindow, index: Int) -> [ToxicSpec] {
        toxics(of: window, index: index).map(ToxicSpec.init)
    }

    /// What a proxy's counters grew by from `last` to `stats`, as (counter, increase), for the run's counters.
    public static func counterGrowth(from last: ProxyStats, to stats: ProxyStats) -> [(name: String, by: Int64)] {
        var out: [(String, Int64)] = []
        func delta(_ name: String, _ new: Int, _ old: Int) {
            if new > old { out.append((name, Int64(new - old))) }
        }
        delta(MetricName.networkConnections, stats.connectionsAccepted, last.connectionsAccepted)
        delta(MetricName.networkUpstreamConnectFailures, stats.upstreamConnectFailures, last.upstreamConnectFailures)
        delta(MetricName.networkResets, stats.resets, last.resets)
        delta(MetricName.networkToxicCloses, stats.toxicCloses, last.toxicCloses)
        for (name, t) in stats.toxics {
            delta(MetricName.networkToxicConnections(parse(toxicName: name).kind), t.connectionsSelected,
                  last.toxics[name]?.connectionsSelected ?? 0)
        }
        return out
    }
}

extension ToxicSpec {
    /// The proxy's spec of a planned toxic: the same name, kind, direction, toxicity, ramp and attributes.
    public init(_ plan: ToxicPlan) {
        self.init(name: plan.name, kind: plan.kind, direction: ToxicDirection(plan.direction),
                  toxicity: plan.toxicity, attributes: plan.attributes)
        rampNanos = plan.rampNanos
    }
}

extension ToxicDirection {
    /// The proxy's direction of a planned toxic's (the two enums have the same cases).
    public init(_ direction: ToxicPlan.Direction) {
        switch direction {
        case .upstream: self = .upstream
        case .downstream: self = .downstream
        case .both: self = .both
        }
    }
}
