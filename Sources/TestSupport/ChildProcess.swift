import CLinux
import Foundation
import XCTest

/// A program a test runs as a child process (the release `callstorm` binary, curl, python3, h2load), its output
/// going to files in `logs`, stopped by its own PID when it overruns (never by name).
public struct ChildProcess {
    public let process: Process
    public let stdout: URL
    public let stderr: URL

    /// The callstorm binary `make test` exports as `CALLSTORM_BIN` (the debug one `swift test` builds), if it is there.
    public static var callstormBinary: String? {
        ProcessInfo.processInfo.environment["CALLSTORM_BIN"].flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
    }

    /// Starts `executable args` in `directory`, its output going to `<logs>/<name>.out` and `.err`.
    public static func start(_ executable: String, _ args: [String], in directory: URL, logs: URL,
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
    public func wait(seconds: Double) -> Int32? {
        if Self.exits(process, within: seconds, pollMicros: 50_000) { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        if !Self.exits(process, within: 2, pollMicros: 10_000) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return nil
    }

    /// Kills the child at once if it still runs (a test's `defer`).
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var errorText: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
    public var outputText: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }

    /// Runs to completion and returns (exit status, stdout, stderr); nil status when it overran.
    public static func run(_ executable: String, _ args: [String], in directory: URL, logs: URL, name: String,
                           seconds: Double = 120) throws -> (status: Int32?, out: String, err: String) {
        let child = try start(executable, args, in: directory, logs: logs, name: name)
        let status = child.wait(seconds: seconds)
        return (status, child.outputText, child.errorText)
    }

    /// Whether `process` exits within `seconds`, polling every `pollMicros` on the monotonic clock.
    static func exits(_ process: Process, within seconds: Double, pollMicros: useconds_t) -> Bool {
        let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
        // sleep-ok: Process offers no wait with a deadline; the loop ends as soon as the child has exited
        while process.isRunning && clinux_monotonic_ns() < deadline { usleep(pollMicros) }
        return !process.isRunning
    }
}

/// What an external tool printed, and how it exited.
public struct ToolRun {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an external program found on PATH (curl, python3, h2load, openssl) and collects what it printed. The
/// tools are installed by `scripts/test-deps.sh`, which `make test` runs first, so a missing one is a failure,
/// not a skip.
public enum ExternalTool {
    /// Runs `tool` with `arguments`; past `timeout` seconds terminates it and fails the calling test.
    public static func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 30,
                           file: StaticString = #filePath, line: UInt = #line) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the tool runs, so a chatty tool cannot block on a full pipe.
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        if !ChildProcess.exits(process, within: timeout, pollMicros: 10_000) {
            process.terminate()
            XCTFail("\(tool) ran longer than \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        group.wait()
        return ToolRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }
}
