import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Kamailio (Debian's `kamailio`, installed by scripts/test-deps.sh) started as a user process with the
/// configuration shipped in deploy/kamailio/, on a free loopback port for both UDP and TCP, small memory pools,
/// its runtime files in a temporary directory; ready once it answers an OPTIONS; stopped by its PID (SIGTERM,
/// which makes its main process end its children, then SIGKILL to each by PID if it overran).
///
/// Started with posix_spawn, not Foundation's `Process`: Kamailio closes the descriptors it inherits, which
/// Foundation's monitor takes for an exit and then blocks in waitpid on it, so no other child of the test
/// process (SIPp) would ever be seen to end.
public final class KamailioProcess {
    public let port: Int
    public let pid: pid_t
    public let directory: URL
    private var stopped = false

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case noFreePort
        case notReady(String)

        public var description: String {
            switch self {
            case .notInstalled: return "kamailio or its modules are missing; run scripts/test-deps.sh"
            case .noFreePort: return "no loopback port free for both UDP and TCP"
            case .notReady(let log): return "kamailio did not answer OPTIONS within 20 s; its log:\n\(log)"
            }
        }
    }

    /// deploy/kamailio/kamailio.cfg in this checkout.
    public static var configuration: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/kamailio/kamailio.cfg")
    }

    /// The directory holding tm.so (multiarch on Debian).
    static var moduleDirectory: String? {
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? [])
            .map { "/usr/lib/\($0)/kamailio/modules" } + ["/usr/lib/kamailio/modules"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/tm.so") }
    }

    /// Starts Kamailio and waits until it answers; `defines` become `-A` pre-processor defines.
    public init(defines: [String] = []) throws {
        let binary = "/usr/sbin/kamailio"
        guard FileManager.default.isExecutableFile(atPath: binary), let modules = Self.moduleDirectory else {
            throw Failure.notInstalled
        }
        guard let port = Self.freePort() else { throw Failure.noFreePort }
        self.port = port
        directory = try TemporaryDirectory.make("kamailio")
        var args = ["-f", Self.configuration.path, "-DD", "-E", "-L", modules, "-Y", directory.path,
                    "-l", "udp:127.0.0.1:\(port)", "-l", "tcp:127.0.0.1:\(port)", "-m", "32", "-M", "8"]
        for define in defines { args += ["-A", define] }
        pid = try Self.spawn(binary, args, log: directory.appendingPathComponent("kamailio.log").path)
        guard Self.answersOptions(port: port, within: 20) else {
            let log = self.log
            stop()
            throw Failure.notReady(String(log.suffix(3000)))
        }
    }

    /// SIGTERM to the main process (it stops its children); SIGKILL to it and to each child by PID after 5 s.
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
        TemporaryDirectory.remove(directory)
    }

    deinit { stop() }

    /// Kamailio's log (stdout and stderr, -E).
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("kamailio.log"), encoding: .utf8)) ?? ""
    }

    /// Starts `path args` with stdout and stderr appended to `log`, stdin from /dev/null.
    static func spawn(_ path: String, _ args: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw Failure.notReady("posix_spawn failed with error \(rc)") }
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

    // MARK: -

    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }

    /// A port free for TCP and UDP on 127.0.0.1 at this moment.
    public static func freePort() -> Int? {
        for _ in 0..<20 {
            let tcp = clinux_listen_tcp("127.0.0.1", 0, 1)
            guard tcp >= 0 else { continue }
            let port = Int(clinux_local_port(tcp))
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(udp, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(udp)
            close(tcp)
            if bound == 0 { return port }
        }
        return nil
    }

    /// Sends OPTIONS sip:127.0.0.1:<port> over UDP every 200 ms until a 200 comes back.
    static func answersOptions(port: Int, within seconds: Double) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = UInt16(port).bigEndian
        server.sin_addr.s_addr = inet_addr("127.0.0.1")
        let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
        var attempt = 0
        while clinux_monotonic_ns() < deadline {
            attempt += 1
            let probe = "OPTIONS sip:127.0.0.1:\(port) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKready"
                + "\(attempt);rport\r\nMax-Forwards: 70\r\nFrom: <sip:probe@127.0.0.1>;tag=p\r\n"
                + "To: <sip:127.0.0.1:\(port)>\r\nCall-ID: ready-\(attempt)\r\nCSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n"
            _ = Array(probe.utf8).withUnsafeBytes { bytes in
                withUnsafePointer(to: &server) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 12, String(decoding: buffer[..<n], as: UTF8.self).hasPrefix("SIP/2.0 200") { return true }
            if n < 0 { usleep(50_000) }
        }
        return false
    }
}
