/// The names of the run's counters and histograms, in one place: a name written in two modules (a producer and
/// the report that reads it) is spelled once here, so renaming one cannot silently break the other.
/// Names are stable: they are the keys of counters.csv, summary.json, thresholds (`slo:`) and the metrics
/// endpoint, so a change here is a change users see.
public enum MetricName {
    // MARK: - Latencies (histograms, µs)

    /// Push accepted by the gateway → the device reported the incoming conversation.
    public static let pushToReport = "push_to_report"
    public static let pushDelivery = "push_delivery"
    /// Caller's start → callee ringing.
    public static let dialToRing = "dial_to_ring"
    /// Planned → actual instant of each timer the harness fired: its own lag.
    public static let schedulerLag = "scheduler_lag"
    /// An action kind's fulfillment time: `join.fulfillment`.
    public static func fulfillment(_ kind: String) -> String { "\(kind)\(fulfillmentSuffix)" }
    /// The same from the action's planned start: `join.fulfillment_from_planned`.
    public static func fulfillmentFromPlanned(_ kind: String) -> String { "\(kind)\(fromPlannedSuffix)" }
    /// Per flow step: `join.fulfillment@incoming-1to1/answer`.
    public static func fulfillment(_ kind: String, step: String) -> String { "\(fulfillment(kind))@\(step)" }
    public static func fulfillmentFromPlanned(_ kind: String, step: String) -> String {
        "\(fulfillmentFromPlanned(kind))@\(step)"
    }
    public static let fulfillmentSuffix = ".fulfillment"
    public static let fromPlannedSuffix = ".fulfillment_from_planned"
    /// A flow step's action outcomes, counted by the driver as each action finishes (not under `action.`, whose
    /// counters the books add up per kind): `step_outcome.join@incoming-1to1/answer.fulfilled`.
    public static func stepOutcome(_ kind: String, step: String, label: String) -> String {
        "\(stepOutcomePrefix)\(kind)@\(step).\(label)"
    }
    public static let stepOutcomePrefix = "step_outcome."
    /// The outcome labels a step's counters end in, as actions.csv's `outcome` column spells them.
    public static let stepOutcomeLabels = [ActionCounter.fulfilled, .failed, .unknown, .timedOut].map(\.rawValue)

    /// Per flow step (`join@incoming-1to1/answer`), its outcome counts by label, read back from `counters`.
    public static func stepOutcomes(in counters: [String: Int64]) -> [String: [String: Int64]] {
        var outcomes: [String: [String: Int64]] = [:]
        for (name, value) in counters where name.hasPrefix(stepOutcomePrefix) {
            let rest = name.dropFirst(stepOutcomePrefix.count)
            guard let label = stepOutcomeLabels.first(where: { rest.hasSuffix(".\($0)") }) else { continue }
            outcomes[String(rest.dropLast(label.count + 1)), default: [:]][label, default: 0] += value
        }
        return outcomes
    }

    // MARK: - Calls, devices, conversations

    public static let callsPlanned = "calls.planned"
    public static let callsStarted = "calls.started"
    public static let callsCompleted = "calls.completed"
    public static let callsFailed = "calls.failed"
    /// The callee's VoIP push never came, or came too late: the call was never shown.
    public static let callsMissed = "calls.missed"
    /// Of the missed calls, those their caller hung up on while the device rang (issue 32): not "nothing done".
    public static let callsMissedAbandoned = "calls.missed_abandoned"
    public static let callsInFlightAtStop = "calls.in_flight_at_stop"
    public static let callsNotStartedAtStop = "calls.not_started_at_stop"
    public static let callsDroppedNoIdleDevice = "calls.dropped.no_idle_device"
    public static let devicesRegistered = "devices.registered"
    public static let devicesRegisterFailed = "devices.register_failed"
    /// Gauge.
    public static let conversationsActive = "conversations.active"
    public static let requestsSent = "requests.sent"

    // MARK: - Actions

    /// An action kind's outcome counter: `action.join.fulfilled`.
    public static func action(_ kind: String, _ outcome: ActionCounter) -> String {
        "\(actionPrefix)\(kind).\(outcome.rawValue)"
    }
    public static let actionPrefix = "action."

    /// The counters every action kind has; started = the other five (the books). `failed`: certainly without
    /// effect (history.jsonl's `fail`); `unknown`: failed in a way whose effect is unknown (a 5xx, a reset, SIP's
    /// 408: history's `info` with the reason), so both files say one word per outcome (issue 32).
    public enum ActionCounter: String, Sendable, CaseIterable {
        case started
        case fulfilled
        case failed
        case unknown
        case timedOut = "timed_out"
        case inFlightAtStop = "in_flight_at_stop"
    }

