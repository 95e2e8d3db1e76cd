import CallModel
import Foundation
import Scenario

/// Everything a worker needs from the scenario, resolved once: a value shared read-only by all workers.
///
/// More than 15 stored properties on purpose: it is the flat list of knobs the CLI sets one by one (flags,
/// shards, replay, fault routes) and the driver reads; grouping them would only add a level to every reader.
public struct DriverSettings: Sendable {
    public var plan: ArrivalPlan
    public var seed: UInt64
    public var devices: Int
    public var workers: Int
    /// Base URL of the target, without a trailing slash.
    public var targetURL: String
    /// `target.ca`: the PEM file of CA certificates the devices' https requests and wss sockets verify the
    /// target against; nil trusts the system store.
    public var targetCAFile: String?
    public var deadlineNanos: UInt64
    public var actionTimeoutNanos: UInt64
    public var drainNanos: UInt64
    public var connectionsPerWorker: Int
    public var registrationConcurrency: Int
    /// Where workers stream raw results (rows and recorder checkpoints); nil keeps everything in memory.
    public var runDirectory: URL?
    /// Keep one row in this many in actions.csv / pushes.csv.
    public var rowSampleEvery: Int = 1
    /// The flow of each mix entry, indexed like `Arrival.flow`.
    public var flows: [Flow]
    public var deviceConfiguration: ConversationManager.Configuration
    /// After each call, compare every device's view of its conversations with the target's (`GET`).
    public var verifyViews = true
    public var behavior: Behavior
    /// `target.api` of the scenario; nil speaks the reference protocol.
    public var api: APIMapping?
    /// After this many missed push deadlines a device gets no more VoIP pushes (Apple publishes no number;
    /// `push.block_after_misses` sets it).
    public var voipBlockAfterMisses: Int
    /// `device.on_voip_without_call`: what the app does with a VoIP push it must report that has no new call.
    public var voipWithoutCall = VoIPWithoutCall.reportAndEnd
    /// `device.handles`, `device.supported_handles`: each device's handle and the kinds the app declares.
    public var handles = HandleBook(seed: 0, mix: HandleMix())
    /// `device.includes_in_recents`.
    public var includesInRecents = true
    /// The scenario's fault windows (times since the load starts).
    public var faults: [FaultWindow]
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
    /// `--trace N`: the first N calls' requests, responses and pushes go to this trace.jsonl; nil traces none.
    public var trace: TraceWriter?
    /// `observe.poll`: how often a waiting device polls the mapped `get`; nil never.
    public var pollNanos: UInt64?
    /// `replay.offset`: every `together` step fires at this offset instead of its own (nanoseconds).
    public var replayOffsetNanos: Int64?
    /// `device.socket*`: whether and when devices hold a signaling socket.
    public var socket = SocketSettings()

    /// The device socket's settings, from the scenario's `device:` section.
    public struct SocketSettings: Sendable {
        public var mode = SocketMode.none
        public var reconnect = SocketReconnect()
        public var lingerNanos: UInt64 = 0
        public init() {}
    }

    public init(scenario: Scenario, targetURL: String, workers: Int) {
        self.plan = ArrivalPlan(scenario: scenario)
        self.seed = scenario.seed
        self.devices = scenario.devices
        self.workers = max(1, workers)
        self.targetURL = targetURL.hasSuffix("/") ? String(targetURL.dropLast()) : targetURL
        self.deadlineNanos = scenario.push.deadlineNanos
        self.actionTimeoutNanos = scenario.actionTimeoutNanos
        self.drainNanos = scenario.drainNanos
        self.connectionsPerWorker = 128
        self.registrationConcurrency = 64
        self.behavior = scenario.behavior
        self.api = scenario.api
        self.faults = scenario.faults
        self.replayOffsetNanos = scenario.replay?.offsetNanos
        self.pollNanos = scenario.observe.pollNanos
        self.targetCAFile = scenario.targetCA
        self.voipBlockAfterMisses = scenario.push.blockAfterMisses
        // Views can be compared when the mapping reads them and can fetch one back.
        self.verifyViews = scenario.api.map { $0.view != nil && $0.endpoints["get"] != nil } ?? true
        self.flows = scenario.mix.map { entry in
            guard let flow = scenario.flow(named: entry.flow) else {
                preconditionFailure("scenario validation lets no undefined flow through: \(entry.flow)")
            }
            return flow
        }
        let profile = scenario.device
        socket.mode = profile.socket
        socket.reconnect = profile.socketReconnect
        socket.lingerNanos = profile.socketLingerNanos
        voipWithoutCall = profile.onVoIPWithoutCall
        handles = HandleBook(seed: scenario.seed, mix: profile.handles)
        includesInRecents = profile.includesInRecents
        self.deviceConfiguration = ConversationManager.Configuration(
            supportedCapabilities: Capabilities(names: profile.capabilities),
            maximumConversationGroups: profile.maximumConversationGroups,
            maximumConversationsPerConversationGroup: profile.maximumConversationsPerConversationGroup,
            supportsVideo: profile.supportsVideo)
    }
}
