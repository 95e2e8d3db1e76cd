import CLinux
import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Finding a port Kamailio can take, and knowing when it answers.
extension KamailioServer {
    /// A port free for TCP and UDP on 127.0.0.1 at this moment, drawn below the kernel's ephemeral range
    /// (`ip_local_port_range`): a port the kernel handed out for `bind(0)` can be taken again, between this probe
    /// and the server's own bind, as the source port of any outgoing connection on the machine (a CI run saw
    /// Kamailio's TCP bind fail so); ports below the range are never chosen by the kernel. Falls back to the
    /// kernel's choice when no port below it is free.
    public static func freePort() -> Int? {
        let low = ephemeralRangeStart()
        if low > 12_000 {
            for _ in 0..<40 {
                let port = Int.random(in: 10_000..<low)
                let tcp = clinux_listen_tcp("127.0.0.1", Int32(port), 1)
                guard tcp >= 0 else { continue }
                let free = clinux_probe_udp_bind("127.0.0.1", Int32(port)) == 0
                close(tcp)
                if free { return port }
            }
        }
        for _ in 0..<20 {
            let tcp = clinux_listen_tcp("127.0.0.1", 0, 1)
            guard tcp >= 0 else { continue }
            let port = Int(clinux_local_port(tcp))
            let free = clinux_probe_udp_bind("127.0.0.1", Int32(port)) == 0
            close(tcp)
            if free { return port }
        }
        return nil
    }

    /// The first port of the kernel's ephemeral range (32768 on Linux by default, and when unreadable): the
    /// servers started here (Kamailio, rtpengine's media ports) take ports below it.
    public static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) }
            ?? 32_768
    }

    /// Sends OPTIONS sip:127.0.0.1:<port> over UDP every 200 ms until a 200 comes back; gives up early once
    /// `running` says the process is gone (a configuration error ends Kamailio at once).
    static func answersOptions(port: Int, within seconds: Double, running: () -> Bool = { true }) -> Bool {
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
        while clinux_monotonic_ns() < deadline, running() {
            attempt += 1
            let probe = "OPTIONS sip:127.0.0.1:\(port) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKready"
                + "\(attempt);rport\r\nMax-Forwards: 70\r\nFrom: <sip:probe@127.0.0.1>;tag=p\r\n"
                + "To: <sip:127.0.0.1:\(port)>\r\nCall-ID: ready-\(attempt)\r\nCSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n"
            _ = Array(probe.utf8).withUnsafeBytes { SystemCall.sendDatagram(fd, $0, to: server) }
            var buffer = [UInt8](repeating: 0, count: 2048)
            switch buffer.withUnsafeMutableBytes({ SystemCall.receive(fd, into: $0.baseAddress!, count: $0.count) }) {
            case .bytes(let n):
                if n > 12, String(decoding: buffer[..<n], as: UTF8.self).hasPrefix("SIP/2.0 200") { return true }
            case .closed:
                break
            case .wouldBlock, .error:
                usleep(50_000)
            }
        }
        return false
    }

    /// The installed Kamailio's version line (`kamailio -v`'s first line without `version: `, e.g.
    /// "kamailio 5.6.3 (x86_64/linux)"); nil when it cannot be run. Read once per process.
    public static var version: String? { installedVersion }

    private static let installedVersion: String? = {
        guard let directory = try? makeRunDirectory() else { return nil }
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("version.txt").path
        guard let pid = try? spawn(binary, ["-v"], log: out, ownProcessGroup: false) else { return nil }
        guard reaped(pid, within: 5) else {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return nil
        }
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("version:") }) else { return nil }
        return line.dropFirst("version:".count).trimmingCharacters(in: .whitespaces)
    }()
}
