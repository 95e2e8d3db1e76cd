import CallModel
import Faults
import Foundation
import Media
import OTLP
import Scenario

/// Everything a worker needs for a run: the scenario itself (every setting it decides is read from it, not
/// copied), what is resolved from it once (the arrival plan, the mix's flows, the devices' configuration), and the
/// knobs of this process that no scenario holds (target URL, workers, shard, run directory, trace, fault routes).
/// A value shared read-only by all workers.
public struct DriverSettings: Sendable {
    /// The scenario the run is made of.
    public let scenario: Scenario
    public var plan: ArrivalPlan
    /// The flow of each mix entry, indexed like `Arrival.flow`.
    public let flows: [Flow]
    public let deviceConfiguration: ConversationManager.Configuration
    public var workers: Int
    /// Base URL of the target, without a trailing slash.
    public var targetURL: String
    public var connectionsPerWorker = 128
    public var registrationConcurrency = 64
    /// Where workers stream raw results (rows and recorder checkpoints); nil keeps everything in memory.
    public var runDirectory: URL?
    /// Keep one row in this many in actions.csv / pushes.csv.
    public var rowSampleEvery: Int = 1
    /// Network windows that hit only some devices (`flows`, `devices`): window index → base URL of the fault
    /// proxy of that window alone. While the window is open, requests of the devices it hits go there.
    public var networkRoutes: [Int: String] = [:]
    /// A test knob (environment `CALLSTORM_STALL_PER_CALL`, e.g. `20ms`): the worker blocks this long after each
    /// call it starts, so a test can make callstorm itself the bottleneck on any machine. 0 in every real run.
    public var stallPerCallNanos: UInt64 = 0
    /// Which slice of the devices and arrivals this process runs (`--shard i/N`); `.whole` unsharded.
    public var shard: Shard = .whole
    /// Wall-clock instant the load starts at (`--start-at`), so shards' seconds line up; nil starts when ready.
    public var startAt: Date?
    /// What a run records of its calls beyond the books: trace.jsonl and OpenTelemetry spans.
    public var tracing = Tracing()

    public init(scenario: Scenario, targetURL: String, workers: Int) {
        self.scenario = scenario
        self.plan = ArrivalPlan(scenario: scenario)
        self.workers = max(1, workers)
        self.targetURL = targetURL.hasSuffix("/") ? String(targetURL.dropLast()) : targetURL
        self.flows = scenario.mix.map { entry in
            guard let flow = scenario.flow(named: entry.flow) else {
                preconditionFailure("scenario validation lets no undefined flow through: \(entry.flow)")
            }
            return flow
        }
        let profile = scenario.device
        self.deviceConfiguration = ConversationManager.Configuration(
            supportedCapabilities: Capabilities(names: profile.capabilities),
            maximumConversationGroups: profile.maximumConversationGroups,
            maximumConversationsPerConversationGroup: profile.maximumConversationsPerConversationGroup,
            supportsVideo: profile.supportsVideo)
    }

    /// The two ways a run traces its calls, each nil when off.
    public struct Tracing: Sendable {
        /// `--trace N`: the first N calls' requests, responses and pushes go to this trace.jsonl.
        public var writer: TraceWriter?
        /// OpenTelemetry traces (`--otlp`): each worker's span buffer, made on its loop; when nil every hook is
        /// one nil check.
        public var spans: (@Sendable (_ worker: Int) -> CallTraceBuffer)?
        /// Each media stream's tally at its close (`target.sip.rtpengine`: compared with the relay's own counts at
        /// the run's end); called on the worker's thread, so it must only hand the value over.
        public var mediaLegs: (@Sendable (MediaLegTally) -> Void)?
        public init() {}
    }

    /// `tracing.writer`, by its older name (call sites read it for trace.jsonl).
    public var trace: TraceWriter? {
        get { tracing.writer }
        set { tracing.writer = newValue }
    }

    // MARK: - Read from the scenario

    public var seed: UInt64 { scenario.seed }
    public var devices: Int { scenario.devices }
    public var deadlineNanos: UInt64 { scenario.push.deadlineNanos }
    public var actionTimeoutNanos: UInt64 { scenario.actionTimeoutNanos }
    public var drainNanos: UInt64 { scenario.drainNanos }
    public var behavior: Behavior { scenario.behavior }
    /// `target.api` of the scenario; nil speaks the reference protocol.
    public var api: APIMapping? { scenario.api }
    /// `target.ca`: the PEM file of CA certificates the devices' https requests and wss sockets verify the
    /// target against; nil trusts the system store.
    public var targetCAFile: String? { scenario.targetCA }
    /// `device.on_voip_without_call`: what the app does with a VoIP push it must report that has no new call.
    public var voipWithoutCall: VoIPWithoutCall { scenario.device.onVoIPWithoutCall }
    /// `device.handles`, `device.supported_handles`: each device's handle and the kinds the app declares.
    public var handles: HandleBook {
        HandleBook(seed: scenario.seed, mix: scenario.device.handles, address: SignalingRegistry.handleAddress(self))
    }
    /// `device.includes_in_recents`.
    public var includesInRecents: Bool { scenario.device.includesInRecents }
    /// After this many missed push deadlines a device gets no more VoIP pushes (Apple publishes no number;
    /// `push.block_after_misses` sets it).
    public var voipBlockAfterMisses: Int { scenario.push.blockAfterMisses }
    /// The scenario's fault windows (times since the load starts).
    public var faults: [FaultWindow] { scenario.faults }
    /// `observe.poll`: how often a waiting device polls the mapped `get`; nil never.
    public var pollNanos: UInt64? { scenario.observe.pollNanos }
    /// `replay.offset`: every `together` step fires at this offset instead of its own (nanoseconds).
    public var replayOffsetNanos: Int64? { scenario.replay?.offsetNanos }
    /// After each call, compare every device's view of its conversations with the target's (`GET`): when the
    /// mapping reads views and can fetch one back.
    /// A signaling kind whose calls the target does not hold as viewable conversations turns it off
    /// (`DeviceSignaling.checksTargetViews`).
    public var verifyViews: Bool {
        SignalingRegistry.checksTargetViews(self)
            && scenario.api.map { $0.view != nil && $0.endpoints["get"] != nil } ?? true
    }
    /// `device.socket*`: whether and when devices hold a signaling socket.
    public var socket: SocketSettings {
        SocketSettings(mode: scenario.device.socket, reconnect: scenario.device.socketReconnect,
                       lingerNanos: scenario.device.socketLingerNanos)
    }

    /// The device socket's settings, from the scenario's `device:` section.
    public struct SocketSettings: Sendable {
        public var mode = SocketMode.none
        public var reconnect = SocketReconnect()
        public var lingerNanos: UInt64 = 0
        public init() {}

        init(mode: SocketMode, reconnect: SocketReconnect, lingerNanos: UInt64) {
            (self.mode, self.reconnect, self.lingerNanos) = (mode, reconnect, lingerNanos)
        }
    }
}
