import Foundation
import OTLP

/// The exporter's bounded queue of spans: workers append, the exporter's queue takes. One lock, held for an
/// append or a take; a full queue drops what comes and counts it.
final class SpanQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var spans: [OTLPSpan] = []
    private var droppedCount: Int64 = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Appends `batch` whole, or drops it whole when it does not fit (a call's spans stay together); returns the
    /// spans queued.
    func append(_ batch: [OTLPSpan]) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if spans.count + batch.count > limit {
            droppedCount += Int64(batch.count)
        } else {
            spans.append(contentsOf: batch)
        }
        return spans.count
    }

    func take(_ n: Int) -> [OTLPSpan] {
        lock.lock()
        defer { lock.unlock() }
        let taken = Array(spans.prefix(n))
        spans.removeFirst(taken.count)
        return taken
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
