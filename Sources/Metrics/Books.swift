/// The run's books: every action and every push accounted for exactly once. Computed from the recorder's
/// counters, so a report rebuilt from checkpoints after a kill checks the same identities (the workers add
/// what was in flight at each checkpoint to the snapshot they write).
///
/// - per action kind: started = fulfilled + failed + effect unknown + timed out + in flight at stop;
/// - calls: started = completed + failed + missed (the VoIP push never came or came too late) + in flight at stop;
/// - pushes at the gateway: sent = accepted + rejected (present when the gateway's counters are);
/// - pushes in the driver: accepted + duplicated copies = delivered + dropped by fault + blocked by iOS +
///   expired + undelivered at stop, and the gateway's accepted equals the driver's.
///
/// A book that does not balance means callstorm lost track of something: the run fails with exit 3.
public struct Books: Sendable, Codable, Equatable {
    public struct ActionLine: Sendable, Codable, Equatable {
        public var kind: String
        public var started: Int64
        public var fulfilled: Int64
        public var failed: Int64
        /// Failures whose effect is unknown (`action.<kind>.unknown`: a 5xx, a reset, SIP's 408; history's `info`
        /// with a reason); nil when none, and in books written before they were counted apart from `failed`.
        public var unknown: Int64?
        public var timedOut: Int64
        public var inFlightAtStop: Int64

        public var accounted: Int64 { fulfilled + failed + (unknown ?? 0) + timedOut + inFlightAtStop }
        public var balanced: Bool { started == accounted }
    }

    public struct CallLine: Sendable, Codable, Equatable {
        public var started: Int64
        public var completed: Int64
        public var failed: Int64
        /// Calls nobody answered because the callee's VoIP push was lost or reported too late (nil in books
        /// written before missed calls were counted apart).
        public var missed: Int64?
        public var inFlightAtStop: Int64
        /// Of the started calls, those an outside party placed (`calls.started_by_outside`; nil when none did,
        /// and in books written before outside parties).
        public var startedByOutside: Int64?
        /// Of the completed calls, those that ended unanswered by their flow's steps or as its `expect:` declares
        /// (`calls.unanswered.<way>`); nil when none did.
        public var unanswered: Int64?
        /// Of the failed calls, those a SIP refusal failed, by status (`calls.failed.sip_486`); nil when none.
        public var refused: [String: Int64]?

        public var accounted: Int64 { completed + failed + (missed ?? 0) + inFlightAtStop }
        public var balanced: Bool { started == accounted }
    }

    public struct PushLine: Sendable, Codable, Equatable {
        /// Requests the gateway received, and what it answered; nil when its counters are missing (a killed run).
        public var sent: Int64?
        public var gatewayAccepted: Int64?
        public var rejected: Int64?
        /// Pushes the driver's devices were handed (the gateway accepted them), and their fates.
        public var accepted: Int64
        public var duplicated: Int64
        public var delivered: Int64
        public var droppedByFault: Int64
        public var blocked: Int64
        public var expired: Int64
        public var undeliveredAtStop: Int64

        public var fates: Int64 { delivered + droppedByFault + blocked + expired + undeliveredAtStop }
    }

    /// Device sockets (`device.socket`): every socket that opened ended one way or was open at the stop.
    public struct SocketLine: Sendable, Codable, Equatable {
        public var opened: Int64
        public var closedByDevice: Int64
        public var closedByServer: Int64
        public var lost: Int64
        public var openAtStop: Int64
        /// Of the lost and server-closed sockets, those callstorm's own faults ended (`socket_drop`,
        /// `socket_storm`): the target's doing is the rest. Nil in summaries written before socket faults.
        public var endedByFaults: Int64?

        public var accounted: Int64 { closedByDevice + closedByServer + lost + openAtStop }
        public var balanced: Bool { opened == accounted }
    }

    public var actions: [ActionLine]
    public var calls: CallLine
    public var pushes: PushLine
    /// Nil when no device held a socket (the run's counters have no `socket.opened`).
    public var sockets: SocketLine?
    /// One sentence per book that does not balance, naming it and the difference.
    public var problems: [String]

