import Dispatch
import Driver
import Foundation
import Metrics
import PushGateway
import Reports
import Results
import Scenario

/// `callstorm run FILE`: embedded servers, the driver, a progress line, the report, the exit code.
enum RunCommand {
    struct Options {
        var file: String
        var out: String?
        var targetURL: String?
        /// Hosts outside loopback the user named with `--allow-remote HOST`.
        var allowRemote: Set<String> = []
        var seed: UInt64?
        var durationNanos: UInt64?
        var workers: Int?
        var quiet = false
        /// `--ready-file PATH`: written once the devices registered and the load starts (RunSession+Ready.swift).
        var readyFile: String?
        /// `--trace N`: trace.jsonl holds the first N calls' requests, responses and pushes.
        var traceCalls = 0
        var distributed = DistributedOptions()
        /// `--otlp URL`: the OTLP/HTTP collector to export to (docs/OBSERVABILITY.md).
        var otlp: String?
    }

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let valued = DistributedOptions.valuedFlags.union(["out", "target", "seed", "duration", "workers",
                                                           "allow-remote", "trace", "otlp", "ready-file"])
        let parsed = try Arguments(args, valued: valued,
                                   boolean: ["help", "quiet"])
        if parsed.has("help") {
            print(Help.run)
            return .passed
        }
        guard parsed.positional.count == 1, let file = parsed.positional.first else {
            throw .usage("run takes exactly one scenario file")
        }
        var options = Options(file: file)
        options.out = parsed.value("out")
        options.targetURL = parsed.value("target")
        options.otlp = parsed.value("otlp")
        for flag in ["target", "clock-reference", "otlp"] {
            if let url = parsed.value(flag), Loopback.host(ofURL: url) == nil {
                throw .badValue(flag: flag, value: url, expected: "a URL with a host, like http://127.0.0.1:8080")
            }
        }
        options.allowRemote = try Loopback.allowedHosts(parsed.value("allow-remote"))
        options.quiet = parsed.has("quiet")
        options.readyFile = parsed.value("ready-file")
        options.distributed = try DistributedOptions.parse(parsed)
        if let s = parsed.value("seed") {
            guard let seed = UInt64(s) else {
                throw .badValue(flag: "seed", value: s, expected: "a whole number from 0 to \(UInt64.max)")
            }
            options.seed = seed
        }
        options.durationNanos = try parsed.duration("duration", allowZero: false)
        options.workers = try parsed.integer("workers", in: 1...256)
        options.traceCalls = try parsed.integer("trace", default: 0, in: 1...100_000)
        let outcome = try perform(options)
        print("report: \(outcome.reportPath)")
        return outcome.exitCode
    }

    struct Outcome {
        var reportPath: String
        var runDirectory: URL
        var exitCode: ExitCode
        var result: LoadDriver.Result
        var verdict: Verdict
    }

    /// The whole run (`RunSession`); separate from flag parsing so tests can drive it.
    static func perform(_ options: Options) throws(CLIError) -> Outcome {
        try RunSession(options).run()
    }

    static func defaultRunDirectory(_ name: String, _ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" }
        return "Reports/\(String(safe))-\(f.string(from: date))"
    }
}

/// One line a second on stderr: elapsed, calls started, active conversations, push-to-report p99 so far.
final class ProgressLine: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(driver: LoadDriver) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "callstorm.progress"))
        timer.setEventHandler {
            let p = driver.progress
            let line = String(format: "[%6.1fs] calls started %d, active %d, done %d | push→report p99 %.1f ms\n",
                              p.elapsedSeconds, p.callsStarted, p.activeConversations, p.callsCompleted,
                              Double(p.pushToReportP99Micros) / 1000)
            FileHandle.standardError.write(Data(line.utf8))
        }
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.resume()
    }

    func stop() { timer.cancel() }
}

enum Machine {
    static func describe() -> String {
        var u = utsname()
        uname(&u)
        let sys = withUnsafeBytes(of: &u.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let rel = withUnsafeBytes(of: &u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let arch = withUnsafeBytes(of: &u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let info = ProcessInfo.processInfo
        let gib = Double(info.physicalMemory) / Double(1 << 30)
        return "\(info.hostName) \(sys) \(rel) \(arch), \(info.activeProcessorCount) cores, " +
            String(format: "%.0f GiB", gib)
    }
}
