import Foundation

/// rtpengine's per-call statistics, kept for the end of a run: each call is queried (`query`) shortly after one of
/// its ends closed its stream, again after the other end closed, and once more at the run's end; the latest answer
/// of each call is kept.
///
/// Why then: Kamailio deletes a call at the relay on its BYE (`rtpengine_delete`), and a deleted call answers
/// `query` only for `--delete-delay` seconds (`RTPEngineOptions.deleteDelay`). An end closes its stream at the BYE
/// too, so a query `settleSeconds` after each close (packets still in flight landed, the counts final) and well
/// within the delay reads each call after its BYE however long the run, while the relay keeps only the last
/// seconds' deleted calls' ports. The Call-IDs come from callstorm's own ends, not from `list`, whose answer is
/// one UDP datagram (64 KB: some 2,500 Call-IDs) and would not hold a large run's calls.
///
/// Thread safety: `closed` from any thread; `start` and `finish` from the owner's thread. The queries run on the
/// book's own thread with its own ng client, and `finish` joins it before its last queries.
public final class RelayCallBook: @unchecked Sendable {
    private let client: NGClient
    private let settleNanos: UInt64
    private let interval: Double
    private let lock = NSLock()
    private var calls: [String: RTPEngineCall] = [:]
    /// Call-IDs to query, with the instant (monotonic ns) their latest end closed.
    private var pending: [String: UInt64] = [:]
    private var unanswered = 0
    private var running = false
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// A book of `server`'s calls, each queried `settleSeconds` after an end closed, looked at every `interval`.
    public init(server: RTPEngineServer, settleSeconds: Double = 0.2, interval: Double = 0.25) throws {
        client = try server.client(timeout: 0.5, attempts: 3)
        settleNanos = UInt64(settleSeconds * 1e9)
        self.interval = interval
    }

    /// An end of call `callID` closed its stream (any thread): the call is queried once it settled.
    public func closed(_ callID: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock { pending[callID] = now }
    }

    /// Starts the book's thread.
    public func start() {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                let now = DispatchTime.now().uptimeNanoseconds
                query(lock.withLock { () -> [String] in
                    let due = pending.filter { now >= $0.value + settleNanos }.map(\.key)
                    due.forEach { pending[$0] = nil }
                    return due
                })
                _ = wake.wait(timeout: .now() + interval)
            }
            done.signal()
        }
        thread.name = "callstorm.relay-book"
        thread.start()
    }

    /// Stops the book's thread without querying more (a run that ends on an error). Idempotent.
    public func stopPolling() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        if wasRunning {
            wake.signal()
            done.wait()
        }
    }

    /// Stops the thread, queries every call still pending and those of `extra` never answered yet, and returns the
    /// latest answer of every call, by Call-ID, with how many queries got no answer (a call the relay no longer holds
    /// is not counted: its last answer stands, or it never had one).
    public func finish(extra: Set<String> = []) -> (calls: [String: RTPEngineCall], unanswered: Int) {
        stopPolling()
        let rest = lock.withLock { () -> Set<String> in
            defer { pending.removeAll() }
            return Set(pending.keys).union(extra.subtracting(calls.keys))
        }
        query(Array(rest))
        return lock.withLock { (calls, unanswered) }
    }

    private func query(_ callIDs: [String]) {
        for callID in callIDs.sorted() {
            do {
                let call = try client.query(callID: callID)
                lock.withLock { calls[callID] = call }
            } catch NGError.refused {
                continue  // deleted and gone (or never offered): its last answer stands
            } catch {
                lock.withLock { unanswered += 1 }
            }
        }
    }
}
