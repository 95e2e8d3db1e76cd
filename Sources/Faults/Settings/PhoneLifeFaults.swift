import Quantities

/// `device: { interrupted: …, manager_reset: …, relaunch: …, filtered: … }`: the phone's own life reaching the
/// server (issue 37). Each is a share of the window's call parts, drawn per part from the seed: an interruption,
/// a reset and a relaunch hit a device whose call just connected, `life_after` later; a filter hits a device
/// whose call rings, as it rings.
public struct PhoneLifeFaults: Sendable, Equatable {
    /// Another call interrupts: the system holds or ends this app's conversation.
    public var interrupted: Double = 0
    /// What the system does to an interrupted conversation (`interrupted_action`): hold, end, or either (seeded).
    public var interruption = Interruption.either
    /// The system resets the conversation manager: every conversation ends locally.
    public var managerReset: Double = 0
    /// The app is terminated and relaunched while the server holds its calls.
    public var relaunch: Double = 0
    /// Do Not Disturb or a block list refuses an incoming call as it rings.
    public var filtered: Double = 0
    /// How long after the call connects an interruption, a reset or a relaunch comes (default 200 ms).
    public var after: Distribution?

    public init() {}

    /// Whether the window asks for any of them.
    public var isEmpty: Bool { interrupted == 0 && managerReset == 0 && relaunch == 0 && filtered == 0 }
}

/// What the system does to an interrupted conversation.
public enum Interruption: String, Sendable, Equatable, CaseIterable {
    case hold, end
    /// Hold or end, drawn from the seed per event.
    case either
}

/// One event of the phone's life, as a chaos window draws it or a flow step names it.
public enum LifeEvent: Sendable, Equatable {
    /// The system holds (`hold: true`) or ends the conversation: another call came.
    case interrupted(hold: Bool)
    /// Every conversation of the device ends locally; the device tells its server of each end.
    case managerReset
    /// The app starts cold after a termination, registers again and reconciles with the calls the server holds.
    case relaunch
    /// An incoming call refused by Do Not Disturb or a block list: reported, ended at once, the server told.
    case filtered

    /// The word scenarios, counters (`life.<word>`) and the history's step (`life.<word>`) use.
    public var word: String {
        switch self {
        case .interrupted: return "interrupted"
        case .managerReset: return "manager_reset"
        case .relaunch: return "relaunch"
        case .filtered: return "filtered"
        }
    }

    /// The history's step for the actions it makes: `life.<word>` (the checker's `life-event-takes-effect` reads it).
    public var step: String { "life.\(word)" }

    /// The `faults.csv` kind when a window's fault made it: `device.<word>` (`device.interrupted_hold`).
    public var faultKind: String {
        if case .interrupted(let hold) = self { return "device.interrupted_\(hold ? "hold" : "end")" }
        return "device.\(word)"
    }
}

/// The four life events by name, as a flow step's `do:` writes them.
public enum LifeEventKind: String, Sendable, Equatable, CaseIterable {
    case interrupted
    case managerReset = "manager_reset"
    case relaunch
    case filtered
}

/// A flow step of the phone's life: `{ role: callee, do: interrupted, then: hold }`, `do: manager_reset`,
/// `do: relaunch`, `do: filtered` (each on `conversation`, `main` by default).
public struct LifeStep: Sendable, Equatable {
    public var kind: LifeEventKind
    /// `interrupted` only: hold, end, or either (drawn from the call's seed).
    public var interruption: Interruption
    public var conversation: String

    public init(kind: LifeEventKind, interruption: Interruption = .either, conversation: String) {
        self.kind = kind
        self.interruption = interruption
        self.conversation = conversation
    }
}

/// The app's choices for its life events (`device.relaunch`, `device.filtered_status`).
public struct PhoneLifeOptions: Sendable, Equatable {
    /// After a relaunch: end the calls the server still holds (`end`), or keep those it still holds the device
    /// in (`rejoin`).
    public var relaunch = RelaunchReconcile.end
    /// The SIP answer to a filtered INVITE: 486 Busy Here or 603 Decline.
    public var filteredStatus = 603

    public init() {}
}

/// How a relaunched app reconciles with the calls its server still holds.
public enum RelaunchReconcile: String, Sendable, Equatable, CaseIterable {
    case end, rejoin
    /// A server that offers no list of a device's calls: the device ends what it finds on its next push or socket
    /// event.
    case endOnEvent = "end_on_event"
}
