import CLinux
import Foundation
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
/// Thread safety: `stop` from one thread at a time (the owner's).
public final class KamailioServer {
    /// SIP over UDP and TCP.
    public var port: Int { ports.sip }
    /// Every listener's port (TLS and WebSocket ones when `options.listeners` asks for them).
    public let ports: KamailioPorts
    public let pid: pid_t
    /// Its runtime directory (`-Y`), removed at `stop`.
    public let directory: URL
    public let options: KamailioOptions
    private var stopped = false

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
                (ports, pid, directory) = started
                self.options = options
                return
            case .failure(let failure):
                if case .exited(let log) = failure, log.contains("Address already in use"), attempt < 3 { continue }
                throw failure
            }
        }
    }

    /// One start on a fresh port and run directory; on failure nothing of it is left running or on disk.
    private static func launch(_ options: KamailioOptions, modules: String)
        throws -> Result<(KamailioPorts, pid_t, URL), Failure> {
        guard let ports = KamailioPorts.free(for: options.listeners) else { throw Failure.noFreePort }
        let port = ports.sip
        let directory = try makeRunDirectory()
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
            try? FileManager.default.removeItem(at: directory)
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
        try? FileManager.default.removeItem(at: directory)
        return .failure(exited ? .exited(text) : .notReady(text))
    }

    /// SIGTERM to the main process (it stops its children); SIGKILL to it and to each child by PID after 5 s.
    /// Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        Self.terminate(pid)
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGTERM to `pid` (Kamailio's main process stops its children); SIGKILL to it and to each child by PID
    /// if it is still there after 5 s.
    static func terminate(_ pid: pid_t) {
        let children = children(of: pid)
        kill(pid, SIGTERM)
        if !reaped(pid, within: 5) {
            kill(pid, SIGKILL)
            for orphan in children { kill(orphan, SIGKILL) }
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
