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
    public let port: Int
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
    public init(options: KamailioOptions) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary), let modules = Self.moduleDirectory else {
            throw Failure.notInstalled
        }
        guard FileManager.default.isReadableFile(atPath: options.configuration.path) else {
            throw Failure.noConfiguration(options.configuration.path)
        }
        guard let port = Self.freePort() else { throw Failure.noFreePort }
        self.port = port
        self.options = options
        directory = try Self.makeRunDirectory()
        let log = options.logFile?.path ?? directory.appendingPathComponent("kamailio.log").path
        do {
            pid = try Self.spawn(Self.binary, options.arguments(modules: modules, runDirectory: directory.path,
                                                                 port: port),
                                 log: log, ownProcessGroup: options.ownProcessGroup)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        var exited = false
        let child = pid
        let ready = Self.answersOptions(port: port, within: options.readySeconds) {
            var status: Int32 = 0
            exited = waitpid(child, &status, WNOHANG) == child
            return !exited
        }
        guard ready else {
            let text = self.log
            stopped = exited  // an exited and reaped PID is not signalled again
            stop()
            try? FileManager.default.removeItem(at: directory)
            throw exited ? Failure.exited(String(text.suffix(3000))) : Failure.notReady(String(text.suffix(3000)))
        }
    }

    /// SIGTERM to the main process (it stops its children); SIGKILL to it and to each child by PID after 5 s.
    /// Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        let children = Self.children(of: pid)
        kill(pid, SIGTERM)
        if !Self.reaped(pid, within: 5) {
            kill(pid, SIGKILL)
            for orphan in children { kill(orphan, SIGKILL) }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: directory)
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
    static func spawn(_ path: String, _ args: [String], log: String, ownProcessGroup: Bool) throws -> pid_t {
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
    static func reaped(_ pid: pid_t, within seconds: Double) -> Bool {
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
