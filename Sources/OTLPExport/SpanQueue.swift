import Foundation
import OTLP

/// The exporter's bounded queue of spans: workers append, the exporter's queue takes. One lock, held for an
/// append or a take; a full queue drops what comes and counts it.
final class SpanQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var spans: [OTLPSpan] = []
    private var droppedCount: Int64 = 0
    /// Whether a send was asked for since the last take (so a burst of appends wakes the exporter once).
    private var kicked = false
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Appends `batch` whole, or drops it whole when it does not fit (a call's spans stay together); returns
    /// whether the caller should ask for a send: the queue holds `kickAt` spans and none was asked for since the
    /// last take.
    func append(_ batch: [OTLPSpan], kickAt: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if spans.count + batch.count > limit {
            droppedCount += Int64(batch.count)
        } else {
            spans.append(contentsOf: batch)
        }
        guard spans.count >= kickAt, !kicked else { return false }
        kicked = true
        return true
    }

    func take(_ n: Int) -> [OTLPSpan] {
        lock.lock()
        defer { lock.unlock() }
        let taken = Array(spans.prefix(n))
        spans.removeFirst(taken.count)
        kicked = false
        return taken
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return spans.count
    }

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return spans.isEmpty
    }

    var dropped: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return droppedCount
    }
}
