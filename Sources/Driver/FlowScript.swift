import CallModel
import Determinism
import Scenario

/// Where a flow run is paused, so the event that unblocks it can find it.
enum Waiting: Equatable {
    case none
    case action
    case timer
    case push(device: Int, conversation: String)
    case end(device: Int, conversation: String)
    /// An outgoing conversation must be connected (a callee answered) before its caller acts on it.
    case connected(device: Int, conversation: String)
    /// A device must see a member in a conversation, connected, before it acts on that member (unmerges it): the
    /// join or merge that brought the member in may have reached the server without this device being told.
    case member(device: Int, conversation: String, member: Int)
    case verification(outstanding: Int, attempt: Int, mismatched: Bool)
    /// A `together` step: this many of its actions are still out.
    case race(outstanding: Int)
    /// A life step (`interrupted`, `manager_reset`, …): this many of the actions it made are still out.
    case life(outstanding: Int)
}

/// A position in a flow's steps; repeat frames run `remaining` more times.
struct StepFrame {
    var steps: [FlowStep]
    var index: Int
    var remaining: Int
}

/// Where one call is in its flow's steps, and the call's own random stream for branches and waits.
struct FlowScript {
    var frames: [StepFrame]
    var rng: SeededRandom
    var usedAnswerAfter = false
    var usedTalk = false

    init(flow: Flow, arrival: Arrival, seed: UInt64) {
        frames = [StepFrame(steps: flow.steps, index: 0, remaining: 1)]
        // A stream of its own per arrival, apart from the plan's draws, so branches and waits replay exactly.
        rng = SeededRandom(seed: seed, stream: UInt64(arrival.index) | 1 << 40)
    }

    /// Makes the step just taken run again when the flow resumes.
    mutating func retryLastStep() {
        if !frames.isEmpty { frames[frames.count - 1].index -= 1 }
    }

    /// Skips the step that was retried (its wait gave up).
    mutating func skipStep() {
        if !frames.isEmpty { frames[frames.count - 1].index += 1 }
    }

    /// The next step to run, entering branches and repeats; nil at the end of the flow.
    mutating func nextStep() -> FlowStep? {
        // The top frame is read where it is: `while var top = frames.last` copied it (its steps retained and
        // released) at every step of every call.
        while let last = frames.indices.last {
            let index = frames[last].index
            if index >= frames[last].steps.count {
                var top = frames.removeLast()
                if top.remaining > 1 {
                    top.remaining -= 1
                    top.index = 0
                    frames.append(top)
                }
                continue
            }
            let step = frames[last].steps[index]
            frames[last].index += 1
            switch step.kind {
            case .branch(let branches):
                var draw = rng.nextUnit()
                for branch in branches {
                    if draw < branch.probability {
                        frames.append(StepFrame(steps: branch.steps, index: 0, remaining: 1))
                        break
                    }
                    draw -= branch.probability
                }
            case .repeatSteps(let count, let steps):
                if count > 0 { frames.append(StepFrame(steps: steps, index: 0, remaining: count)) }
            default:
                return step
            }
        }
        return nil
    }
}

/// How a call is going: failed (and why), missed, or ending its live conversations.
struct CallStatus {
    var failed = false
    /// The callee's VoIP push never arrived: the call was missed (unanswered), an outcome of its own.
    var missed = false
    var failure: String?
    /// After the flow's own steps (and its verification), live conversations are ended by `cleanup` steps.
    var cleaningUp = false
    /// Someone answered: a join was fulfilled, or a device of the call saw its conversation connected.
    var answered = false
    /// How the call ended before anyone answered it, once it did (`FlowInterpreter+Unanswered`).
    var unansweredEnd: UnansweredEnd?
    /// A device of ours that started a conversation of the call sent its end before anyone answered: the caller
    /// hung up while it rang, known when it acts, not when the 487 comes back.
    var callerHungUp = false
}

/// The `together` step in progress.
struct RaceState {
    /// The step's actions, fired by the wheel.
    var steps: [FlowStep] = []
    var name = ""
    /// The offset it fires at (nanoseconds), written into the history.
    var offset: Int64 = 0
    /// Actions still to be scheduled once the early ones fire.
    var late: [Int] = []
}

/// What a call learned from the target: its named conversations, when each start was sent, captured values and
/// the newest view of each conversation. A call names one to three conversations: the tables by flow name or by
/// UUID are `SmallStringMap`s (dictionaries hashed the name or the 36-byte UUID at every event; issue 33).
struct CallKnowledge {
    /// Flow name → conversation id.
    var conversations = SmallStringMap<String>()
    var startIssued = SmallStringMap<UInt64>()
    /// Flow name → the device (worker-local) that started it: the caller a VoIP push must name.
    var starters = SmallStringMap<Int>()
    /// Flow name → the devices a start called (what the caller's Recents shows after the call ends).
    var callees = SmallStringMap<[Int]>()
    /// Values captured from the target's responses (`target.api` captures), usable in later templates.
    var captures: [String: String] = [:]
    /// The newest server view of each conversation any of this call's responses carried (cleanup skips what the
    /// server already ended).
    var lastViews = SmallStringMap<ConversationView>()
    /// The other devices of the roles' users (`users:`) and what the call decided of them.
    var elsewhere = ElsewhereState()
    /// Devices relaunched with `device.relaunch: end_on_event` → the conversations they lost, ended at their next
    /// push or socket event (a server that offers no list of a device's calls).
    var forgotten: [Int: [String]] = [:]

    mutating func saw(_ view: ConversationView?) {
        guard let view else { return }
        if let known = lastViews[view.uuid], known.version > view.version { return }
        lastViews[view.uuid] = view
    }
}

/// The actions a call took, with the device and step of each (parallel arrays: one entry per action).
struct ActionLog {
    var actions: [Action] = []
    var actors: [Int] = []
    var steps: [String] = []

    var count: Int { actions.count }

    /// Room for about a flow's worth of actions (its top-level steps, 4 to 16), made at a call's first action:
    /// the three lists grew from empty, reallocated at the 1st, 2nd, 3rd and 5th action each (issue 33).
    mutating func reserve(_ steps: Int) {
        let n = Swift.min(Swift.max(steps, 4), 16)
        actions.reserveCapacity(n)
        actors.reserveCapacity(n)
        self.steps.reserveCapacity(n)
    }
}
