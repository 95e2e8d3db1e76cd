import Determinism
import Foundation

/// Where a run's time axis begins. On the system clock, second 0 is put on a whole Unix second, so every
/// per-second series is a series of wall-clock seconds and shards started on different machines merge by
/// shifting whole seconds; a manual test clock keeps its own origin.
struct SeriesOrigin {
    let monotonicNanos: UInt64
    let unixSeconds: Int64

    init(clock: Clock) {
        let mono = clock.nowNanos()
        guard clock is MonotonicClock else {
            monotonicNanos = mono
            unixSeconds = Int64(Date().timeIntervalSince1970)
            return
        }
        let wall = Date().timeIntervalSince1970
        let whole = wall.rounded(.down)
        let fraction = UInt64((wall - whole) * 1e9)
        monotonicNanos = mono > fraction ? mono - fraction : mono
        unixSeconds = Int64(whole)
    }

    /// The monotonic instant the load starts at: `startAt` (wall clock) when given and still ahead, otherwise a
    /// little ahead of now so all workers begin on the same instant. The note says when `startAt` was missed.
    static func loadStart(clock: Clock, startAt: Date?) -> (UInt64, String?) {
        let now = clock.nowNanos()
        let soon = now + 5_000_000
        guard let startAt else { return (soon, nil) }
        let ahead = startAt.timeIntervalSinceNow
        guard ahead > 0.005 else {
            return (soon, String(format: "Registration ended %.3f s after --start-at; this shard's load started late.",
                                 -ahead))
        }
        return (now + UInt64(ahead * 1e9), nil)
    }
}
