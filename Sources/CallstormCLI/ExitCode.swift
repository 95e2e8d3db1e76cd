import Reports

/// callstorm's documented exit codes (README "Exit codes").
public enum ExitCode: Int32, Sendable {
    case passed = 0
    case thresholdsFailed = 1
    case invalidInput = 2
    case harnessFailure = 3
    /// The run did nothing: no device registered, no call started, or none of those started connected (answered,
    /// or unanswered as its flow's `expect` declares).
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

/// Everything that stops a command before or instead of a run. Cases carry what went wrong as data; the text a
/// user reads is made in one place (`description`), and the exit code in another (`exitCode`), as
/// swift-argument-parser keeps its errors typed until it prints them.
public enum CLIError: Error, CustomStringConvertible {
    case usage(String)
    /// `--flag` was given a value it cannot use; `expected` says what it takes.
    case badValue(flag: String, value: String, expected: String)
    /// `--flag` came last with no value after it.
    case missingValue(flag: String)
    case unknownFlag(flag: String, known: [String])
    case invalidScenario(String)
    /// A target, push listener or proxy address outside loopback that `--allow-remote` does not name.
    case nonLoopback(host: String, role: String)
    /// A file or run directory callstorm reads (`what`, e.g. "the results") could not be read at `path`.
    case cannotRead(what: String, path: String, cause: any Error)
    /// A file the run writes (`what`, e.g. "trace.jsonl" or "the report") could not be written into `directory`.
    case cannotWrite(what: String, directory: String, cause: any Error)
    /// Something the run needs could not be started (`what`, e.g. "the embedded servers").
    case cannotStart(what: String, cause: any Error)
    case harness(String)

    public var description: String {
        switch self {
        case .usage(let m): return Self.usageText(m)
        case .badValue(let flag, let value, let expected):
            let shown = value.isEmpty ? "an empty value" : "'\(value)'"
            return Self.usageText("--\(flag) takes \(expected), got \(shown)")
        case .missingValue(let flag): return Self.usageText("--\(flag) needs a value")
        case .unknownFlag(let flag, let known):
            return Self.usageText("unknown flag --\(flag) (known: \(known.map { "--\($0)" }.joined(separator: ", ")))")
        case .invalidScenario(let m): return m
        case .nonLoopback(let host, let role):
            return "refusing to use '\(host)' as the \(role): it is not a loopback address (127.0.0.0/8, ::1, "
                + "localhost). Nothing was sent. Pass --allow-remote \(host.contains(":") ? "[\(host)]" : host) "
                + "if you really mean that host."
        case .cannotRead(let what, let path, let cause): return "cannot read \(what) in \(path): \(cause)"
        case .cannotWrite(let what, let directory, let cause):
            return "callstorm failed: cannot write \(what) into \(directory): \(cause)"
        case .cannotStart(let what, let cause): return "callstorm failed: could not start \(what): \(cause)"
        case .harness(let m): return "callstorm failed: \(m)"
        }
    }

    public var exitCode: ExitCode {
        switch self {
        case .usage, .badValue, .missingValue, .unknownFlag, .invalidScenario, .nonLoopback, .cannotRead:
            return .invalidInput
        case .cannotWrite, .cannotStart, .harness: return .harnessFailure
        }
    }

    private static func usageText(_ message: String) -> String {
        "usage error: \(message)\nRun 'callstorm help' for the commands and their flags."
    }
}
