/// A fault callstorm injected, as the checker needs it: what it was, whose path it sat on, and when.
public struct InjectedFault: Sendable, Equatable, Codable {
    /// Where on a finding's path the fault sits.
    public enum Family: String, Sendable, Codable {
        /// Between the server and a device's view (push path, the device itself): it can bend what a device
        /// believes, never what the server answered.
        case device
        /// Between devices and the server (network toxics): a request may be delayed or lost with its answer. The
        /// checker already accepts both outcomes of an op whose answer was lost, so a network fault never excuses
        /// what the server itself answered; it can leave a device's view behind.
        case network
        /// The server itself was killed: what it held in memory is gone, so any rule may break across it.
        case target
    }

    /// The counter name of the fault, e.g. `push.error_503`, `device.offline_push_lost`, `network.reset`.
    public var kind: String
    public var window: String
    public var family: Family
    /// The device it hit (`dev-<n>`), nil for faults on no one device (network windows, target kills).
    public var device: String?
    /// The planned call whose push or action it hit, when known.
    public var call: Int?
    /// Nanoseconds since the run's origin (the history's `t` clock).
    public var fromNanos: UInt64
    public var toNanos: UInt64

    public init(kind: String, window: String, family: Family, device: String? = nil, call: Int? = nil,
                fromNanos: UInt64, toNanos: UInt64) {
        self.kind = kind
        self.window = window
        self.family = family
        self.device = device
        self.call = call
        self.fromNanos = fromNanos
        self.toNanos = toNanos
    }
}

/// A finding whose path an injected fault touched: reported apart, never counted against the server.
public struct AttributedViolation: Sendable, Equatable, Codable {
    public var violation: Violation
    /// The kinds of the faults on its path, sorted.
    public var faults: [String]
}

/// Splits a checker's findings into those no injected fault could have caused (the server's) and those whose path
/// a fault touched (reported per fault kind).
///
/// A device-family fault (a push dropped, refused, delayed, duplicated, reordered; a device offline or its app
/// terminated) touches a finding only when the finding is about a device's view (`final-views-agree-with-server`,
/// `no-device-active-in-two-unheld-conversations`, `every-action-has-one-outcome`), one of the finding's devices
/// is the one it hit, and it hit that device's call (or, when the history names no call, came before the finding
/// broke, within `lookbackNanos`, or lasted until then: a SIP registration lapse). A network fault touches a view
/// finding whose time window overlaps it. A target kill touches any finding whose time window overlaps it. Rules
/// about what the server answered (merge union, ended stays ended, unmerge restores, unmerge follows policy,
/// versions increase) are excused by a target kill alone.
public enum FaultAttribution {
    /// What a device observed (its view; for the media rules, what it heard), so a fault on its path may explain
    /// it: a media fault (`media.one_way_dropped` …) on the call's packets explains its silence.
    public static let viewRules: Set<Rule> = [.finalViewsAgree, .singleActive, .oneOutcome, .joinedMemberSendsMedia,
                                              .heldMemberSendsNoMedia]
    public static let lookbackNanos: UInt64 = 30_000_000_000

    public static func split(_ violations: [Violation], events: [HistoryEvent], faults: [InjectedFault])
        -> (server: [Violation], attributed: [AttributedViolation]) {
        guard !faults.isEmpty else { return (violations, []) }
        let byDevice = Dictionary(grouping: faults.filter { $0.family == .device && $0.device != nil },
                                  by: { $0.device! })
        let timed = faults.filter { $0.family != .device }
        var server: [Violation] = []
        var attributed: [AttributedViolation] = []
        for violation in violations {
            var kinds = Set<String>()
            let window = violation.window
            let aboutViews = viewRules.contains(violation.rule)
            for fault in timed where fault.fromNanos <= window.upperBound && fault.toNanos >= window.lowerBound {
                if aboutViews || fault.family == .target { kinds.insert(fault.kind) }
            }
            if aboutViews {
                let path = Self.path(of: violation, in: events)
                for device in path.devices {
                    for fault in byDevice[device] ?? [] where touches(fault, path: path, window: window) {
                        kinds.insert(fault.kind)
                    }
                }
            }
            if kinds.isEmpty {
                server.append(violation)
            } else {
                attributed.append(AttributedViolation(violation: violation, faults: kinds.sorted()))
            }
        }
        return (server, attributed)
    }

    /// Findings per fault kind (a finding touched by two kinds counts under both), by count then name.
    public static func byKind(_ attributed: [AttributedViolation]) -> [(kind: String, findings: Int, devices: Int)] {
        var findings: [String: Int] = [:]
        var devices: [String: Set<String>] = [:]
        for a in attributed {
            for kind in a.faults {
                findings[kind, default: 0] += 1
                devices[kind, default: []].formUnion(a.violation.devices)
            }
        }
        return findings.map { (kind: $0.key, findings: $0.value, devices: devices[$0.key]?.count ?? 0) }
            .sorted { ($0.findings, $1.kind) > ($1.findings, $0.kind) }
    }

    private struct Path {
        var devices: Set<String>
        var calls: Set<Int>
    }

    /// The devices and planned calls the finding's own events name.
    private static func path(of violation: Violation, in events: [HistoryEvent]) -> Path {
        var path = Path(devices: Set(violation.devices), calls: [])
        let ops = Set(violation.ops)
        for index in violation.events where events.indices.contains(index) {
            switch events[index].body {
            case .invoke(let invoke):
                path.devices.insert(invoke.device)
                if let call = invoke.call { path.calls.insert(call) }
            case .push(let push): path.devices.insert(push.device)
            case .final(let final): path.devices.insert(final.device)
            case .sip(let message): path.devices.insert(message.device)
            case .dialog(let dialog):
                path.devices.insert(dialog.device)
                if let call = dialog.call { path.calls.insert(call) }
            case .media(let media):
                path.devices.insert(media.device)
                if let call = media.call { path.calls.insert(call) }
            default: break
            }
        }
        if !ops.isEmpty {
            for event in events {
                guard case .invoke(let invoke) = event.body, ops.contains(invoke.op) else { continue }
                if let call = invoke.call { path.calls.insert(call) }
            }
        }
        return path
    }

    private static func touches(_ fault: InjectedFault, path: Path, window: ClosedRange<UInt64>) -> Bool {
        if let call = fault.call, !path.calls.isEmpty { return path.calls.contains(call) }
        let earliest = window.lowerBound > lookbackNanos ? window.lowerBound - lookbackNanos : 0
        return fault.fromNanos <= window.upperBound && fault.toNanos >= earliest
    }
}
