import CLinux
import Foundation
import Kamailio

/// Picking media ports that neither other rtpengines nor the kernel's ephemeral ports (every client socket bound
/// to port 0, SIPp's and callstorm's included) are likely to take.
extension RTPEngineServer {
    /// `count` consecutive ports, starting even (RTP even, RTCP odd), each free for UDP on 127.0.0.1 now, drawn
    /// at random from 10000 up to the ephemeral range's start, so two rtpengines started at once seldom overlap
    /// (and when they do, rtpengine skips a port in use and takes the next).
    /// A range overlapping `avoiding` (the ports a run's own media streams bind) is not taken.
    public static func freePortRange(count: Int, avoiding: ClosedRange<Int>? = nil) -> ClosedRange<Int>? {
        let ceiling = KamailioServer.ephemeralRangeStart() - 1
        let floor = 10_000
        guard count > 0, ceiling - floor >= count else { return nil }
        for _ in 0..<200 {
            let start = Int.random(in: floor...(ceiling - count + 1)) & ~1
            let range = start...(start + count - 1)
            if let avoiding, range.overlaps(avoiding) { continue }
            if range.allSatisfy({ clinux_probe_udp_bind("127.0.0.1", Int32($0)) == 0 }) { return range }
        }
        return nil
    }
}
