import Foundation
import OTLP

/// What the exporter's requests came to, read from any thread: for the run's counters (`otlp.*`) and notes.
public final class OTLPExportStats: @unchecked Sendable {
    public struct Value: Sendable, Equatable {
        public var requestsAccepted: Int64 = 0
        public var requestsFailed: Int64 = 0
        public var spansExported: Int64 = 0
        /// Spans of requests the collector never answered, refused, or asked to send again (not resent).
        public var spansLost: Int64 = 0
        /// Spans and data points the collector said it rejected (`partial_success`).
        public var rejected: Int64 = 0
        public var lastProblem: String?
    }

    private let lock = NSLock()
    private var current = Value()

    public var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// One answer (nil: none came); `spans` is the request's span count, nil for a metrics request.
    func record(_ answer: OTLPExportResponse?, spans: Int64?) {
        lock.lock()
        defer { lock.unlock() }
        switch answer {
        case .accepted?:
            current.requestsAccepted += 1
            current.spansExported += spans ?? 0
        case .partial(let rejected, let message)?:
            current.requestsAccepted += 1
            current.spansExported += (spans ?? 0) - (spans == nil ? 0 : rejected)
            current.rejected += rejected
            current.lastProblem = "collector rejected \(rejected): \(message)"
        case .retry(_, let status)?:
            current.requestsFailed += 1
            current.spansLost += spans ?? 0
            current.lastProblem = "collector answered \(status) (retry later)"
        case .refused(let status, let message)?:
            current.requestsFailed += 1
            current.spansLost += spans ?? 0
            current.lastProblem = "collector refused with \(status): \(message)"
        case nil:
            current.requestsFailed += 1
            current.spansLost += spans ?? 0
            current.lastProblem = "collector did not answer"
        }
    }
}
