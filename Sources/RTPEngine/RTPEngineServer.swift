import CLinux
import Foundation
import Kamailio
#if canImport(Glibc)
import Glibc
#endif

/// A real rtpengine (Debian's `rtpengine-daemon`) started as a user process, the way `KamailioServer` starts
/// Kamailio: posix_spawn, its ng control on a free loopback port, media ports from a free range below the
/// ephemeral ports, its log in a fresh runtime directory, ready once an ng `ping` is answered `pong`; stopped by
/// its PID (SIGTERM, SIGKILL after 5 s). A port another process took between the probe and rtpengine's bind
/// ("Address already in use" in its log) is tried again on a new one, three times in all.
///
/// Thread safety: `stop` from one thread at a time (the owner's); `client()` gives each caller its own socket.
public final class RTPEngineServer {
    /// The ng control port on `options.interface`.
    public let ngPort: Int
    /// The media ports it allocates from.
    public let ports: ClosedRange<Int>
    public let pid: pid_t
    /// Its runtime directory, removed at `stop`.
    public let directory: URL
    public let options: RTPEngineOptions
    private var stopped = false

    static let binary = "/usr/bin/rtpengine"

    /// Whether Debian's rtpengine is installed.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// Starts rtpengine as `options` say and waits for its `pong`; stopped again if it does not come.
    public init(options: RTPEngineOptions = RTPEngineOptions()) throws {
        guard Self.isInstalled else { throw RTPEngineFailure.notInstalled }
        var attempt = 0
        while true {
            attempt += 1
            switch try Self.launch(options) {
            case .success(let started):
                (ngPort, ports, pid, directory) = started
                self.options = options
                return
            case .failure(let failure):
                if case .exited(let log) = failure, log.contains("Address already in use"), attempt < 3 { continue }
                throw failure
            }
        }
    }

    /// A new ng client of this rtpengine (its own socket).
    public func client(timeout: Double = 1, attempts: Int = 5) throws -> NGClient {
        try NGClient(host: options.interface, port: ngPort, timeout: timeout, attempts: attempts)
    }

    /// rtpengine's log (its stderr).
    public var log: String {
        let path = options.logFile ?? directory.appendingPathComponent("rtpengine.log")
        return (try? String(contentsOf: path, encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then SIGKILL after 5 s, to its PID only; removes its runtime directory. Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        Self.terminate(pid)
        PortRangeClaims.release(ports)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    // MARK: - Starting

    private typealias Started = (Int, ClosedRange<Int>, pid_t, URL)

    /// One start on a fresh ng port and runtime directory; on failure nothing of it is left running or on disk.
    private static func launch(_ options: RTPEngineOptions) throws -> Result<Started, RTPEngineFailure> {
        guard let ngPort = KamailioServer.freePort() else { throw RTPEngineFailure.noFreePort }
        guard let ports = options.ports
            ?? freePortRange(count: options.portCount, avoiding: options.avoidPorts) else {
            throw RTPEngineFailure.noFreePortRange(options.portCount)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("callstorm-rtpengine-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logURL = options.logFile ?? directory.appendingPathComponent("rtpengine.log")
        let child: pid_t
        do {
            child = try KamailioServer.spawn(binary, options.arguments(ngPort: ngPort, ports: ports),
                                             log: logURL.path, ownProcessGroup: options.ownProcessGroup)
        } catch {
            if options.ports == nil { PortRangeClaims.release(ports) }
            try? FileManager.default.removeItem(at: directory)
            throw RTPEngineFailure.cannotSpawn("\(error)")
        }
        var exited = false
        let ready = answersPing(host: options.interface, port: ngPort, within: options.readySeconds) {
            var status: Int32 = 0
            exited = waitpid(child, &status, WNOHANG) == child
            return !exited
        }
        if ready { return .success((ngPort, ports, child, directory)) }
        let text = String(((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").suffix(3000))
        if !exited { terminate(child) }
        if options.ports == nil { PortRangeClaims.release(ports) }
        try? FileManager.default.removeItem(at: directory)
        return .failure(exited ? .exited(text) : .notReady(text))
    }

    /// Pings every 200 ms until `pong`, giving up early once `running` says the process is gone.
    static func answersPing(host: String, port: Int, within seconds: Double, running: () -> Bool) -> Bool {
        guard let client = try? NGClient(host: host, port: port, timeout: 0.2, attempts: 1) else { return false }
        let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
        while clinux_monotonic_ns() < deadline, running() {
            if (try? client.ping()) != nil { return true }
        }
        return false
    }

    /// SIGTERM to `pid`; SIGKILL if it is still there after 5 s.
    static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        if !KamailioServer.reaped(pid, within: 5) {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}
