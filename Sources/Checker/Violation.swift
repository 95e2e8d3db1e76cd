/// The rules the checker holds a history to. Raw values are the stable names reports and tests use.
public enum Rule: String, Sendable, CaseIterable, Codable {
    case oneOutcome = "every-action-has-one-outcome"
    case mergeUnion = "merge-yields-union"
    case singleActive = "no-device-active-in-two-unheld-conversations"
    case endedStaysEnded = "ended-conversation-never-reappears"
    case unmergeRestores = "unmerge-restores-member"
    case unmergePolicy = "unmerge-follows-policy"
    case versionsIncrease = "versions-only-increase"
    case finalViewsAgree = "final-views-agree-with-server"
    /// SIP: a dialog one user agent confirmed (a 2xx to the INVITE sent or received) is confirmed at the other.
    case dialogConfirmedAtBothEnds = "dialog-confirmed-at-both-ends"
    /// Media: a member a device's conversation shows joined (its dialog confirmed, not held) sends it audio
    /// (LiveCommunicationKit's `activeRemoteMembers`: media actively flowing).
    case joinedMemberSendsMedia = "joined-member-sends-media"
    /// Media: a member a device put on hold stops sending it audio.
    case heldMemberSendsNoMedia = "held-member-sends-no-media"
    /// Users with several devices: after one device of a user answered (or declined) a conversation, none of the
    /// user's other devices rings it past the declared grace, and its final view agrees it does not hold the call.
    case elsewhereStopsRinging = "elsewhere-stops-ringing"
    /// The phone's life (issue 37): what the system made a device tell its server takes effect there: an end made
    /// by an interruption, a reset, a relaunch or a filter leaves the device out; an interruption's hold holds it.
    case lifeEventTakesEffect = "life-event-takes-effect"

    /// What a rule judges: what LiveCommunicationKit and the conversation model require of any server, or a
    /// choice a server may make, held to only when the scenario declares it (`ServerPolicy`).
    public enum Kind: String, Sendable {
        case invariant, policy
    }

    public var kind: Kind { self == .unmergePolicy ? .policy : .invariant }
}

/// One broken rule, with what a person needs to find it in the history.
public struct Violation: Sendable, Equatable, Codable {
    public var rule: Rule
    public var conversations: [String]
    public var ops: [Int]
    public var devices: [String]
    /// One line saying what the server or device did wrong.
    public var message: String
    /// `t` of the first relevant event through `t` of the event that broke the rule.
    public var window: ClosedRange<UInt64>
    /// Indices into the checked events (0-based; `HistoryEvent.line` gives the file line) of the events that show
    /// the violation, ascending; the last is the event that broke the rule.
    public var events: [Int]

    public init(rule: Rule, conversations: [String], ops: [Int], devices: [String], message: String,
                window: ClosedRange<UInt64>, events: [Int]) {
        self.rule = rule
        self.conversations = conversations
        self.ops = ops
        self.devices = devices
        self.message = message
        self.window = window
        self.events = events
    }

    /// The index of the event at which the rule broke.
    public var breakingEvent: Int? { events.last }
}

/// What a check found.
public struct CheckReport: Sendable, Codable, Equatable {
    /// Invokes in the history.
    public var operations: Int
    public var rulesChecked: [Rule]
    /// Rules that could not run on this history (rule name → why); nil when every rule ran.
    public var rulesSkipped: [String: String]?
    public var violations: [Violation]
    /// Ops that completed with `info`, or never completed: both outcomes were accepted for them.
    public var indeterminate: Int
    /// Findings whose path an injected fault touched (`FaultAttribution`): reported apart from `violations`,
    /// which hold only what no injected fault could have caused. Nil when the run injected no fault.
    public var attributed: [AttributedViolation]?

    public init(operations: Int, rulesChecked: [Rule], violations: [Violation], indeterminate: Int) {
        self.operations = operations
        self.rulesChecked = rulesChecked
        self.violations = violations
        self.indeterminate = indeterminate
    }

    public var passed: Bool { violations.isEmpty }

    /// Violations per rule, every rule listed (zero included), in `Rule.allCases` order.
    public var countsByRule: [(rule: Rule, count: Int)] {
        rulesChecked.map { r in (r, violations.filter { $0.rule == r }.count) }
    }
}
