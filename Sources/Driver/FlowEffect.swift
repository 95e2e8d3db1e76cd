import CallModel
import Faults
import Metrics
import Scenario

/// What a `FlowInterpreter` asks its worker to do. The interpreter never touches a socket, a timer, the recorder
/// or the journal: it returns these, and the worker applies them in order (so the history keeps the order in
/// which the interpreter decided things).
///
/// The cases with a large payload are one reference, so an effect is a few words: every count, record and timer a
/// call emits was moved, copied and destroyed at the size of the largest case (~8,000 instructions per SIP hold
/// call in `Worker.apply` and the array's destroy, issue 33). A request and an action's record are immutable
/// final classes (one allocation each, as the `indirect` box was): a copy is one retain, where the boxed struct
/// was copied out of its box field by field at each `case .send(let request)` (a dozen retains and releases).
/// The final view, rare, stays boxed.
enum FlowEffect {
    /// Send this action to the target; its answer comes back through `FlowInterpreter.answered`.
    case send(ActionRequest)
    /// Arm a timer for this call; the worker's wheel hands it back through `FlowInterpreter.timerFired`.
    case arm(FlowTimer, at: UInt64)
    case count(Metric, by: Int64)
    case record(Metric, micros: Int64)
    /// An action was created (the `invoke` history line, `action.<kind>.started`).
    case invoked(ActionRecord)
    /// An action got its one outcome (counters, histograms, the `complete` history line, actions.csv).
    case finished(ActionRecord)
    /// Poll the target's view of one conversation for one device (the mapped `get`); the answer comes back
    /// through `observed`.
    case poll(device: Int, conversation: String)
    /// Fetch the target's view of these conversations; each answer comes back through `viewFetched`.
    case fetchViews([String])
    /// The `final` history line for one device and conversation.
    indirect case finalView(FinalView)
    /// A line for the run's notes, kept while the worker has fewer than `limit`.
    case note(String, limit: Int)
    /// The call is over, counted as `outcome` (`completed`, `failed` or `missed`, as the books count it): the
    /// worker frees its devices and forgets it.
    case completed(outcome: String)
    /// The app on `device` was relaunched: its signaling registers again (and a SIP stack forgets its dialogs).
    case relaunched(device: Int)
}

/// Timers a flow arms. The worker's wheel holds them with the call's number; a token that no longer matches
/// the run's makes a timer stale (the run moved on).
enum FlowTimer {
    /// A wait step ends.
    case resume(token: UInt64)
    /// A wait for a push, an end or a connection gives up.
    case waitTimeout(token: UInt64)
    /// Fire action `index` of the current `together` step.
    case fire(index: Int, token: UInt64)
    /// Poll for what the flow waits on (`observe.poll`).
    case poll(token: UInt64)
    /// Compare views again after in-flight pushes had time to land.
    case verify(attempt: Int)
    /// A join's answer held back by a slow media setup (a device fault): the join is fulfilled now. Rare, so
    /// boxed: the wheel's entries stay small.
    indirect case lateAnswer(ActionRequest, ActionAnswer)
    /// A life event a chaos window drew for `device` (issue 37) is due (`FlowInterpreter+Life`).
    case life(LifeEvent, device: Int)
    /// The grace of a device still ringing at the end of the call's flow ran out (`FlowInterpreter+Elsewhere`).
    case elsewhereGrace
}

/// The target API operation of an action (the `target.api` mapping's names).
enum ActionOp: String, Sendable {
    case start, join, decline, end, pause, resume, merge, unmerge

    /// The LiveCommunicationKit action it performs (a decline is an End while ringing).
    var kind: ActionKind {
        switch self {
        case .start: return .start
        case .join: return .join
        case .decline, .end: return .end
        case .pause: return .pause
        case .resume: return .resume
        case .merge: return .merge
        case .unmerge: return .unmerge
        }
    }
}

/// One action a flow asks one device to perform at the target, as a value: the worker turns it into an HTTP
/// request and hands it back with the answer, so the interpreter needs to remember nothing about it. Immutable,
/// and a final class so that handing it along (the effect, the signaling's pending table, the answer's way back)
/// is one reference counted, not a dozen: its identity is never compared.
final class ActionRequest: Sendable {
    let call: Int
    /// The action's position in its call's log.
    let slot: Int
    let op: ActionOp
    /// The device (worker-local index) that performs it.
    let device: Int
    /// The conversation acted on (empty for a start, which creates one).
    let conversation: String
    /// The flow's name of the conversation a start creates.
    let name: String
    /// The end reason told to the others.
    let reason: String?
    /// Merge: the conversation merged in.
    let with: String?
    /// Unmerge: the member's device (worker-local index) and the flow's name of the conversation it splits into.
    let member: Int?
    let into: String?
    /// Start: the callees' devices (worker-local indexes), and whether it is a video call.
    let to: [Int]
    let video: Bool
    /// Fired by a `together` step: it may lose, and its outcome counts toward the race, not the flow.
    let inRace: Bool
    /// A failure does not fail the flow (race and cleanup actions).
    let tolerant: Bool
    /// Start: the SIP URI of an outside callee (`OutsideParty.uri`), called instead of a device.
    let uri: String?

