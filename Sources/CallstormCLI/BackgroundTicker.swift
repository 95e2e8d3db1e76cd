import EventPolling

/// Runs `work` every `seconds` on the process's background thread (`BackgroundThread.shared`, SCHED_BATCH by
/// default), the first time one period after it is made, as the DispatchSourceTimers it replaces did. A tick that
/// comes late (the thread waited for a core) is not made up: the next one is the next on the grid.
///
/// Why not a DispatchSourceTimer: its handler runs on a libdispatch pool thread at the workers' own priority, and
/// every two seconds the watches' reads took ~30 ms of CPU there in one burst, preempting the workers (see
/// `BackgroundThread`).
///
/// Ownership rule: `timer` and `next` are touched only on the background thread; `stop` may be called from any
/// other thread and returns once no tick runs or will run.
final class BackgroundTicker: @unchecked Sendable {
    private let thread = BackgroundThread.shared
    private let periodNanos: UInt64
    private let work: () -> Void
    private var timer: EventTimer?
    private var next: UInt64 = 0

    init(every seconds: Double, _ work: @escaping () -> Void) {
        periodNanos = UInt64(max(0.001, seconds) * 1e9)
        self.work = work
        thread.sync {
            timer = EventTimer(on: thread) { [weak self] in self?.fire() }
            next = HarnessSampler.monotonicNanos() + periodNanos
            timer?.arm(atMonotonicNanos: next)
        }
    }

    private func fire() {
        work()
        let now = HarnessSampler.monotonicNanos()
        repeat { next += periodNanos } while next <= now
        timer?.arm(atMonotonicNanos: next)
    }

    /// Stops the ticks; waits for one that is running to end.
    func stop() {
        thread.sync {
            timer?.close()
            timer = nil
        }
    }
}
