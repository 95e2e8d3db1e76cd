import CallModel
import RunFormats

/// One line of `history.jsonl`: what the driver observed, when, in the order it observed it.
///
/// `t` is nanoseconds since the run's origin on one monotonic clock; `line` is the 1-based line number in the file
/// (0 for events built in code). A checker judges real-time order by `t`, and "earlier in the history" by position.
public struct HistoryEvent: Sendable, Equatable {
    public var t: UInt64
    public var line: Int
    public var body: Body

    public init(t: UInt64, line: Int = 0, _ body: Body) {
        self.t = t
        self.line = line
        self.body = body
    }

    /// Indirect: a payload is 130-170 bytes (an invoke's eleven fields), copied whole each time an event was
    /// returned, appended or read out of the history's array (~800 instructions of `memcpy` a line in `callstorm
    /// check`); boxed, an event is three words.
    public indirect enum Body: Sendable, Equatable {
        /// A device asked the server to do something.
        case invoke(Invoke)
        /// The outcome of an invoke, matched by `op`.
        case complete(Complete)
        /// A push the device received.
        case push(Push)
        /// After a call: the server's `GET` of a conversation and one device's own view of it.
        case final(Final)
        /// The run ended; ops invoked and not completed by now are indeterminate.
        case stop
        /// callstorm killed the target (a `target` fault): every conversation it held is gone with it.
        case targetKilled
        /// A SIP message a device sent or received in a call (sampled; for timelines, not for verdicts).
        case sip(SIPLine)
        /// A device's SIP dialog changed state: what the SIP rules judge (`HistoryChecker+SIP`).
        case dialog(DialogLine)
        /// A device's RTP stream found its peer silent, or flowing while held (`HistoryChecker+Media`).
        case media(MediaLine)
    }
}

public enum Outcome: String, Sendable, CaseIterable {
    /// Fulfilled: the server answered with success.
    case ok
    /// Failed: the server refused; it did not take effect.
    case fail
    /// Indeterminate: timed out or no response; it may or may not have taken effect.
    case info
}

public struct Invoke: Sendable, Equatable {
    public var op: Int
    public var device: String
    public var kind: ActionKind
    /// Absent for `start`: the conversation is unknown until the response.
    public var conversation: String?
    /// merge: the other conversation, whose members move into `conversation`.
    public var with: String?
    /// unmerge: the device moved out into a conversation of its own.
    public var member: String?
    /// The planned call (arrival index) whose flow performed it, so a finding can be replayed; optional.
    public var call: Int?
    /// The flow step that performed it; optional.
    public var step: String?
    /// For an action of a `together` step: `<flow>/<step>` and the offset it fired at (nanoseconds).
    public var race: String?
    public var offset: Int64?
    /// The device's user (`users:`); nil when each device is its own.
    public var user: String?

    public init(op: Int, device: String, kind: ActionKind, conversation: String? = nil,
                with: String? = nil, member: String? = nil, call: Int? = nil, step: String? = nil,
                race: String? = nil, offset: Int64? = nil, user: String? = nil) {
        self.user = user
        self.op = op
        self.device = device
        self.kind = kind
        self.conversation = conversation
        self.with = with
        self.member = member
        self.call = call
        self.step = step
        self.race = race
        self.offset = offset
    }

    /// `touched`'s conversations one by one, in its order, without making the array (each op's invoke and
    /// complete walk them).
    @inline(__always)
    func eachTouched(_ body: (String) throws -> Void) rethrows {
        if let c = conversation { try body(c) }
        if let w = with, w != conversation { try body(w) }
    }

    /// The conversations this operation can change (the one it names, and a merge's other one).
    var touched: [String] {
        switch (conversation, with) {
        case let (c?, w?): return c == w ? [c] : [c, w]
        case let (c?, nil): return [c]
        case let (nil, w?): return [w]
        case (nil, nil): return []
        }
    }
}