    init(call: Int, slot: Int, op: ActionOp, device: Int, conversation: String = "", name: String = "",
         reason: String? = nil, with: String? = nil, member: Int? = nil, into: String? = nil, to: [Int] = [],
         video: Bool = false, inRace: Bool = false, tolerant: Bool = false, uri: String? = nil) {
        (self.call, self.slot, self.op, self.device, self.conversation, self.name) =
            (call, slot, op, device, conversation, name)
        (self.reason, self.with, self.member, self.into, self.to, self.video) = (reason, with, member, into, to, video)
        (self.inRace, self.tolerant, self.uri) = (inRace, tolerant, uri)
    }

    var kind: ActionKind { op.kind }
}

/// The target's answer to an action, as read by the worker: the outcome and what the response carried.
struct ActionAnswer {
    var outcome: ActionOutcome
    /// Values captured by the `target.api` mapping.
    var captures: [String: String] = [:]
    /// Reference protocol: the conversation's view after the action, and the split-off one after an unmerge.
    var view: ConversationView?
    var split: ConversationView?
    /// Start: the conversation created. Unmerge: the conversation split off.
    var conversation: String?
    /// The HTTP status of an answer that failed with one (an end answered 404 or 409 may mean "already gone").
    var status: Int?
    /// An end or decline answered with a status the mapping marks as "already ended" (`target.api.already_ended`).
    var alreadyEnded = false
}

/// An action as the books and the history need it. Immutable, and a final class for the reason `ActionRequest`
/// is: the worker's switch over a call's effects and the books read it where it is.
final class ActionRecord: Sendable {
    let action: Action
    /// The device that performed it (worker-local index).
    let device: Int
    /// The flow step's name, and the flow's.
    let step: String
    let flow: String
    let call: Int
    let with: String?
    /// The member device's id (unmerge).
    let member: String?
    /// The race it was fired in (`<flow>/<step>`) and the race's offset.
    let race: (name: String, offset: Int64)?
    /// The conversation a start created (the action itself had none yet).
    let conversation: String?
    let view: ConversationView?
    let split: ConversationView?

    init(action: Action, device: Int, step: String, flow: String, call: Int, with: String? = nil,
         member: String? = nil, race: (name: String, offset: Int64)? = nil, conversation: String? = nil,
         view: ConversationView? = nil, split: ConversationView? = nil) {
        (self.action, self.device, self.step, self.flow, self.call) = (action, device, step, flow, call)
        (self.with, self.member, self.race, self.conversation, self.view, self.split) =
            (with, member, race, conversation, view, split)
    }
}

/// One device's final view of one conversation next to the server's.
struct FinalView {
    var device: String
    var conversation: String
    var server: ConversationView
    /// `ringing`, `joined`, `held` or `left`.
    var state: String
    var members: [String]
    var activeMembers: [String]
    /// The device's user (`users:`), nil when each device is its own.
    var user: String? = nil
}

/// The settings a flow reads, resolved once per worker.
struct FlowConfig: Sendable {
    var actionTimeoutNanos: UInt64
    /// `replay.offset`: every `together` step fires at this offset instead of its own.
    var replayOffsetNanos: Int64?
    var behavior: Behavior
    /// After each call, compare every device's view with the target's.
    var verifyViews: Bool
    /// `observe.poll`: devices poll while waiting on what they cannot otherwise see; nil never.
    var pollNanos: UInt64?
    /// Checks the caller handle of each VoIP push; nil when the mapping reads no handle from pushes.
    var callerHandles: CallerHandleCheck?
    /// `device.includes_in_recents`: false refuses every `redial` step (nothing to redial from).
    var includesInRecents = true
    /// `users:`: the grace a user's other device may ring after an answer elsewhere, and the decline policy.
    var users: UsersSpec?
    /// `device.relaunch`, `device.filtered_status`: the app's choices for its life events.
    var life = PhoneLifeOptions()

    init(actionTimeoutNanos: UInt64, replayOffsetNanos: Int64? = nil, behavior: Behavior, verifyViews: Bool,
         pollNanos: UInt64? = nil) {
        self.actionTimeoutNanos = actionTimeoutNanos
        self.replayOffsetNanos = replayOffsetNanos
        self.behavior = behavior
        self.verifyViews = verifyViews
        self.pollNanos = pollNanos
    }

    init(_ settings: DriverSettings) {
        self.init(actionTimeoutNanos: settings.actionTimeoutNanos, replayOffsetNanos: settings.replayOffsetNanos,
                  behavior: settings.behavior, verifyViews: settings.verifyViews, pollNanos: settings.pollNanos)
        includesInRecents = settings.includesInRecents
        users = settings.scenario.users
        life = settings.scenario.device.life
        if (settings.api ?? TargetAPI.referenceMapping).push.handle != nil {
            callerHandles = CallerHandleCheck(handles: settings.handles)
        }
    }

    /// Pushes on loopback land within milliseconds; half a second is generous without slowing runs down.
    static let settleNanos: UInt64 = 500_000_000
    /// A disagreement is checked again after 0.5 s before it counts (and `final` is written); while the device has
    /// not yet seen the server's version, after 1, 2 and 4 s more (7.5 s in all).
    static let lastVerifyAttempt = 1
    static let lastVerifyAttemptWhenBehind = 4
}

/// Action numbers: the worker's index in the top 16 bits, a counter below, so ids are unique across workers.
struct ActionIDs {
    let worker: Int
    private var next: UInt64 = 0

    init(worker: Int) { self.worker = worker }

    mutating func make() -> UInt64 {
        next += 1
        return UInt64(worker) << 48 | next
    }
}
