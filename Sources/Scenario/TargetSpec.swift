/// The call server a run drives.
public enum TargetSpec: Sendable, Equatable {
    /// callstorm's own reference server, started in-process; the default so `callstorm run` works out of the box.
    case embedded
    /// A server already running at this base URL (`http://` or `https://`).
    case url(String)
}
