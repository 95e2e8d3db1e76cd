import Faults
import Metrics

/// Each call that did not complete, attributed (`CallAttribution`): to the injected faults on its path, or to the
/// target (`calls.failed_without_fault`). Only runs with fault windows count either, so a run without faults keeps
/// the counters it always had.
extension DeviceFaults {
    /// Books the attribution of planned call `call`, planned at `plannedSinceLoad` on `devices` (worker-local),
    /// which just completed (`failed`: failed or missed).
    func attribute(call: Int, devices: [Int], plannedSinceLoad: UInt64, failed: Bool, now: UInt64) {
        guard failed, !schedule.isEmpty else { return }
        let indexes = devices.map { table.devices[$0].identity.index }
        // Offline phones are decided by the schedule, not logged per request.
        let offline = indexes.contains { schedule.offline(at: plannedSinceLoad, device: $0) }
        let attribution = CallAttribution.of(call: call, devices: indexes, fromNanos: plannedSinceLoad,
                                             toNanos: sinceLoad() ?? plannedSinceLoad, in: log,
                                             extra: offline ? [Self.offline] : [])
        switch attribution {
        case .target:
            books.count(.callsFailedWithoutFault, at: now)
        case .faults(let kinds):
            books.count(.callsAttributedToFaults, at: now)
            for kind in kinds { books.count(.callsAttributed(to: kind), at: now) }
        }
    }

    /// The kind a call is attributed to when one of its devices was offline.
    static let offline = "device.offline"
}
