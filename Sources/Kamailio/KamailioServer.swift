import CLinux
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A real Kamailio (Debian's `kamailio`) started as a user process: on a loopback port free for both UDP and TCP,
/// its runtime files in a fresh temporary directory, ready once it answers an OPTIONS; stopped by its PID
/// (SIGTERM, which makes its main process end its children, then SIGKILL to it and to each child by PID if it
/// overran). `callstorm run` starts one for `target.sip.kamailio`; TestSupport's `KamailioProcess` is this type.
///
/// Started with posix_spawn, not Foundation's `Process`: Kamailio closes the descriptors it inherits, which
/// Foundation's monitor takes for an exit and then blocks in waitpid on it, so no other child of the process
/// (SIPp, a child target) would ever be seen to end.
///
/// Thread safety: `kill`, `restart` and `stop` from any thread (a chaos window restarts it from the fault
/// controller's queue while the run's thread may stop it); one at a time, under `process`.
public final class KamailioServer: @unchecked Sendable {
    /// SIP over UDP and TCP.
    public var port: Int { ports.sip }
    /// Every listener's port (TLS and WebSocket ones when `options.listeners` asks for them); a restart keeps
    /// them.
    public let ports: KamailioPorts
    /// The running main process; after a `kill`, the last one's until `restart`.
    public var pid: pid_t { process.withLock { $0.pid } }
    /// False between a `kill` and its `restart`, and after `stop`.
    public var running: Bool { process.withLock { $0.running } }
    /// Its runtime directory (`-Y`), removed at `stop`.
    public let directory: URL
    public let options: KamailioOptions
    private let modules: String
    private let process: Mutex<ProcessState>

    private struct ProcessState {
        var pid: pid_t
        var running = true
        var stopped = false
    }

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case noConfiguration(String)
        case noFreePort
        case cannotSpawn(Int32)
        case notReady(String)
        /// It exited before answering: its configuration refused, a module missing, the port taken meanwhile.
        case exited(String)

        public var description: String {
            switch self {
            case .notInstalled:
                return "kamailio or its modules are missing; install Debian's kamailio and kamailio-utils-modules "
                    + "(scripts/test-deps.sh does)"
            case .noConfiguration(let path): return "cannot read the Kamailio configuration '\(path)'"
            case .noFreePort: return "no loopback port free for both UDP and TCP"
            case .cannotSpawn(let code): return "could not start kamailio: \(String(cString: strerror(code)))"
            case .notReady(let log): return "kamailio did not answer OPTIONS in time; the end of its log:\n\(log)"
            case .exited(let log): return "kamailio exited as it started; the end of its log says why:\n\(log)"
            }
        }
    }

    /// The shipped configuration in this checkout (deploy/kamailio/kamailio.cfg).
    public static var configuration: URL { KamailioOptions.checkoutConfiguration }

    /// The directory holding tm.so (multiarch on Debian); nil when Kamailio's modules are not installed.
    public static var moduleDirectory: String? {
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? [])
            .map { "/usr/lib/\($0)/kamailio/modules" } + ["/usr/lib/kamailio/modules"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/tm.so") }
    }

    static let binary = "/usr/sbin/kamailio"

    /// Starts the shipped configuration with `defines` (`-A`) and waits until it answers.
    public convenience init(defines: [String] = []) throws {
        try self.init(options: KamailioOptions(defines: defines))
    }

    /// Starts Kamailio as `options` say and waits until it answers an OPTIONS; stopped again if it does not.
    /// A port another process took between the probe and Kamailio's bind (its log says "Address already in
    /// use") is not the configuration's fault: it tries again on a new port, three times in all.
    public init(options: KamailioOptions) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary), let modules = Self.moduleDirectory else {
            throw Failure.notInstalled
        }
        guard FileManager.default.isReadableFile(atPath: options.configuration.path) else {
            throw Failure.noConfiguration(options.configuration.path)
        }
        var attempt = 0
        while true {
            attempt += 1
            switch try Self.launch(options, modules: modules) {
            case .success(let started):
                let pid: pid_t
                (ports, pid, directory) = started
                process = Mutex(ProcessState(pid: pid))
                self.options = options
                self.modules = modules
                return
            case .failure(let failure):
                if case .exited(let log) = failure, log.contains("Address already in use"), attempt < 3 { continue }
                throw failure
            }
        }
    }

    /// One start on a fresh port and run directory, or on `again`'s (a restart); on failure nothing of it is left
    /// running, nor on disk unless `again` gave the directory.
    private static func launch(_ options: KamailioOptions, modules: String,
                               again: (ports: KamailioPorts, directory: URL)? = nil)
        throws -> Result<(KamailioPorts, pid_t, URL), Failure> {
        guard let ports = again?.ports ?? KamailioPorts.free(for: options.listeners) else { throw Failure.noFreePort }
        let port = ports.sip
        let directory = try again?.directory ?? makeRunDirectory()
        let logURL = options.logFile ?? directory.appendingPathComponent("kamailio.log")
        let child: pid_t
        do {
            if let listeners = options.listeners, listeners.needsTLS {
                try listeners.tlsConfiguration.write(toFile: directory.path + "/tls.cfg", atomically: true,
                                                     encoding: .utf8)
            }
            child = try spawn(binary, options.arguments(modules: modules, runDirectory: directory.path, ports: ports),
                              log: logURL.path, ownProcessGroup: options.ownProcessGroup)
        } catch {
            if again == nil { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
        var exited = false
        let ready = answersOptions(port: port, within: options.readySeconds) {
            var status: Int32 = 0
            exited = waitpid(child, &status, WNOHANG) == child
            return !exited
        }
        if ready { return .success((ports, child, directory)) }
        let text = String(((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").suffix(3000))
        if !exited { terminate(child) }  // an exited and reaped PID is not signalled again
        if again == nil { try? FileManager.default.removeItem(at: directory) }
        return .failure(exited ? .exited(text) : .notReady(text))
    }

    /// SIGTERM to the main process (it stops its children); SIGKILL to it and to each child by PID after 5 s.
    /// Idempotent.
    public func stop() {
        process.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.running { Self.terminate(state.pid) }
            state.running = false
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Ends the server as a crash or an orderly stop would (`SIGKILL`: the main process and each worker by PID,
    /// so no worker keeps a listening socket; `SIGTERM`: the main process stops its workers), and waits until it
    /// is gone. Its registrations, kept in memory, are lost with it. Nothing when it is not running.
    public func kill(signal: Int32) {
        process.withLock { state in
            guard state.running else { return }
            state.running = false
            if signal == SIGKILL {
                let workers = Self.children(of: state.pid)
                Glibc.kill(state.pid, SIGKILL)
                for worker in workers { Glibc.kill(worker, SIGKILL) }
                var status: Int32 = 0
                waitpid(state.pid, &status, 0)
                Self.awaitGone(workers, within: 5)
            } else {
                Self.terminate(state.pid)
            }
        }
    }

    /// Starts it again after `kill`, on the same ports and runtime directory, its log appended to, and waits until
    /// it answers an OPTIONS. Nothing when it is running or stopped for good.
    public func restart() throws {
        try process.withLock { (state: inout ProcessState) throws in
            guard !state.running, !state.stopped else { return }
            switch try Self.launch(options, modules: modules, again: (ports, directory)) {
            case .success(let started):
                state.pid = started.1
                state.running = true
            case .failure(let failure):
                throw failure
            }
        }
    }

    /// Waits until none of `pids` (orphans once their parent died) runs any more: gone, or a zombie, which holds
    /// no socket (whoever reaps orphans here may never reap it).
    private static func awaitGone(_ pids: [pid_t], within seconds: Double) {
        let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
        while clinux_monotonic_ns() < deadline, pids.contains(where: isRunning) {
            usleep(10_000)
        }
    }

    /// Whether `pid` exists and is not a zombie.
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// SIGTERM to `pid` (Kamailio's main process stops its children); SIGKILL to it and to each child by PID
    /// if it is still there after 5 s.
    static func terminate(_ pid: pid_t) {
        let children = children(of: pid)
        Glibc.kill(pid, SIGTERM)
        if !reaped(pid, within: 5) {
            Glibc.kill(pid, SIGKILL)
            for orphan in children { Glibc.kill(orphan, SIGKILL) }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    deinit { stop() }

    /// Kamailio's log (stdout and stderr, `-E`).
    public var log: String {
        let path = options.logFile ?? directory.appendingPathComponent("kamailio.log")
        return (try? String(contentsOf: path, encoding: .utf8)) ?? ""
    }

    // MARK: - Processes

    static func makeRunDirectory() throws -> URL {
        var template = Array((NSTemporaryDirectory() + "/callstorm-kamailio-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }) else {
            throw Failure.cannotSpawn(errno)
        }
        return URL(fileURLWithPath: String(cString: made))
    }

    /// Starts `path args` with stdout and stderr appended to `log`, stdin from /dev/null.
    public static func spawn(_ path: String, _ args: [String], log: String, ownProcessGroup: Bool) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw Failure.cannotSpawn(rc) }
        return pid
    }

    /// Whether `pid` exited (and was reaped) within `seconds`.
    public static func reaped(_ pid: pid_t, within seconds: Double) -> Bool {
        let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
        var status: Int32 = 0
        while clinux_monotonic_ns() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return true }
            usleep(20_000)
        }
        return false
    }

    /// The PIDs whose parent is `pid` (Kamailio's worker processes), read from /proc.
    public static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }
}
