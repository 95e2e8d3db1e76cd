/// The fault log indexed for attributing calls: the kinds logged against each planned call, the faults on a device
/// but on no call (a socket drop, a clock skew) by device and time, and the faults that span part of the run for
/// everyone (a network window, a target down until its restart, a socket storm and its reconnects), and the
/// lapses of a device's SIP registration (`SIPRegistrationFaults`). A SIP datagram fault on a message of no call is
/// on no call's path and is not indexed. Kept by `FaultLog` under its lock.
struct FaultIndex {
    private struct Span {
        let window: String
        let kind: String
        let from: UInt64
        var to: UInt64
    }

    /// How long after a socket storm calls may still fail of it (every device reconnecting and resyncing at once).
    static let stormNanos: UInt64 = 5_000_000_000

    private var byCall: [Int: Set<String>] = [:]
    private var byDevice: [Int: [(at: UInt64, kind: String)]] = [:]
    private var spans: [Span] = []
    /// Registration lapses by device: from the lapse until the device registered again (`.max` while open).
    private var lapses: [Int: [Span]] = [:]

    mutating func add(_ entry: FaultLog.Entry) {
        let t = entry.sinceLoadNanos
        if entry.call >= 0 {
            byCall[entry.call, default: []].insert(entry.kind)
        } else if SIPRegistrationFaults.onNoCallsPath(kind: entry.kind, call: entry.call) {
            return
        } else if entry.kind == SIPRegistrationFaults.lapsed || entry.kind == TargetKillFault.reregistering,
                  entry.device >= 0 {
            // A device re-registering after a kill is put down to the kill, as its lapse is to a message fault.
            let kind = entry.kind == TargetKillFault.reregistering ? TargetKillFault.killed : entry.kind
            lapses[entry.device, default: []].append(Span(window: entry.window, kind: kind, from: t, to: .max))
        } else if entry.kind == SIPRegistrationFaults.restored || entry.kind == TargetKillFault.reregistered,
                  entry.device >= 0 {
            if let open = lapses[entry.device]?.lastIndex(where: { $0.to == .max }) {
                lapses[entry.device]?[open].to = t
            }
        } else if entry.device >= 0 {
            byDevice[entry.device, default: []].append((t, entry.kind))
        } else if entry.kind == NetworkPlan.switchedOn || entry.kind == TargetKillFault.killed {
            let kind = entry.kind == NetworkPlan.switchedOn ? NetworkPlan.windowKind : entry.kind
            spans.append(Span(window: entry.window, kind: kind, from: t, to: .max))
        } else if entry.kind == NetworkPlan.switchedOff || entry.kind == TargetKillFault.restarted {
            let kind = entry.kind == NetworkPlan.switchedOff ? NetworkPlan.windowKind : TargetKillFault.killed
            if let open = spans.lastIndex(where: { $0.window == entry.window && $0.kind == kind && $0.to == .max }) {
                spans[open].to = t
            }
        } else if entry.kind.hasPrefix(SocketStormFault.storm) {
            spans.append(Span(window: entry.window, kind: entry.kind, from: t, to: t + Self.stormNanos))
        }
    }

    /// The kinds of the faults on the path of planned call `call`, whose devices were `devices` (their indexes) and
    /// which ran from `from` to `to` (since the load started): those logged against the call, those on one of its
    /// devices and on no call inside that time (a SIP datagram fault on a message of no call is not one), a lapse
    /// of one of its devices' registration that overlaps it, and the spans that overlap it. Sorted.
    func kinds(call: Int, devices: [Int], from: UInt64, to: UInt64) -> [String] {
        var kinds = byCall[call] ?? []
        for device in devices {
            for row in byDevice[device] ?? [] where row.at >= from && row.at <= to { kinds.insert(row.kind) }
            for lapse in lapses[device] ?? [] where lapse.from <= to && lapse.to >= from { kinds.insert(lapse.kind) }
        }
        for span in spans where span.from <= to && span.to >= from { kinds.insert(span.kind) }
        return kinds.sorted()
    }
}
