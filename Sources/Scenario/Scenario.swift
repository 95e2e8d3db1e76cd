import CallModel
import Faults
import Thresholds

/// A validated load test: what to run against, how many calls when, and how simulated people behave.
///
/// It is plain data (no I/O, no clock) so it can be built in code by tests, shipped between shards, and turned
/// into the same `ArrivalPlan` anywhere. `ScenarioLoader` produces it from YAML and checks every value; code that
/// builds one directly must keep the same rules (devices ≥ 2, rates ≥ 0, mix weights > 0, mix not empty).
///
/// More than 15 stored properties on purpose: one per top-level section of the YAML, each documented under its own
/// key in the README; nesting them would add a level every caller spells out and no meaning.
public struct Scenario: Sendable, Equatable {
    public var name: String
    /// Drives every random choice of a run (arrivals, flows, think times), so a seed reproduces a run.
    public var seed: UInt64
    /// Arrival window in nanoseconds. Arrivals stop at this time; if it is longer than the stages, the last
    /// stage's final rate holds until it. Nil means the stages' total length.
    public var duration: UInt64?
    /// Number of simulated devices (at least 2: a call needs a caller and a callee).
    public var devices: Int
    public var target: TargetSpec
    public var push: PushSpec
    /// The planned rate over time, stage after stage.
    public var load: [LoadStage]
    public var arrivals: ArrivalProcess
    /// Flows and weights, in file order; `Arrival.flow` indexes this array.
    public var mix: [MixEntry]
    public var behavior: Behavior
    /// How long to wait for in-flight calls after arrivals end before the run stops.
    public var drainNanos: UInt64
    /// How long an action (start, join, end, …) may stay unfulfilled before it counts as timed out.
    public var actionTimeoutNanos: UInt64
    /// Worker queues to use; nil means one per core.
    public var workers: Int?
    /// SLO thresholds (`slo:`), evaluated at the end of the run and, with `abort_on_fail`, while it runs.
    public var slo: [Threshold]
    /// Every flow the mix names, user-defined (`flows:`) or built in, by name.
    public var flows: [String: Flow] = [:]
    /// `faults:` windows, in file order.
    public var faults: [FaultWindow] = []
    /// Where a ramp's knee is judged, and whether the run stops there (`capacity:`).
    public var capacity: CapacitySpec?
    /// How callstorm judges its own lag, and what it does once it cannot keep up (`harness:`).
    public var harness = HarnessLimit()
    /// `target.bugs`: deliberate bugs to switch on in the embedded reference target (race-checker tests).
    public var targetBugs: [String] = []
    /// `target.process`: the reference target runs as a child process (`callstorm target`), which `target`
    /// fault windows kill and restart.
    public var targetProcess = false
    /// `target.ca`: the PEM file (resolved against the scenario file's directory) of the CA that signed a `url`
    /// target's certificate, trusted by the devices' https requests and wss sockets instead of the system store.
    public var targetCA: String?
    /// `target.client`: the HTTP client the devices' requests to the target go through (curl unless set).
    public var targetClient: TargetClient = .standard
    /// `target.policy`: the server's declared choices where LiveCommunicationKit leaves it free; nil when the
    /// scenario declares none. See `serverPolicy(embedded:)`.
    public var targetPolicy: ServerPolicy?
    /// `target.sip`: the SIP server SIP devices (`device.signaling: sip`) register at.
    public var sip: SIPTargetSpec?
    /// The names `target.bugs` accepts (the reference target's `Bug` cases; a test keeps them equal).
    public static let knownTargetBugs = ["merge-lost-update", "merge-ignores-ended", "unmerge-drops-join",
                                         "version-not-bumped",
                                         "elsewhere-keeps-ringing", "elsewhere-voip-cancel"] + lifeTargetBugs
    /// The reference target's bug of the phone's life (issue 37).
    public static let lifeTargetBugs = ["interrupted-stays-joined"]
    /// `target.api`: how to speak to a server that does not use the reference protocol; nil for the reference.
    public var api: APIMapping?
    /// The simulated app's conversation-manager configuration (`device:`).
    public var device = DeviceProfile()
    /// `observe:`: how devices learn what they cannot see in responses and pushes (polling).
    public var observe = Observation()
    /// `observability:`: OpenTelemetry export and trace context (ObservabilitySpec); empty by default.
    public var observability = ObservabilitySpec()
    /// `replay:`: run only this planned call (a repro of a violation); nil runs the whole plan.
    public var replay: Replay?
    /// `media:`: RTP on a seeded share of SIP calls; nil: no call carries media.
    public var media: MediaSpec?
    /// `users`: devices grouped into users who own several (issue 36); nil: each device its own user.
    public var users: UsersSpec?
    /// The file the scenario came from, for reports and error messages.
    public var sourceFile: String

    public static let defaultSeed: UInt64 = 1
    public static let defaultMix = [MixEntry(flow: "incoming-1to1", weight: 100)]
    public static let defaultDrainNanos: UInt64 = 30_000_000_000
    public static let defaultActionTimeoutNanos: UInt64 = 10_000_000_000

    public init(
        name: String,
        seed: UInt64 = Scenario.defaultSeed,
        duration: UInt64? = nil,
        devices: Int,
        target: TargetSpec = .embedded,
        push: PushSpec = PushSpec(),
        load: [LoadStage],
        arrivals: ArrivalProcess = .uniform,
        mix: [MixEntry] = Scenario.defaultMix,
        behavior: Behavior = Behavior(),
        drainNanos: UInt64 = Scenario.defaultDrainNanos,
        actionTimeoutNanos: UInt64 = Scenario.defaultActionTimeoutNanos,
        workers: Int? = nil,
        slo: [Threshold] = [],
        sourceFile: String = "<memory>"
    ) {
        self.name = name
        self.seed = seed
        self.duration = duration
        self.devices = devices
        self.target = target
        self.push = push
        self.load = load
        self.arrivals = arrivals
        self.mix = mix
        self.behavior = behavior
        self.drainNanos = drainNanos
        self.actionTimeoutNanos = actionTimeoutNanos
        self.workers = workers
        self.slo = slo
        self.sourceFile = sourceFile
    }

    /// Length of the arrival window: `duration` when set, otherwise the sum of the stages.
    public var totalNanos: UInt64 {
        if let duration { return duration }
        return load.reduce(UInt64(0)) { sum, stage in
            let (total, overflow) = sum.addingReportingOverflow(stage.nanos)
            return overflow ? .max : total
        }
    }
}

extension Scenario {
    /// The policy the checker holds the server to: what the scenario declares, else, for the embedded reference
    /// target (whose choices callstorm knows), the reference's; else nothing (policy rules are skipped).
    public func serverPolicy(embedded: Bool) -> ServerPolicy {
        var policy = targetPolicy ?? (embedded ? .reference : .undeclared)
        if let users {
            policy.elsewhereGraceNanos = users.graceNanos
            policy.declineKeepsRinging = users.onDecline == .keepRinging
        }
        return policy
    }

    /// The unmerge behaviour the embedded reference target runs with.
    public var embeddedUnmergePolicy: ServerPolicy.Unmerge { targetPolicy?.unmerge ?? .holdSplit }
}
