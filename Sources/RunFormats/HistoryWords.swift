/// The `type` of a history line: the writer (`HistoryText`) and the checker's reader use these words only.
public enum HistoryLineType: String, Sendable, CaseIterable {
    case invoke, complete, push, final, stop
    case targetKilled = "target_killed"
    /// A SIP message a device's user agent sent or received in a call (sampled by call, like actions.csv).
    case sip
    /// A SIP dialog's state at one device changed (never sampled: the checker judges SIP calls by these).
    case dialog
}

/// The `event` of a history `push` line.
public enum HistoryPushEvent: String, Sendable, CaseIterable {
    case joined, updated, ended, merged, split, voip
}

/// The `state` of a history `dialog` line: RFC 3261's dialog states as one device's user agent holds them, with
/// `held` for a confirmed dialog this device put on hold (its re-INVITE `a=sendonly` was answered 200); a dialog
/// the other side holds stays `confirmed` here, as LiveCommunicationKit's member state is the device's own.
public enum HistoryDialogState: String, Sendable, CaseIterable {
    case early, confirmed, held, terminated
}