    public var balanced: Bool { problems.isEmpty }

    /// Counter names the books read (kept here so the driver and the reports agree on them).
    /// The push counters the books read (names from `MetricName`).
    public enum Counter {
        public static let gatewaySent = MetricName.gatewayPushesSent
        public static let gatewayAccepted = MetricName.gatewayPushesAccepted
        public static let gatewayRejected = MetricName.gatewayPushesRejected
        public static let accepted = MetricName.pushesAccepted
        public static let duplicated = MetricName.pushesDuplicated
        public static let delivered = MetricName.pushesDelivered
        public static let droppedByFault = MetricName.pushesDroppedByFault
        public static let blocked = MetricName.pushesBlocked
        public static let expired = MetricName.pushesExpired
        public static let undelivered = MetricName.pushesUndeliveredAtStop
    }

    public init(counters c: [String: Int64]) {
        func n(_ name: String) -> Int64 { c[name] ?? 0 }
        var kinds: [String] = []
        let started = "." + MetricName.ActionCounter.started.rawValue
        for name in c.keys where name.hasPrefix(MetricName.actionPrefix) && name.hasSuffix(started) {
            let parts = name.split(separator: ".")
            if parts.count == 3 { kinds.append(String(parts[1])) }
        }
        actions = kinds.sorted().map { k in
            ActionLine(kind: k, started: n(MetricName.action(k, .started)),
                       fulfilled: n(MetricName.action(k, .fulfilled)), failed: n(MetricName.action(k, .failed)),
                       unknown: c[MetricName.action(k, .unknown)], timedOut: n(MetricName.action(k, .timedOut)),
                       inFlightAtStop: n(MetricName.action(k, .inFlightAtStop)))
        }
        calls = CallLine(started: n(MetricName.callsStarted), completed: n(MetricName.callsCompleted),
                         failed: n(MetricName.callsFailed), missed: n(MetricName.callsMissed),
                         inFlightAtStop: n(MetricName.callsInFlightAtStop),
                         startedByOutside: c[MetricName.callsStartedByOutside])
        let ways = ["declined", "cancelled", "refused"].compactMap { c["calls.unanswered.\($0)"] }
        if !ways.isEmpty { calls.unanswered = ways.reduce(0, +) }
        let refused = MetricName.refusals(in: c)
        if !refused.isEmpty { calls.refused = Dictionary(uniqueKeysWithValues: refused.map { ($0.reason, $0.calls) }) }
        pushes = PushLine(
            sent: c[Counter.gatewaySent], gatewayAccepted: c[Counter.gatewayAccepted],
            rejected: c[Counter.gatewayRejected], accepted: n(Counter.accepted), duplicated: n(Counter.duplicated),
            delivered: n(Counter.delivered), droppedByFault: n(Counter.droppedByFault), blocked: n(Counter.blocked),
            expired: n(Counter.expired), undeliveredAtStop: n(Counter.undelivered))

        if c[MetricName.socketOpened] != nil {
            sockets = SocketLine(opened: n(MetricName.socketOpened), closedByDevice: n(MetricName.socketClosedDevice),
                                 closedByServer: n(MetricName.socketClosedServer), lost: n(MetricName.socketLost),
                                 openAtStop: n(MetricName.socketOpenAtStop),
                                 endedByFaults: n(MetricName.socketLostInjected)
                                     + n(MetricName.socketClosedServerInjected))
        }

        var problems: [String] = []
        if let s = sockets, !s.balanced {
            problems.append("sockets: opened \(s.opened) ≠ closed by device \(s.closedByDevice) + closed by server "
                + "\(s.closedByServer) + lost \(s.lost) + open at stop \(s.openAtStop) (= \(s.accounted); "
                + "\(s.opened - s.accounted) unaccounted)")
        }
        for line in actions where !line.balanced {
            problems.append("action \(line.kind): started \(line.started) ≠ fulfilled \(line.fulfilled) + failed "
                + "\(line.failed)" + (line.unknown.map { " + effect unknown \($0)" } ?? "") + " + timed out \(line.timedOut) + in flight at stop \(line.inFlightAtStop) "
                + "(= \(line.accounted); \(line.started - line.accounted) unaccounted)")
        }
        if !calls.balanced {
            let sum = calls.accounted
            problems.append("calls: started \(calls.started) ≠ completed \(calls.completed) + failed \(calls.failed) "
                + "+ missed \(calls.missed ?? 0) + in flight at stop \(calls.inFlightAtStop) (= \(sum); "
                + "\(calls.started - sum) unaccounted)")
        }
        let p = pushes
        if let sent = p.sent, let accepted = p.gatewayAccepted, let rejected = p.rejected,
           sent != accepted + rejected {
            problems.append("pushes at the gateway: sent \(sent) ≠ accepted \(accepted) + rejected \(rejected) "
                + "(\(sent - accepted - rejected) unaccounted)")
        }
        if let accepted = p.gatewayAccepted, accepted != p.accepted {
            problems.append("pushes: the gateway accepted \(accepted) but the devices were handed \(p.accepted) "
                + "(\(accepted - p.accepted) lost between gateway and devices)")
        }
        if p.accepted + p.duplicated != p.fates {
            problems.append("pushes: accepted \(p.accepted) + duplicated copies \(p.duplicated) ≠ delivered "
                + "\(p.delivered) + dropped by fault \(p.droppedByFault) + blocked \(p.blocked) + expired "
                + "\(p.expired) + undelivered at stop \(p.undeliveredAtStop) (= \(p.fates); "
                + "\(p.accepted + p.duplicated - p.fates) unaccounted)")
        }
        self.problems = problems
    }

