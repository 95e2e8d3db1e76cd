/// Why an rtpengine could not be started.
public enum RTPEngineFailure: Error, Equatable, CustomStringConvertible {
    case notInstalled
    case noFreePort
    case noFreePortRange(Int)
    case cannotSpawn(String)
    /// It ran but did not answer `ping` in time.
    case notReady(String)
    /// It exited as it started: an option it refused, a port taken meanwhile.
    case exited(String)

    public var description: String {
        switch self {
        case .notInstalled:
            return "rtpengine is missing; install Debian's rtpengine-daemon (scripts/test-deps.sh does)"
        case .noFreePort: return "no loopback port free for rtpengine's ng control"
        case .noFreePortRange(let count):
            return "no range of \(count) free UDP ports below the ephemeral range for rtpengine's media; "
                + "set the range yourself or free some ports"
        case .cannotSpawn(let why): return "could not start rtpengine: \(why)"
        case .notReady(let log): return "rtpengine did not answer ng ping in time; the end of its log:\n\(log)"
        case .exited(let log): return "rtpengine exited as it started; the end of its log says why:\n\(log)"
        }
    }
}
