import CLinux
import Foundation
import Kamailio

/// Picking media ports that neither other rtpengines nor the kernel's ephemeral ports (every client socket bound
/// to port 0, SIPp's and callstorm's included) are likely to take.
extension RTPEngineServer {
    /// `count` consecutive ports, each free for UDP on 127.0.0.1 now and claimed for this process
    /// (`PortRangeClaims`) until `PortRangeClaims.release` (`stop()` does it), drawn at random from 10000 up to the
    /// ephemeral range's start on a cell boundary (even: RTP even, RTCP odd), so two rtpengines started at once by
    /// any callstorm processes never share a port (a range released in the last seconds only when half the draws
    /// found no other: a run after another needs most of the room). A range overlapping `avoiding` (the ports a
    /// run's own media streams bind) is not taken.
    public static func freePortRange(count: Int, avoiding: ClosedRange<Int>? = nil) -> ClosedRange<Int>? {
        let ceiling = KamailioServer.ephemeralRangeStart() - 1
        let cell = PortRangeClaims.cellSize
        let firstCell = (10_000 + cell - 1) / cell
        guard count > 0, ceiling - firstCell * cell + 1 >= count else { return nil }
        let lastCell = (ceiling - count + 1) / cell
        for attempt in 0..<200 {
            let start = Int.random(in: firstCell...lastCell) * cell
            let range = start...(start + count - 1)
            if let avoiding, range.overlaps(avoiding) { continue }
            guard PortRangeClaims.claim(range, evenResting: attempt >= 100) else { continue }
            if range.allSatisfy({ clinux_probe_udp_bind("127.0.0.1", Int32($0)) == 0 }) { return range }
            PortRangeClaims.release(range, used: false)
        }
        return nil
    }
}
