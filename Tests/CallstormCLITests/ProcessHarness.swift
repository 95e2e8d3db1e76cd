import Foundation
import XCTest

/// Runs the release binary (`CALLSTORM_BIN`, exported by `make test`) and other tools as child processes, each
/// stopped by its PID when it overruns its time limit.
struct ChildProcess {
    let process: Process
    let stdout: URL
    let stderr: URL

    static var callstormBinary: String? {
        ProcessInfo.processInfo.environment["CALLSTORM_BIN"].flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
    }

    /// Starts `executable args` in `directory`, its output going to files in `logs`.
    static func start(_ executable: String, _ args: [String], in directory: URL, logs: URL,
                      name: String) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        process.currentDirectoryURL = directory
        let out = logs.appendingPathComponent("\(name).out")
        let err = logs.appendingPathComponent("\(name).err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        return ChildProcess(process: process, stdout: out, stderr: err)
    }

    /// Waits up to `seconds`; past that sends SIGTERM, then SIGKILL, to this PID only, and returns nil.
    func wait(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            usleep(2_000_000)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var errorText: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
    var outputText: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }

    /// Runs to completion and returns (exit status, stdout, stderr); nil status when it overran.
    static func run(_ executable: String, _ args: [String], in directory: URL, logs: URL, name: String,
                    seconds: Double = 120) throws -> (status: Int32?, out: String, err: String) {
        let child = try start(executable, args, in: directory, logs: logs, name: name)
        let status = child.wait(seconds: seconds)
        return (status, child.outputText, child.errorText)
    }
}

/// A summary.json read back loosely: counters and metric figures.
struct SummaryFile {
    var counters: [String: Int64]
    var metrics: [String: [String: Double]]
    var passed: Bool
    var reasons: [String]
    var notes: [String]

    init(_ url: URL) throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        counters = (json["counters"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.int64Value }
        metrics = (json["metrics"] as? [String: Any] ?? [:]).compactMapValues { value in
            (value as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        let verdict = json["verdict"] as? [String: Any] ?? [:]
        passed = verdict["passed"] as? Bool ?? false
        reasons = verdict["reasons"] as? [String] ?? []
        notes = json["notes"] as? [String] ?? []
    }
}