    /// Lines for the terminal and the report, one per book.
    public var lines: [String] {
        var out = actions.map { a in
            "action \(a.kind): started \(a.started) \(a.balanced ? "=" : "≠") fulfilled \(a.fulfilled) + failed \(a.failed)"
                + (a.unknown.map { " + effect unknown \($0)" } ?? "") + " + timed out \(a.timedOut) + in flight at stop \(a.inFlightAtStop)"
        }
        out.append("calls: started \(calls.started) \(calls.balanced ? "=" : "≠") completed \(calls.completed) + failed \(calls.failed) + "
            + "missed \(calls.missed ?? 0) + in flight at stop \(calls.inFlightAtStop)"
            + (calls.startedByOutside.map { " (\($0) of the started placed by outside parties)" } ?? "")
            + (calls.unanswered.map { " (\($0) of the completed unanswered, as their flows end them)" } ?? "")
            + (calls.refused.map { refused in " (of the failed, refused before an answer: " + refused
                .sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") + ")" } ?? ""))
        let p = pushes
        if let sent = p.sent, let accepted = p.gatewayAccepted, let rejected = p.rejected {
            out.append("pushes at the gateway: sent \(sent) \(sent == accepted + rejected ? "=" : "≠") accepted \(accepted) + rejected \(rejected)")
        }
        out.append("pushes to devices: accepted \(p.accepted) + duplicated \(p.duplicated) "
            + "\(p.accepted + p.duplicated == p.fates ? "=" : "≠") delivered "
            + "\(p.delivered) + dropped by fault \(p.droppedByFault) + blocked \(p.blocked) + expired \(p.expired) "
            + "+ undelivered at stop \(p.undeliveredAtStop)")
        if let s = sockets {
            out.append("sockets: opened \(s.opened) \(s.balanced ? "=" : "≠") closed by device \(s.closedByDevice) + "
                + "closed by server \(s.closedByServer) + lost \(s.lost) + open at stop \(s.openAtStop)"
                + ((s.endedByFaults ?? 0) > 0 ? " (\(s.endedByFaults ?? 0) of the closed and lost were ended by "
                    + "injected faults)" : ""))
        }
        return out
    }
}
