import Chaos
import Metrics

/// Each call that did not complete, attributed: to the faults logged against it (faults.csv rows naming the call:
/// a push dropped, a SIP message lost, a late wake, …), or to nobody, which leaves it the target's
/// (`calls.failed_without_fault`). Only runs with fault windows count either, so a run without faults keeps the
/// counters it always had.
extension DeviceFaults {
    /// Books the attribution of planned call `call`, which just completed (`failed`: failed or missed).
    func attribute(call: Int, failed: Bool, now: UInt64) {
        guard failed, !schedule.isEmpty else { return }
        let kinds = log.kinds(ofCall: call)
        guard !kinds.isEmpty else { return books.count(.callsFailedWithoutFault, at: now) }
        books.count(.callsAttributedToFaults, at: now)
        for kind in kinds { books.count(.callsAttributed(to: kind), at: now) }
    }
}