    // MARK: - Pushes

    public static let pushDeadlineMissed = "push.deadline_missed"
    /// Pushes a device received, by type: `pushes.received.voip`.
    public static func pushesReceived(_ pushType: String) -> String { "pushes.received.\(pushType)" }
    public static let gatewayPushesSent = "gateway.pushes.sent"
    public static let gatewayPushesAccepted = "gateway.pushes.accepted"
    public static let gatewayPushesRejected = "gateway.pushes.rejected"
    public static let pushesAccepted = "pushes.accepted"
    public static let pushesDuplicated = "pushes.duplicated"
    public static let pushesDelivered = "pushes.delivered"
    public static let pushesDroppedByFault = "pushes.dropped_by_fault"
    public static let pushesBlocked = "pushes.blocked_after_missed_deadlines"
    public static let pushesExpired = "pushes.expired_discarded"
    public static let pushesUndeliveredAtStop = "pushes.undelivered_at_stop"

    // MARK: - VoIP pushes that carry no new call (PushKit's rule; docs/LCK.md)

    /// VoIP pushes the app had to report (`mustReport`) that carried no new call: a server defect. The total,
    /// the numerator of `voip_without_call_rate`.
    public static let pushesVoIPWithoutCall = "pushes.voip_without_call"
    /// The same by cause: `pushes.voip_without_call.ended_conversation`.
    public static func pushesVoIPWithoutCall(_ cause: String) -> String { "\(pushesVoIPWithoutCall).\(cause)" }
    /// Why a VoIP push carried no new call, in the order the report lists them.
    public static let voipWithoutCallCauses = ["unparseable", "no_conversation", "known_conversation",
                                               "ended_conversation"]
    /// VoIP pushes without a new call the app did not have to report (iOS 26.4's `mustReport` false: the device
    /// was in a call or in the foreground, the push was long delayed), or that a push-path fault made (a
    /// duplicate, a delay): not counted against the server. `pushes.voip_not_required.in_call`.
    public static func pushesVoIPNotRequired(_ why: String) -> String { "pushes.voip_not_required.\(why)" }
    public static let voipNotRequiredReasons = ["in_call", "foreground", "delayed", "fault"]
    /// `device.on_voip_without_call: report_and_end`: the app reported a conversation and ended it at once (a
    /// flash of incoming-call UI on the phone).
    public static let pushesVoIPReportedAndEnded = "pushes.voip_reported_and_ended"
    /// `device.on_voip_without_call: terminate`: the system terminated the app for not reporting.
    public static let devicesTerminatedVoIPWithoutCall = "devices.terminated_for_voip_without_call"
    /// Devices iOS stopped launching for VoIP pushes (`push.block_after_misses` reached).
    public static let devicesVoIPBlocked = "devices.voip_blocked"

    // MARK: - Capability changes (docs/LCK.md)

    /// A conversation lost or gained a capability through the server's update (LCK conversation events, added
    /// at the end of the run): `events.capabilities.lost.merging`.
    public static func capabilityLost(_ name: String) -> String { "events.capabilities.lost.\(name)" }
    public static func capabilityGained(_ name: String) -> String { "events.capabilities.gained.\(name)" }
    /// A step whose action needed a capability its conversation did not have:
    /// `missing_capability.merging@group-merge/merge`.
    public static func missingCapability(_ name: String, step: String) -> String {
        "\(missingCapabilityPrefix)\(name)@\(step)"
    }
    public static let missingCapabilityPrefix = "missing_capability."

    // MARK: - Caller handles (docs/LCK.md)

    /// VoIP pushes whose caller handle was missing, of a kind the app does not declare, not the caller's
    /// registered handle, or unlike an earlier push's for the same caller: `handles.caller_unstable`.
    public static func callerHandle(_ defect: String) -> String { "handles.caller_\(defect)" }
    public static let callerHandleDefects = ["missing", "unsupported_kind", "not_registered", "unstable"]
    /// VoIP pushes whose caller handle was checked (the mapping reads a handle from pushes).
    public static let callerHandlesChecked = "handles.caller_checked"

    // MARK: - Redial from Recents

