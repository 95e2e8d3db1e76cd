/// The `type` of a history line: the writer (`HistoryText`) and the checker's reader use these words only.
public enum HistoryLineType: String, Sendable, CaseIterable {
    case invoke, complete, push, final, stop
    case targetKilled = "target_killed"
    /// A SIP message a device's user agent sent or received in a call (sampled by call, like actions.csv).
    case sip
    /// A SIP dialog's state at one device changed (never sampled: the checker judges SIP calls by these).
    case dialog
    /// What a device's RTP stream found in a call with media (`HistoryMediaFinding`, in `reason`; never sampled).
    case media
}

/// What a `media` line says (its `reason`): a device heard nothing from its peer for the one-way threshold while it
/// expected audio (`silent`), or kept hearing it more than the threshold after it put the call on hold
/// (`flowing_while_held`). The checker judges them against the devices' dialogs (docs/CHECKER.md).
public enum HistoryMediaFinding: String, Sendable, CaseIterable {
    case silent
    case flowingWhileHeld = "flowing_while_held"
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
