import Foundation
import Results

/// The reference target run as a child process (`target: { embedded: true, process: true }`), so a fault window
/// can kill it like a crash and start it again on the same port. Registrations survive in a file (as in a
/// server with a database); conversations in memory are lost, as in a real crash.
///
/// Every signal goes to the child's own PID; the child also exits by itself if this process dies
/// (`--exit-with-parent`). Thread safety: call from one thread at a time (the fault controller's queue and,
/// before and after the run, the run's thread).
final class TargetProcess: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case noExecutable
        case didNotStart(String)

        var description: String {
            switch self {
            case .noExecutable:
                return "'target.process' runs the callstorm executable as the target, but this process is not it "
                    + "and CALLSTORM_BIN is not set"
            case .didNotStart(let why): return "the target process did not start: \(why)"
            }
        }
    }

    private let executable: String
    private let baseArguments: [String]
    private let directory: URL
    private var process: Process?
    private(set) var port = 0
    private(set) var starts = 0

    /// - Parameters:
    ///   - arguments: what `callstorm target` needs beyond `--listen` (gateway URL, keys, bugs).
    ///   - directory: the run directory: the registrations file and the child's logs go there.
    init(arguments: [String], directory: URL) throws {
        guard let executable = Self.callstormExecutable() else { throw Failure.noExecutable }
        self.executable = executable
        self.directory = directory
        baseArguments = ["target", "--exit-with-parent",
                         "--registrations", RunBundle(directory).targetRegistrations.path]
            + arguments
    }

    /// This executable when it is callstorm, else `CALLSTORM_BIN` (tests drive runs from the test process).
    static func callstormExecutable() -> String? {
        if let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
           URL(fileURLWithPath: me).lastPathComponent == "callstorm" {
            return me
        }
        return ProcessInfo.processInfo.environment["CALLSTORM_BIN"].flatMap {
            FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    var pid: Int32? { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }

    /// Starts the child (on a free port the first time, on the same port after that) and returns once it
    /// answers, or throws after `timeout` seconds with the child stopped.
    func start(timeout: Double = 10) throws {
        let out = RunBundle(directory).targetOutput(start: starts + 1)
        let err = RunBundle(directory).targetErrors(start: starts + 1)
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = baseArguments + ["--listen", "127.0.0.1:\(port)"]
        child.standardOutput = try FileHandle(forWritingTo: out)
        child.standardError = try FileHandle(forWritingTo: err)
        child.standardInput = FileHandle.nullDevice
        try child.run()
        process = child
        starts += 1
        // The banner names the port once the server listens.
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOf: out, encoding: .utf8),
               let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let p = Int(digits) {
                    port = p
                    return
                }
            }
            if !child.isRunning {
                let why = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
                throw Failure.didNotStart("exited with status \(child.terminationStatus): \(why)")
            }
            usleep(10_000)
        }
        stop()
        throw Failure.didNotStart("no 'listening' line within \(timeout) s (see \(out.lastPathComponent))")
    }

    /// Sends `signal` to the child's PID and waits for it to exit.
    func kill(signal: Int32 = SIGKILL) {
        guard let child = process, child.isRunning else { return }
        Glibc.kill(child.processIdentifier, signal)
        child.waitUntilExit()
    }

    /// Stops the child: SIGTERM, then SIGKILL after two seconds.
    func stop() {
        guard let child = process, child.isRunning else { return }
        Glibc.kill(child.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while child.isRunning, Date() < deadline { usleep(10_000) }
        if child.isRunning {
            Glibc.kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
    }
}
