/// The actions of LiveCommunicationKit's vocabulary (CallKit's name in the comment).
public enum ActionKind: String, Sendable, Hashable, Codable, CaseIterable {
    case start      // CXStartCallAction
    case join       // CXAnswerCallAction
    case end        // CXEndCallAction
    case pause      // CXSetHeldCallAction(isOnHold: true)
    case resume     // CXSetHeldCallAction(isOnHold: false)
    case merge      // CXSetGroupCallAction
    case unmerge    // CXSetGroupCallAction(nil)

    /// The capability the conversation must have for this action, if any.
    public var requiredCapability: Capabilities? {
        switch self {
        case .pause, .resume: return .pausing
        case .merge: return .merging
        case .unmerge: return .unmerging
        case .start, .join, .end: return nil
        }
    }
}

/// How an action finished. A timed-out action may never be fulfilled afterwards.
public enum ActionOutcome: Sendable, Equatable {
    case fulfilled
    case failed(reason: String)
    case timedOut

    public var label: String {
        switch self {
        case .fulfilled: return "fulfilled"
        case .failed: return "failed"
        case .timedOut: return "timed_out"
        }
    }
}

/// An action in flight. Its outcome is set exactly once; later attempts are ignored and say so,
/// as a second `fulfill()` on a LiveCommunicationKit action has no effect.
public struct Action: Sendable, Equatable {
    public let id: UInt64
    public let kind: ActionKind
    public let conversationUUID: String
    /// When the plan wanted it to start, and when it did (monotonic ns), so lag can be measured.
    public let plannedNanos: UInt64
    public let startedNanos: UInt64
    /// Past this instant the action counts as timed out.
    public let timeoutNanos: UInt64
    public private(set) var outcome: ActionOutcome?
    public private(set) var finishedNanos: UInt64?

    public init(id: UInt64, kind: ActionKind, conversationUUID: String, plannedNanos: UInt64,
                startedNanos: UInt64, timeoutNanos: UInt64) {
        self.id = id
        self.kind = kind
        self.conversationUUID = conversationUUID
        self.plannedNanos = plannedNanos
        self.startedNanos = startedNanos
        self.timeoutNanos = timeoutNanos
    }

    public var isFinished: Bool { outcome != nil }

    /// Sets the outcome if none is set yet. Returns false (and changes nothing) otherwise.
    /// A fulfilment arriving after the timeout instant is recorded as a time-out instead.
    @discardableResult
    public mutating func finish(_ result: ActionOutcome, at nanos: UInt64) -> Bool {
        guard outcome == nil else { return false }
        if result == .fulfilled, nanos > timeoutNanos {
            outcome = .timedOut
        } else {
            outcome = result
        }
        finishedNanos = nanos
        return true
    }
}
