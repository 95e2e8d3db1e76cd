import Foundation

/// Which trace each conversation's call was given, filed by every worker as its calls end, so the checker's
/// findings (which name conversations) land on the trace of the call they are about, sampled or not; and, for a
/// call whose spans were not exported, a stub of its root span, so a finding on it still sits under a `call` span.
public final class TraceDirectory: @unchecked Sendable {
    /// The root span of a call that was not exported (outside the sampled share, nothing failed or faulted):
    /// what a checker finding's trace shows of it. Times in Unix nanoseconds.
    public struct CallStub: Sendable, Equatable {
        public var startUnixNanos: UInt64
        public var endUnixNanos: UInt64
        public var flow: String
        public var conversation: String
    }

    private let lock = NSLock()
    private var traces: [String: TraceID] = [:]
    private var stubs: [TraceID: CallStub] = [:]
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

    func keep(_ stub: CallStub, trace: TraceID) {
        lock.lock()
        defer { lock.unlock() }
        if stubs.count < limit { stubs[trace] = stub }
    }

    /// The trace of the call that ran `conversation`, if one was filed.
    public func trace(of conversation: String) -> TraceID? {
        lock.lock()
        defer { lock.unlock() }
        return traces[conversation]
    }

    /// The root span's stub of an unexported call's trace; nil when the call was exported (or never filed).
    public func stub(of trace: TraceID) -> CallStub? {
        lock.lock()
        defer { lock.unlock() }
        return stubs[trace]
    }
}
