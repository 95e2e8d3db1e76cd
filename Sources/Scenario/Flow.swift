import Faults
import Quantities

/// A flow: the script one planned call follows, step after step, each step done by one of its roles' devices.
///
/// Roles are bound to distinct idle devices when the call arrives (the first role is the one that starts it).
/// Conversations are named inside the flow (`main` unless a step says otherwise) and bound to the target's ids
/// as `start` and `unmerge` steps create them.
public struct Flow: Sendable, Equatable {
    public var name: String
    /// Role names, in order; the first two are the caller and callee sides for `behavior.hangup`.
    public var roles: [String]
    public var steps: [FlowStep]
    /// Roles played by parties callstorm does not simulate (`outside:`), by role name; empty for most flows.
    public var outside: [String: OutsideParty]
    /// The unanswered ends this flow is for (`expect:`); nil: every call it places is meant to be answered.
    public var expect: ExpectedOutcome?

    public init(name: String, roles: [String], steps: [FlowStep], outside: [String: OutsideParty] = [:],
                expect: ExpectedOutcome? = nil) {
        self.name = name
        self.roles = roles
        self.steps = steps
        self.outside = outside
        self.expect = expect
    }

    /// The role name that stands for "the side `behavior.hangup` picks for this call".
    public static let hangupRole = "$hangup"
}

/// One step of a flow. Steps that perform an action record `<kind>.fulfillment` and `<kind>.fulfillment@<flow>/<name>`.
public struct FlowStep: Sendable, Equatable {
    /// Unique within the flow; names its per-step metrics.
    public var name: String
    /// The role whose device performs the step; nil for wait, branch and repeat.
    public var role: String?
    public var kind: Kind

    public init(name: String, role: String?, kind: Kind) {
        self.name = name
        self.role = role
        self.kind = kind
    }

    public indirect enum Kind: Sendable, Equatable {
        /// StartConversationAction: the role calls the `to` roles (one: 1:1, several: a group).
        case start(to: [String], conversation: String, video: Bool)
        /// Waits until the role's device has received the VoIP push for the conversation and reported it.
        case awaitPush(conversation: String)
        /// JoinConversationAction: answer.
        case join(conversation: String)
        /// Ends a ringing conversation without answering (an End action while idle).
        case decline(conversation: String)
        /// EndConversationAction; `reason` is told to the others (e.g. `unanswered` after a ring timeout).
        case end(conversation: String, reason: String?)
        case pause(conversation: String)
        case resume(conversation: String)
        /// Merge `conversation` with `with`; `with` ends and its members join `conversation`.
        case merge(conversation: String, with: String)
        /// Moves the `member` role out of `conversation` into a new conversation named `into`.
        case unmerge(conversation: String, member: String, into: String)
        /// Waits until the role's device sees the conversation end (by anyone).
        case awaitEnd(conversation: String)
        /// Waits until the role's device sees the conversation connected: the other side answered (or it ended
        /// first). For a caller whose callee is an outside party, or any caller that acts only once answered.
        case awaitAnswer(conversation: String)
        /// A start from Recents: calls the handle of the role's last ended conversation, as `conversation`.
        case redial(conversation: String)
        /// Think time from a distribution.
        case wait(Distribution)
        /// Think time from the scenario's `behavior` (`answer_after` or `talk`); the first use in a call takes the
        /// arrival's pre-planned sample.
        case waitBehavior(String)
        /// One of the branches, chosen by probability (0…1 each, summing to at most 1; the rest does nothing).
        case branch([FlowBranch])
        case repeatSteps(count: Int, steps: [FlowStep])
        /// Race mode: the actions fired from one barrier, the second and later ones `offset` after the first
        /// (before it when negative). Their failures do not fail the flow: in a race someone loses.
        case together(steps: [FlowStep], offset: RaceOffset)
        /// The phone's own life acting on the role's device (issue 37): interrupted, manager_reset, relaunch,
        /// filtered. Never fails the flow: what follows finds the conversation as the event left it.
        case life(LifeStep)
    }
}

/// The gap between the first action of a `together` step and the others.
public enum RaceOffset: Sendable, Equatable {
    case fixed(Int64)
    /// From `from` to `to` by `step` (nanoseconds, may be negative): call k of the flow uses the k-th value,
    /// cycling, so repetitions spread evenly over the offsets.
    case sweep(from: Int64, to: Int64, step: Int64)

    /// The offset for the `index`-th call of the flow.
    public func value(forCall index: Int) -> Int64 {
        switch self {
        case .fixed(let v): return v
        case .sweep(let from, let to, let step):
            let count = Int64(max(1, (to - from) / step + 1))
            return from + (Int64(index) % count) * step
        }
    }

    public var values: [Int64] {
        switch self {
        case .fixed(let v): return [v]
        case .sweep(let from, let to, let step): return Array(stride(from: from, through: to, by: Int(step)))
        }
    }
}

public struct FlowBranch: Sendable, Equatable {
    public var probability: Double
    public var steps: [FlowStep]

    public init(probability: Double, steps: [FlowStep]) {
        self.probability = probability
        self.steps = steps
    }
}

/// How the simulated app's ConversationManager is configured (LiveCommunicationKit's `Configuration`).
public struct DeviceProfile: Sendable, Equatable {
    /// Capability names the app supports: video, pausing, merging, unmerging, playingTones.
    public var capabilities: [String]
    public var maximumConversationGroups: Int
    public var maximumConversationsPerConversationGroup: Int
    public var supportsVideo: Bool
    /// `socket`, `socket_reconnect`, `socket_linger`: the app's signaling socket (none by default).
    public var socket: SocketMode = .none
    public var socketReconnect = SocketReconnect()
    /// How long after its last live conversation ended an `on_push`/`foreground` app closes its socket.
    public var socketLingerNanos: UInt64 = 0
    /// `on_voip_without_call`: what the app does with a VoIP push it must report that carries no new call.
    public var onVoIPWithoutCall = VoIPWithoutCall.reportAndEnd
    /// `includes_in_recents`: the app's conversations show in Recents (false: a `redial` step is refused).
    public var includesInRecents = true
    /// `handles`, `supported_handles`: the devices' handle kinds and the kinds the app declares.
    public var handles = HandleMix()
    /// `signaling: sip` (with `sleep`, `transport`): the devices are SIP user agents; nil for HTTP devices.
    public var sip: SIPDeviceSpec?
    /// `relaunch`, `filtered_status`: the app's choices for its life events (issue 37).
    public var life = PhoneLifeOptions()

    public init(capabilities: [String] = ["pausing", "merging", "unmerging"], maximumConversationGroups: Int = 2,
                maximumConversationsPerConversationGroup: Int = 5, supportsVideo: Bool = false) {
        self.capabilities = capabilities
        self.maximumConversationGroups = maximumConversationGroups
        self.maximumConversationsPerConversationGroup = maximumConversationsPerConversationGroup
        self.supportsVideo = supportsVideo
    }
}
