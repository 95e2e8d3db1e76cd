/// A metric's name as the recorder takes it. `Recorder.count` and `record` accept only this type, so a name
/// spelled as a string literal at a call site does not compile: producers take it from the catalog below (the
/// constants and functions on `Metric`, spelled once in `MetricName` when a reader needs the same string), and a
/// typo cannot become a silently empty row in the report.
///
/// Readers (reports, thresholds, books) keep keying dictionaries by the plain strings of `MetricName`, which
/// are what users see in counters.csv, summary.json and `slo:`.
///
/// Each value carries its name's process-wide key (`MetricKeys`), interned when the value is made, which is what
/// the recorder indexes its per-metric arrays by: two values of the same name have the same key.
public struct Metric: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    /// The name's interned key: equal keys, equal names.
    public let key: Int32

    /// A name that comes from outside the catalog: read back from a results file, taken from another
    /// component's statistics (the reference target's, the fault proxy's), or a test's fixture. Producers in
    /// callstorm use the catalog instead.
    public init(named name: String) {
        self.name = name
        key = MetricKeys.key(for: name)
    }

    /// A metric whose key is known (`MetricTable`): no interning.
    init(key: Int32, name: String) {
        self.name = name
        self.key = key
    }

    public var description: String { name }

    public static func == (lhs: Metric, rhs: Metric) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

// MARK: - Latencies (histograms, µs)

extension Metric {
    public static let pushToReport = Metric(named: MetricName.pushToReport)
    public static let pushDelivery = Metric(named: MetricName.pushDelivery)
    public static let dialToRing = Metric(named: MetricName.dialToRing)
    public static let schedulerLag = Metric(named: MetricName.schedulerLag)
    /// A device's registration with the target.
    public static let register = Metric(named: "register")
    /// A call's duration, from its start to its end.
    public static let callDuration = Metric(named: "call.duration")
    public static func fulfillment(_ kind: String) -> Metric { Metric(named: MetricName.fulfillment(kind)) }
    public static func fulfillmentFromPlanned(_ kind: String) -> Metric {
        Metric(named: MetricName.fulfillmentFromPlanned(kind))
    }
    /// Per flow step: `join.fulfillment@incoming-1to1/answer`, and the same from the action's planned start.
    public static func fulfillment(_ kind: String, step: String) -> Metric {
        Metric(named: MetricName.fulfillment(kind, step: step))
    }
    public static func fulfillmentFromPlanned(_ kind: String, step: String) -> Metric {
        Metric(named: MetricName.fulfillmentFromPlanned(kind, step: step))
    }
    /// A push latency on one side of the fault windows: `fault.<window>.push_to_report`, `no_fault.push_delivery`.
    public static func scoped(_ scope: String, _ metric: Metric) -> Metric { Metric(named: "\(scope).\(metric.name)") }
    public static let socketConnect = Metric(named: MetricName.socketConnect)
    public static let pushToSocket = Metric(named: MetricName.pushToSocket)
    public static let pushToState = Metric(named: MetricName.pushToState)
    public static let socketEventDelivery = Metric(named: MetricName.socketEventDelivery)
    public static let targetReportLatencyDeviceClock = Metric(named: MetricName.targetReportLatencyDeviceClock)
}

// MARK: - Calls, flows, devices, conversations

