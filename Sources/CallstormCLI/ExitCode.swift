import Reports

/// callstorm's documented exit codes (README "Exit codes").
public enum ExitCode: Int32, Sendable {
    case passed = 0
    case thresholdsFailed = 1
    case invalidInput = 2
    case harnessFailure = 3
    /// The run did nothing: no device registered, no call started, or none of those started completed.
    case nothingDone = 4
    case interrupted = 130

    /// The code of a finished run's verdict (after the harness's own failures): an interrupted run is 130,
    /// one that did nothing 4, a failed threshold 1.
    static func of(_ verdict: Verdict, interrupted: Bool) -> ExitCode {
        if interrupted { return .interrupted }
        if verdict.nothingDone != nil { return .nothingDone }
        return verdict.passed ? .passed : .thresholdsFailed
    }
}

/// Everything that stops a command before or instead of a run, with the text a user needs to act on it.
public enum CLIError: Error, CustomStringConvertible {
    case usage(String)
    case invalidScenario(String)
    /// A target, push listener or proxy address outside loopback that `--allow-remote` does not name.
    case nonLoopback(host: String, role: String)
    case harness(String)

    public var description: String {
        switch self {
        case .usage(let m): return "usage error: \(m)\nRun 'callstorm help' for the commands and their flags."
        case .invalidScenario(let m): return m
        case .nonLoopback(let host, let role):
            return "refusing to use '\(host)' as the \(role): it is not a loopback address (127.0.0.0/8, ::1, "
                + "localhost). Nothing was sent. Pass --allow-remote \(host.contains(":") ? "[\(host)]" : host) "
                + "if you really mean that host."
        case .harness(let m): return "callstorm failed: \(m)"
        }
    }

    public var exitCode: ExitCode {
        switch self {
        case .usage, .invalidScenario, .nonLoopback: return .invalidInput
        case .harness: return .harnessFailure
        }
    }
}