    /// `redial` steps that started a call, and those refused: `redials.refused.not_in_recents`.
    public static let redialsStarted = "redials.started"
    public static func redialRefused(_ reason: String) -> String { "redials.refused.\(reason)" }
    /// `behavior.redial_after_drop`: redial calls started after a drop (per second: the storm's redials/s), those
    /// scheduled, and drops whose caller did not redial (outside `share`).
    public static let redialsAfterDrop = "redials.after_drop"
    public static let redialsAfterDropPlanned = "redials.after_drop.planned"
    public static let redialsAfterDropSkipped = "redials.after_drop.skipped"

    // MARK: - Errors (transport errors by kind: `errors.reset`, `errors.timeout`)

    public static let errorsPrefix = "errors."

    // MARK: - The harness itself (gauges)

    public static let harnessRSSMiB = "harness.rss_mib"
    public static let harnessCPUPercent = "harness.cpu_percent"
    public static let harnessFDs = "harness.fds"
    public static let harnessThreads = "harness.threads"

    // MARK: - Faults

    /// A fault that acted: `faults.push.dropped`, `faults.device.join_failed`, `faults.target.killed`.
    public static func fault(_ kind: String) -> String { "faults.\(kind)" }
    /// A push fault split by the push's type: `faults.push.delayed.voip`.
    public static func fault(_ kind: String, pushType: String) -> String { "faults.\(kind).\(pushType)" }
    /// Connections a network toxic acted on: `faults.network.latency.connections`.
    public static func networkToxicConnections(_ toxicKind: String) -> String {
        "faults.network.\(toxicKind).connections"
    }

    // MARK: - The fault proxy

    public static let networkConnections = "network.connections"
    public static let networkUpstreamConnectFailures = "network.upstream_connect_failures"
    public static let networkResets = "network.resets"
    public static let networkToxicCloses = "network.toxic_closes"

    // MARK: - Device sockets (`device.socket`)

    /// Open started → 101 received.
    public static let socketConnect = "socket.connect"
    /// VoIP push accepted by the gateway → the socket it woke the app for is open.
    public static let pushToSocket = "push_to_socket"
    /// VoIP push accepted → the first message on the socket about that conversation.
    public static let pushToState = "push_to_state"
    /// The server's send time of a socket message (`sent_at`, its clock) → received.
    public static let socketEventDelivery = "socket.event_delivery"
    /// The socket books: opened = closed by the device + closed by the server + lost + open at stop.
    public static let socketOpened = "socket.opened"
    public static let socketClosedDevice = "socket.closed.device"
    public static let socketClosedServer = "socket.closed.server"
    public static let socketLost = "socket.lost"
    public static let socketOpenAtStop = "socket.open_at_stop"
    public static let socketReconnects = "socket.reconnects"
    /// Opens that never reached the 101 (connect, TLS, handshake refused).
    public static let socketConnectFailed = "socket.connect_failed"
    /// How each opened socket ended, by close code: `socket.close.1000`.
    public static func socketClose(_ code: Int) -> String { "socket.close.\(code)" }
    /// Frames from the server that broke RFC 6455, by kind: `socket.protocol.bad_opcode`.
    public static func socketProtocol(_ kind: String) -> String { "socket.protocol.\(kind)" }
    /// The latency histograms the report's socket section shows, in order.
    public static let socketLatencies = [pushToSocket, pushToState, socketConnect, socketEventDelivery]

    // MARK: - Set after the run

    /// The history checker's violations, and per rule: `invariant_violations.merge_lost_update`.
    public static let invariantViolations = "invariant_violations"
    public static func invariantViolations(_ rule: String) -> String { "invariant_violations.\(rule)" }
    /// Checker findings set apart because an injected fault touched their path (not the server's violations).
    public static let invariantViolationsAttributed = "invariant_violations.attributed_to_faults"
    /// The reference target's APNs client: attempts made again after 429/500/503 or a lost connection, and
    /// pushes accepted after such a retry.
    public static let targetPushesRetried = "target.pushes.retried"
    public static let targetPushesRecovered = "target.pushes.recovered"
    /// Push-to-report as the embedded target measured it from device timestamps (clock_skew faults).
    public static let targetReportLatencyDeviceClock = "target.report_latency_device_clock"
    public static let targetReportLatencyDeviceClockNegative = "target.report_latency_device_clock.negative"
    /// GOAWAYs the gateway sent, and the connections it accepted (counted when any GOAWAY was sent).
    public static let gatewayGoAwaysSent = "gateway.goaways_sent"
    public static let gatewayConnections = "gateway.connections"
}
