/// The `type` of a history line: the writer (`HistoryText`) and the checker's reader use these words only.
public enum HistoryLineType: String, Sendable, CaseIterable {
    case invoke, complete, push, final, stop
    case targetKilled = "target_killed"
}

/// The `event` of a history `push` line.
public enum HistoryPushEvent: String, Sendable, CaseIterable {
    case joined, updated, ended, merged, split, voip
}