extension Metric {
    public static let callsPlanned = Metric(named: MetricName.callsPlanned)
    public static let callsStarted = Metric(named: MetricName.callsStarted)
    public static let callsInFlightAtStop = Metric(named: MetricName.callsInFlightAtStop)
    public static let callsNotStartedAtStop = Metric(named: MetricName.callsNotStartedAtStop)
    public static let callsDroppedNoIdleDevice = Metric(named: MetricName.callsDroppedNoIdleDevice)
    /// A call's end as the books count it: `calls.completed`, `calls.failed`, `calls.missed`.
    public static func calls(_ outcome: String) -> Metric { Metric(named: "calls.\(outcome)") }
    /// The three ends, made once: one of them is counted at every call's end.
    public static let callsCompleted = Metric(named: MetricName.callsCompleted)
    public static let callsFailed = Metric(named: MetricName.callsFailed)
    public static let callsMissed = Metric(named: MetricName.callsMissed)
    public static let callsMissedAbandoned = Metric(named: MetricName.callsMissedAbandoned)
    /// A failed call by what failed it, when the protocol named it: `calls.failed.sip_486`.
    public static func callsFailed(reason: String) -> Metric { Metric(named: "\(MetricName.callsFailed).\(reason)") }
    /// A call that ended before anyone answered it, by how (`calls.unanswered.declined`, `.cancelled`,
    /// `.refused`) and, for a SIP refusal its flow declares, by status (`calls.unanswered.sip_486`).
    public static func callsUnanswered(_ how: String) -> Metric { Metric(named: "calls.unanswered.\(how)") }
    public static let callsAppTerminated = Metric(named: "calls.app_terminated")
    public static let callsMissedPush = Metric(named: "calls.missed_push")
    /// Per flow: `flow.incoming-1to1.started` (started, completed, failed, failed_calls, missed, in_flight_at_stop).
    public static func flow(_ flow: String, _ counter: String) -> Metric { Metric(named: "flow.\(flow).\(counter)") }
    /// A flow wait that gave up: `flow.push_not_received`, `flow.end_not_observed`.
    public static func flowWait(_ what: String) -> Metric { Metric(named: "flow.\(what)") }
    /// A race step ran: `race.<flow>/<step>.runs`.
    public static func raceRuns(_ flowStep: String) -> Metric { Metric(named: "race.\(flowStep).runs") }
    public static let raceUnsupportedStep = Metric(named: "race.unsupported_step")
    public static let viewsChecked = Metric(named: "views.checked")
    public static let viewsMismatched = Metric(named: "views.mismatched")
    public static let viewsUnverifiable = Metric(named: "views.unverifiable")
    public static let devicesRegistered = Metric(named: MetricName.devicesRegistered)
    public static let devicesRegisterFailed = Metric(named: MetricName.devicesRegisterFailed)
    public static let devicesVoIPBlocked = Metric(named: "devices.voip_blocked")
    public static let devicesTerminatedForMissedDeadline = Metric(named: "devices.terminated_for_missed_deadline")
    /// A conversation-manager event summed over the worker's devices: `events.connected`.
    public static func deviceEvent(_ name: String) -> Metric { Metric(named: "events.\(name)") }
    public static let conversationsReported = Metric(named: "conversations.reported")
    public static let conversationsRefusedOverLimit = Metric(named: "conversations.refused_over_limit")
}

// MARK: - Actions, requests, errors

extension Metric {
    public static func action(_ kind: String, _ counter: MetricName.ActionCounter) -> Metric {
        Metric(named: MetricName.action(kind, counter))
    }
    /// An action's outcome by its label (`fulfilled`, `failed`, `unknown`, `timed_out`), or a failure's reason:
    /// `action.end.failed.already_ended`, `action.join.unknown.http_503` (a failure whose effect is unknown).
    public static func action(_ kind: String, label: String) -> Metric {
        Metric(named: "\(MetricName.actionPrefix)\(kind).\(label)")
    }
    /// A flow step's action outcome: `step_outcome.join@incoming-1to1/answer.fulfilled`.
    public static func stepOutcome(_ kind: String, step: String, label: String) -> Metric {
        Metric(named: MetricName.stepOutcome(kind, step: step, label: label))
    }
    public static func actionFailed(_ kind: String, reason: String) -> Metric {
        action(kind, label: "\(MetricName.ActionCounter.failed.rawValue).\(reason)")
    }
    /// A failure whose effect is unknown, by reason: `action.join.unknown.http_503`.
    public static func actionUnknown(_ kind: String, reason: String) -> Metric {
        action(kind, label: "\(MetricName.ActionCounter.unknown.rawValue).\(reason)")
    }
    /// Transport errors by kind and unexpected answers: `errors.reset`, `errors.http_503`, `errors.bad_response`.
    public static func error(_ kind: String) -> Metric { Metric(named: "\(MetricName.errorsPrefix)\(kind)") }
    public static func httpStatus(_ status: Int) -> Metric { error("http_\(status)") }
    public static let badResponse = error("bad_response")
    /// Whether a mapped capture found its value (first-contact diagnostics): `api.capture.conversation.id.missed`.
    public static func apiCapture(_ name: String, matched: Bool) -> Metric {
        Metric(named: "api.capture.\(name).\(matched ? "matched" : "missed")")
    }
    public static let apiMissingVariable = Metric(named: "api.missing_variable")
    public static let observePolls = Metric(named: "observe.polls")
    public static let observePollsNotFound = Metric(named: "observe.polls_not_found")
}

// MARK: - Pushes and what devices observe

