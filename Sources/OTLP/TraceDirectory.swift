import Foundation

/// Which trace each conversation's call was given, filed by every worker as its calls end, so the checker's
/// findings (which name conversations) land on the trace of the call they are about, sampled or not.
public final class TraceDirectory: @unchecked Sendable {
    private let lock = NSLock()
    private var traces: [String: TraceID] = [:]
    /// Past this many conversations new ones are not filed (a finding on one gets a trace of its own).
    public let limit: Int

    public init(limit: Int = 1_000_000) {
        self.limit = limit
    }

    func file(_ conversation: String, trace: TraceID) {
        lock.lock()
        defer { lock.unlock() }
        if traces.count < limit { traces[conversation] = trace }
    }

    /// The trace of the call that ran `conversation`, if one was filed.
    public func trace(of conversation: String) -> TraceID? {
        lock.lock()
        defer { lock.unlock() }
        return traces[conversation]
    }
}
