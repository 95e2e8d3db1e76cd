import Foundation

/// rtpengine's per-call statistics, kept for the end of a run: the latest `query` answer of every call the relay
/// listed, polled every `interval` while the run goes, and once more at its end.
///
/// Why poll: Kamailio deletes a call at the relay on its BYE (`rtpengine_delete`), and a deleted call answers
/// `query` only for `--delete-delay` seconds (`RTPEngineOptions.deleteDelay`; it stays in `list` that long too).
/// A run started with a delete delay well above `interval` gets each call's counts after its BYE, when they no
/// longer change, however long the run; the delay keeps only the last seconds' calls' ports, not the whole
/// run's (measured with rtpengine 10.5: `list` and `query` answer for a deleted call until the delay ends).
///
/// Thread safety: `start` and `finish` from the owner's thread; the poll runs on its own thread with its own
/// ng client, and `finish` joins it before its last sweep.
public final class RelayCallBook: @unchecked Sendable {
    private let client: NGClient
    private let interval: Double
    private let lock = NSLock()
    private var calls: [String: RTPEngineCall] = [:]
    private var failures = 0
    private var running = false
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// A book of `server`'s calls, polled every `interval` seconds once started.
    public init(server: RTPEngineServer, interval: Double = 1) throws {
        client = try server.client(timeout: 0.5, attempts: 3)
        self.interval = interval
    }

    /// Starts polling on a thread of its own.
    public func start() {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                sweep(extra: [])
                _ = wake.wait(timeout: .now() + interval)
            }
            done.signal()
        }
        thread.name = "callstorm.relay-book"
        thread.start()
    }

    /// Stops polling without a last sweep (a run that ends on an error). Idempotent.
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

    /// Stops polling, sweeps once more (`extra`: Call-IDs to query even if the relay no longer lists them) and
    /// returns the latest answer of every call seen, by Call-ID, with how many requests went unanswered.
    public func finish(extra: Set<String> = []) -> (calls: [String: RTPEngineCall], unanswered: Int) {
        stopPolling()
        sweep(extra: extra)
        return lock.withLock { (calls, failures) }
    }

    /// `list`, then `query` of each listed call (and of `extra`); a call the relay no longer holds is kept as
    /// last seen.
    private func sweep(extra: Set<String>) {
        guard let listed = try? client.list(limit: 100_000) else {
            lock.withLock { failures += 1 }
            return
        }
        for callID in Set(listed).union(extra).sorted() {
            do {
                let call = try client.query(callID: callID)
                lock.withLock { calls[callID] = call }
            } catch NGError.refused {
                continue  // deleted and gone since the list: its last snapshot stands
            } catch {
                lock.withLock { failures += 1 }
            }
        }
    }
}