extension Metric {
    public static let pushDeadlineMissed = Metric(named: MetricName.pushDeadlineMissed)
    public static func pushesReceived(_ pushType: String) -> Metric {
        Metric(named: MetricName.pushesReceived(pushType))
    }
    public static let pushesAccepted = Metric(named: MetricName.pushesAccepted)
    public static let pushesDuplicated = Metric(named: MetricName.pushesDuplicated)
    public static let pushesDelivered = Metric(named: MetricName.pushesDelivered)
    public static let pushesDroppedByFault = Metric(named: MetricName.pushesDroppedByFault)
    public static let pushesBlocked = Metric(named: MetricName.pushesBlocked)
    public static let pushesExpired = Metric(named: MetricName.pushesExpired)
    public static let pushesUndeliveredAtStop = Metric(named: MetricName.pushesUndeliveredAtStop)
    public static let pushesDeliveredOutOfOrder = Metric(named: "pushes.delivered_out_of_order")
    public static let pushesUnexpected = Metric(named: "pushes.unexpected")
    /// What became of a background push or a socket event folded into a device's view, by the channel it came
    /// on (`pushes`, `socket.events`): `pushes.stale`, `socket.events.out_of_order`, `pushes.bad_payload`.
    public static func observed(_ channel: ObservationChannel, _ fate: String) -> Metric {
        Metric(named: "\(channel.rawValue).\(fate)")
    }

    /// Where an observation came from: its counters' prefix.
    public enum ObservationChannel: String, Sendable {
        case pushes
        case socketEvents = "socket.events"
        case sip
    }
}

// MARK: - Device sockets

extension Metric {
    public static let socketOpened = Metric(named: MetricName.socketOpened)
    public static let socketClosedDevice = Metric(named: MetricName.socketClosedDevice)
    public static let socketClosedServer = Metric(named: MetricName.socketClosedServer)
    public static let socketLost = Metric(named: MetricName.socketLost)
    public static let socketOpenAtStop = Metric(named: MetricName.socketOpenAtStop)
    public static let socketReconnects = Metric(named: MetricName.socketReconnects)
    public static let socketConnectFailed = Metric(named: MetricName.socketConnectFailed)
    /// An open the device gave up itself (it closed the socket before the 101).
    public static let socketConnectAbandoned = Metric(named: "socket.connect_abandoned")
    /// Opens that never reached the 101, by cause: `socket.connect_failed.tls`.
    public static func socketConnectFailed(_ cause: String) -> Metric {
        Metric(named: "\(MetricName.socketConnectFailed).\(cause)")
    }
    public static let socketOpenRefused = Metric(named: "socket.open_refused")
    public static func socketClose(_ code: Int) -> Metric { Metric(named: MetricName.socketClose(code)) }
    public static func socketProtocol(_ kind: String) -> Metric { Metric(named: MetricName.socketProtocol(kind)) }
    public static let socketMessages = Metric(named: "socket.messages")
    public static let socketMessagesBinary = Metric(named: "socket.messages.binary")
    public static let socketEventsIgnored = Metric(named: "socket.events.ignored")
    /// Actions sent over sockets, by operation (`socket.actions.join`), and those that waited for an open.
    public static func socketActions(_ op: String) -> Metric { Metric(named: "socket.actions.\(op)") }
    public static let socketActionsQueued = socketActions("queued")
    public static let socketLostInjected = Metric(named: MetricName.socketLostInjected)
    public static let socketClosedServerInjected = Metric(named: MetricName.socketClosedServerInjected)
}

// MARK: - Faults and after the run

extension Metric {
    public static func fault(_ kind: String) -> Metric { Metric(named: MetricName.fault(kind)) }
    public static func fault(_ kind: String, pushType: String) -> Metric {
        Metric(named: MetricName.fault(kind, pushType: pushType))
    }
    public static let invariantViolations = Metric(named: MetricName.invariantViolations)
    public static func invariantViolations(_ rule: String) -> Metric {
        Metric(named: MetricName.invariantViolations(rule))
    }
    public static let invariantViolationsAttributed = Metric(named: MetricName.invariantViolationsAttributed)
    public static let targetPushesRetried = Metric(named: MetricName.targetPushesRetried)
    public static let targetPushesRecovered = Metric(named: MetricName.targetPushesRecovered)
    public static let targetReportLatencyDeviceClockNegative =
        Metric(named: MetricName.targetReportLatencyDeviceClockNegative)
    public static let gatewayGoAwaysSent = Metric(named: MetricName.gatewayGoAwaysSent)
    public static let gatewayConnections = Metric(named: MetricName.gatewayConnections)
}

extension MetricName {
    /// The calls refused before anyone answered, by reason (`calls.failed.sip_486` → `sip_486`), in name order:
    /// the books' refused line and the verdict's reasons read them from here.
    public static func refusals(in counters: [String: Int64]) -> [(reason: String, calls: Int64)] {
        let prefix = callsFailed + "."
        return counters.filter { $0.key.hasPrefix(prefix) && $0.value > 0 }.sorted { $0.key < $1.key }
            .map { (String($0.key.dropFirst(prefix.count)), $0.value) }
    }
}
