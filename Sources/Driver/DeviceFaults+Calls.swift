import Chaos
import Metrics

/// Each call that did not complete, attributed (`CallAttribution`): to the faults logged against it, or to the
/// target (`calls.failed_without_fault`). Only runs with fault windows count either, so a run without faults keeps
/// the counters it always had.
extension DeviceFaults {
    /// Books the attribution of planned call `call`, which just completed (`failed`: failed or missed).
    func attribute(call: Int, failed: Bool, now: UInt64) {
        guard failed, !schedule.isEmpty else { return }
        switch CallAttribution.of(call: call, in: log) {
        case .target:
            books.count(.callsFailedWithoutFault, at: now)
        case .faults(let kinds):
            books.count(.callsAttributedToFaults, at: now)
            for kind in kinds { books.count(.callsAttributed(to: kind), at: now) }
        }
    }
}
