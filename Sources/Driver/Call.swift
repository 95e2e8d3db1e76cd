import CallModel
import PushModel
import Scenario

/// A simulated device: its identity, its app's conversation manager, and the call (flow run) it takes part in.
/// Devices are state machines on a worker queue, not threads.
struct Device {
    let identity: DeviceIdentity
    var manager: ConversationManager
    var registered = false
    var callID: Int?
    /// When this device reported each incoming conversation (monotonic ns), for dial-to-ring.
    var reportedAt: [String: UInt64] = [:]
    /// The target's send time (epoch ms, its clock) of each reported conversation's VoIP push, when it said.
    var pushSentAt: [String: Int] = [:]
    var deadlineMisses = 0
    /// Acceptance instant of the newest push delivered so far, to count pushes that arrive after a later one.
    var lastDeliveredAccepted: UInt64 = 0
    /// Pushes a reorder fault holds back until the device's next push has been delivered.
    var held: [(serial: UInt64, push: APNsPush)] = []
}

/// Where a flow run is paused, so the event that unblocks it can find it.
enum Waiting: Equatable {
    case none
    case action
    case timer
    case push(device: Int, conversation: String)
    case end(device: Int, conversation: String)
    /// An outgoing conversation must be connected (a callee answered) before its caller acts on it.
    case connected(device: Int, conversation: String)
    case verification(outstanding: Int, attempt: Int, mismatched: Bool)
    /// A `together` step: this many of its actions are still out.
    case race(outstanding: Int)
}

/// A position in a flow's steps; repeat frames run `remaining` more times.
struct Frame {
    var steps: [FlowStep]
    var index: Int
    var remaining: Int
}

/// One planned call running its flow on the worker: the arrival that planned it, the role → device binding,
/// the flow's named conversations, the actions taken so far, and where the script is.
struct FlowRun {
    let arrival: Arrival
    let flow: Flow
    var roles: [String: Int]
    var conversations: [String: String] = [:]
    var startIssued: [String: UInt64] = [:]
    /// Values captured from the target's responses (`target.api` captures), usable in later templates.
    var captures: [String: String] = [:]
    var frames: [Frame]
    var rng: SeededRandom
    var usedAnswerAfter = false
    var usedTalk = false
    var actions: [Action] = []
    /// For each action: the local index of the device that performed it, and its step name.
    var actors: [Int] = []
    var steps: [String] = []
    var waiting: Waiting = .none
    /// Bumped whenever the run moves on, so a stale timeout for an earlier wait is ignored.
    var waitToken: UInt64 = 0
    var failed = false
    /// The callee's VoIP push never arrived: the call was missed (unanswered), an outcome of its own.
    var missed = false
    var failure: String?
    /// After the flow's own steps (and its verification), live conversations are ended by `cleanup` steps.
    var cleaningUp = false
    /// The actions of the `together` step in progress, fired by the wheel.
    var raceSteps: [FlowStep] = []
    var raceName = ""
    /// The offset the `together` step in progress fires at (nanoseconds), written into the history.
    var raceOffset: Int64 = 0
    /// Actions of that step still to be scheduled once the early ones fire.
    var raceLate: [Int] = []
    /// The newest server view of each conversation any of this call's responses carried (cleanup skips what the
    /// server already ended).
    var lastViews: [String: ConversationView] = [:]

    mutating func saw(_ view: ConversationView?) {
        guard let view else { return }
        if let known = lastViews[view.uuid], known.version > view.version { return }
        lastViews[view.uuid] = view
    }
    var startedNanos: UInt64

    init(arrival: Arrival, flow: Flow, roles: [String: Int], seed: UInt64, now: UInt64) {
        self.arrival = arrival
        self.flow = flow
        self.roles = roles
        self.frames = [Frame(steps: flow.steps, index: 0, remaining: 1)]
        // A stream of its own per arrival, apart from the plan's draws, so branches and waits replay exactly.
        self.rng = SeededRandom(seed: seed, stream: UInt64(arrival.index) | 1 << 40)
        self.startedNanos = now
    }

    /// Makes the step just taken run again when the flow resumes.
    mutating func retryLastStep() {
        if !frames.isEmpty { frames[frames.count - 1].index -= 1 }
    }

    /// The devices of every role, in role order.
    func devices() -> [Int] { flow.roles.compactMap { roles[$0] } }

    /// The next step to run, entering branches and repeats; nil at the end of the flow.
    mutating func nextStep() -> FlowStep? {
        while var top = frames.last {
            if top.index >= top.steps.count {
                frames.removeLast()
                if top.remaining > 1 {
                    top.remaining -= 1
                    top.index = 0
                    frames.append(top)
                }
                continue
            }
            let step = top.steps[top.index]
            frames[frames.count - 1].index += 1
            switch step.kind {
            case .branch(let branches):
                var draw = rng.nextUnit()
                for branch in branches {
                    if draw < branch.probability {
                        frames.append(Frame(steps: branch.steps, index: 0, remaining: 1))
                        break
                    }
                    draw -= branch.probability
                }
            case .repeatSteps(let count, let steps):
                if count > 0 { frames.append(Frame(steps: steps, index: 0, remaining: count)) }
            default:
                return step
            }
        }
        return nil
    }
}

/// What the worker's timer wheel holds: small values, no closures, so a scheduled step allocates nothing.
enum TimerEvent {
    case arrival(Arrival)
    /// A wait step ends; `token` must still match the run's wait.
    case resume(call: Int, token: UInt64)
    /// A wait for a push or an end gives up.
    case waitTimeout(call: Int, token: UInt64)
    /// A push reaches its device later (a push delay fault), or is processed later (a slow app).
    case deliver(push: APNsPush, local: Int)
    case report(push: APNsPush, local: Int)
    /// A push a reorder fault held back is delivered now if no later push released it first.
    case releaseHeld(local: Int, serial: UInt64)
    /// Deferred work of a fault (slow media setup); rare, so a closure is fine here.
    case later(() -> Void)
    /// Fire action `index` of the current `together` step.
    case fire(call: Int, index: Int, token: UInt64)
    /// Compare views again after in-flight pushes had time to land.
    case verify(call: Int, attempt: Int)
    case tick
}