public struct Complete: Sendable, Equatable {
    public var op: Int
    public var outcome: Outcome
    public var conversation: String?
    public var reason: String?
    /// The server's view of the conversation in the response.
    public var view: ConversationView?
    /// unmerge only: the new conversation.
    public var split: ConversationView?

    public init(op: Int, outcome: Outcome, conversation: String? = nil, reason: String? = nil,
                view: ConversationView? = nil, split: ConversationView? = nil) {
        self.op = op
        self.outcome = outcome
        self.conversation = conversation
        self.reason = reason
        self.view = view
        self.split = split
    }
}

/// A push line's `event`: the words RunFormats' `HistoryText` writes.
public typealias PushEvent = HistoryPushEvent

public struct Push: Sendable, Equatable {
    public var device: String
    public var event: PushEvent
    public var conversation: String?
    /// merged: the conversation the device is now in (`view` is that conversation's).
    public var into: String?
    public var view: ConversationView?
    /// The device's user (`users:`); nil when each device is its own.
    public var user: String?
    /// ended: why, where the push says (`joinedElsewhere`, `declinedElsewhere`: the conversation goes on on
    /// another device of the user, only this device left it).
    public var reason: String?

    public init(device: String, event: PushEvent, conversation: String? = nil, into: String? = nil,
                view: ConversationView? = nil, user: String? = nil, reason: String? = nil) {
        self.user = user
        self.reason = reason
        self.device = device
        self.event = event
        self.conversation = conversation
        self.into = into
        self.view = view
    }
}

public struct Final: Sendable, Equatable {
    public var device: String
    public var conversation: String
    /// The server's `GET`; nil when the server did not answer it.
    public var server: ConversationView?
    public var local: LocalView
    /// The device's user (`users:`); nil when each device is its own.
    public var user: String?

    public init(device: String, conversation: String, server: ConversationView?, local: LocalView,
                user: String? = nil) {
        self.user = user
        self.device = device
        self.conversation = conversation
        self.server = server
        self.local = local
    }
}

/// A device's own view of a conversation; `members` and `active` exclude the device itself.
public struct LocalView: Sendable, Equatable {
    public var state: MemberState
    public var members: [String]
    public var active: [String]

    public init(state: MemberState, members: [String], active: [String]) {
        self.state = state
        self.members = members
        self.active = active
    }
}

/// A SIP message in a call: `message` is a method (`INVITE`, `ACK`, `BYE`, `CANCEL`), `re-INVITE`, or a response's
/// `<status> <METHOD>` (`200 INVITE`, `487 INVITE`); `conversation` is the Call-ID.
public struct SIPLine: Sendable, Equatable {
    public var device: String
    public var conversation: String
    public var sent: Bool
    public var message: String

    public init(device: String, conversation: String, sent: Bool, message: String) {
        self.device = device
        self.conversation = conversation
        self.sent = sent
        self.message = message
    }
}

/// The words of a dialog line's `state`.
public typealias DialogState = HistoryDialogState

/// One device's SIP dialog for Call-ID `conversation` entered `state` (a terminated one with its `reason`).
public struct DialogLine: Sendable, Equatable {
    public var device: String
    public var conversation: String
    public var state: DialogState
    public var reason: String?
    /// The planned call (arrival index), to trace a finding; optional.
    public var call: Int?
    /// The device's user (`users:`); absent in histories without users.
    public var user: String?

    public init(device: String, conversation: String, state: DialogState, reason: String? = nil, call: Int? = nil,
                user: String? = nil) {
        self.device = device
        self.conversation = conversation
        self.state = state
        self.reason = reason
        self.call = call
        self.user = user
    }
}

/// What a `media` line says (its `reason`).
public typealias MediaFinding = HistoryMediaFinding

/// Device `device`'s RTP stream in Call-ID `conversation` found `finding`.
public struct MediaLine: Sendable, Equatable {
    public var device: String
    public var conversation: String
    public var finding: MediaFinding
    public var call: Int?

    public init(device: String, conversation: String, finding: MediaFinding, call: Int? = nil) {
        self.device = device
        self.conversation = conversation
        self.finding = finding
        self.call = call
    }
}
