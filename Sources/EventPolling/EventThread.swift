import CLinux
import Dispatch
import Foundation
import Locking

/// One thread that waits on one epoll set and runs whatever became ready on a serial queue, by `queue.sync` from
/// the thread itself, so the work runs right there instead of waking another thread.
///
/// This replaces DispatchSources on the driver's hot path. Measured in the scale run: a read source on curl's
/// epoll fd fired ~670 times for every time a socket was actually ready (5.0 M empty wake-ups in 22 s, each a hop
/// through libdispatch's manager thread to a worker thread), which cost CPU the whole process shares; and a
/// DispatchSourceTimer fires through the same manager thread. Here sockets sit directly in this thread's epoll
/// set, and one batch of at most `batchSize` events is one block on the queue, so a due timer never waits behind
/// a long run of responses.
///
/// Timers (`EventTimer`) are deadlines in a table of the thread's own (`EventTimerTable`): the wait's timeout is
/// the time left to the earliest (`epoll_pwait2`, to the nanosecond), and each turn first runs the timers whose
/// deadline has come. Until 2026-12-06 each was a timerfd in the set: a `timerfd_settime` per arm and a `read`
/// per expiry, ~12 of a SIP call's ~55 system calls at 800 calls/s. The thread's timer slack is 1 ns, so the
/// kernel ends a timed wait as late as a timerfd fired (a timerfd has no slack; a wait gets 0.1 % of its length).
///
/// The epoll set and its eventfd (the stop signal, a post's wake-up, an earlier timer armed while the thread
/// waits) are `EpollSet`, as in the HTTP server's and the proxy's loops, here with an edge-triggered eventfd, so
/// a wake-up costs no `read`; the batching onto `queue` is this thread's own, see `EpollSet` for why.
///
/// Work from other threads (a push the gateway accepted, curl's "act now" timeout) arrives by `post`, not by
/// `queue.async`: an async block wakes one of libdispatch's pool threads for every block (a futex wake and two
/// context switches, ~20 % of the driver's CPU in the vs-locust profile), while a post lands in a mailbox this
/// thread drains at the end of its current batch, waking it (one eventfd write) only when it sleeps.
///
/// Run to completion (`ownsItsWork`, the Driver's workers): the batches run on the thread itself, not inside
/// `queue.sync`, so no Dispatch lock is taken per batch and no other thread's block can hold a batch back; every
/// other thread then hands work over by `post` or waits for it with `sync`, never through `queue` (which runs only
/// what is posted after the thread has stopped).
///
/// Ownership rule: `register`/`unregister` and the handlers run on `queue` (on the thread, when it owns its work);
/// `add`/`modify`/`remove` are epoll_ctl calls, safe from any thread; `post`, `sync` and `stop` may be called from
/// anywhere (`sync` not from the thread itself), and the thread closes its fds when it exits.
public final class EventThread: @unchecked Sendable {
    public typealias Ready = (_ fd: Int32, _ events: UInt32) -> Void

    /// A class, so that reading one out of `handlers` for each ready fd retains one object, not both closures'
    /// contexts (a copy of the struct it was retained two and released two per datagram; issue 33). The read
    /// still retains it: a handler may unregister itself while it runs.
    private final class Entry {
        let ready: Ready
        let batchDone: (() -> Void)?
        init(ready: @escaping Ready, batchDone: (() -> Void)?) {
            self.ready = ready
            self.batchDone = batchDone
        }
    }

    public let queue: DispatchQueue
    /// The epoll set; its wake-up eventfd is the stop signal.
    private let poller: EpollSet
    private let batchSize: Int
    /// The batches run on the thread itself, not inside `queue.sync` (see the type's comment).
    private let ownsItsWork: Bool
    /// By id (ids count up from 1 and are never reused; a slot per handler ever registered, a few per thread):
    /// indexed, not hashed, for every ready fd. Touched on `queue` only.
    private var handlers: [Entry?] = [nil]
    private var nextID: UInt32 = 1
    private let mailbox = Mutex(Mailbox())
    /// Left when the run loop has ended and run the last posted work.
    private let exited = DispatchGroup()
    /// The timers; touched on `queue` (on the thread, when it owns its work), like `handlers`.
    private var timers = EventTimerTable()
    /// A turn is running: it computes the next wait's timeout when it ends, so an arm inside it needs no wake-up.
    private var inTurn = false
    /// The deadline the thread's wait ends at (`EventTimerTable.never`: none), so that an earlier timer armed from
    /// outside a turn (another thread's block on `queue`) wakes the waiter, and a later one does not.
    private var plannedWake = EventTimerTable.never
    /// The run loop has ended and the epoll set is closed: arming wakes nothing.
    private var ended = false
    /// The slots due in this turn, in firing order (kept to reuse its storage).
    private var dueTimers: [Int] = []

    /// Posted work, and whether the thread will look at it without another eventfd write: it is awake (in a
    /// batch) or a write is already on its way.
    private struct Mailbox {
        var work: [QueueOwned] = []
        var awake = false
        var stopping = false
        /// The run loop has ended: `post` hands work to `queue` instead.
        var stopped = false
    }

    /// Posted blocks run per batch: timers due meanwhile wait at most that long; the rest runs in the next batch,
    /// right after the timers.
    private let postsPerBatch: Int

    /// - Parameter batchSize: events handled per block on the queue (at most 256); small enough that one block
    ///   stays well under a millisecond, so timers keep their accuracy under a burst of responses.
    /// - Parameter postsPerBatch: posted blocks run per batch before due timers get their turn.
    /// - Parameter ownsItsWork: run each batch on the thread without `queue.sync`; then nothing may reach the
    ///   thread's state through `queue` while it runs, only through `post` and `sync`.
    /// - Parameter scheduling: the thread's scheduling policy and nice, set as it starts (`ThreadScheduling`).
    public init(queue: DispatchQueue, name: String, batchSize: Int = 32, postsPerBatch: Int = 256,
                ownsItsWork: Bool = false, scheduling: ThreadScheduling = .normal) {
        self.queue = queue
        self.ownsItsWork = ownsItsWork
        self.batchSize = max(1, min(256, batchSize))
        self.postsPerBatch = max(1, postsPerBatch)
        do {
            poller = try EpollSet(capacity: self.batchSize, edgeTriggeredWake: true)
        } catch {
            // Out of descriptors before the first call: no driver worker can run without its event thread.
            fatalError("\(name): \(error.call) failed with errno \(error.errno); raise the open-file limit")
        }
        exited.enter()
        // "callstorm.worker.3" → "cs.worker.3": the kernel keeps 15 bytes, and perf's and top's thread columns
        // then tell the workers from libdispatch's pool and the push gateway's loop.
        let shortName = name.hasPrefix("callstorm.") ? "cs." + name.dropFirst(10) : Substring(name)
        let thread = Thread { [self] in
            // Scheduling before the name: a thread seen by its name already runs at its scheduling.
            scheduling.applyToCurrentThread()
            _ = clinux_set_timer_slack(1)
            clinux_name_thread(String(shortName))
            run()
            exited.leave()
        }
        thread.name = name
        thread.start()
    }

    /// A handler for fds added under its id: `ready` for each ready fd, then `batchDone` once per batch in which
    /// it had any (timers due run before both, see `turn`). Call on `queue` (or before any fd was added, when
    /// nothing else knows this thread yet).
    public func register(ready: @escaping Ready, batchDone: (() -> Void)? = nil) -> UInt32 {
        let id = nextID
        nextID += 1
        handlers.append(Entry(ready: ready, batchDone: batchDone))
        return id
    }

    /// Call on `queue`; events already fetched for it are dropped.
    public func unregister(_ id: UInt32) {
        if Int(id) < handlers.count { handlers[Int(id)] = nil }
    }

    @discardableResult
    public func add(_ fd: Int32, events: UInt32, handler: UInt32) -> Bool {
        poller.add(fd, events: events, tag: Self.token(handler, fd))
    }

    @discardableResult
    public func modify(_ fd: Int32, events: UInt32, handler: UInt32) -> Bool {
        poller.modify(fd, events: events, tag: Self.token(handler, fd))
    }

    public func remove(_ fd: Int32) {
        poller.remove(fd)
    }

    /// Runs `work` on `queue`, on this thread, after the current batch (or at once if the thread is waiting).
    /// Safe from any thread, the queue's included; blocks posted from one thread run in the order posted.
    /// Once the thread has stopped, posted work goes to `queue` by `async`, so nothing posted is ever dropped.
    public func post(_ work: @escaping () -> Void) {
        let owned = QueueOwned(work)
        let wake = mailbox.withLock { box -> Bool? in
            if box.stopped { return nil }
            box.work.append(owned)
            if box.awake { return false }
            box.awake = true
            return true
        }
        switch wake {
        case nil:
            queue.async { owned.work() }
        case true?: poller.wake()
        case false?: break
        }
    }

    /// Runs `work` where posted work runs (after everything posted before it) and waits for it: the barrier and
    /// the way in for other threads when the thread owns its work. Never on the thread itself: it would wait for
    /// itself.
    public func sync<T>(_ work: () throws -> T) rethrows -> T {
        guard ownsItsWork else { return try queue.sync(execute: work) }
        return try withoutActuallyEscaping(work) { work throws -> T in
            let slot = SyncSlot(work)
            post {
                slot.result = Result { try slot.work!() }
                // Let go of `work` before the waiter wakes: it must not outlive `withoutActuallyEscaping`, and the
                // posted block itself stays in the mailbox's batch a little longer.
                slot.work = nil
                slot.done.signal()
            }
            slot.done.wait()
            return try slot.result!.get()
        }
    }

    /// Waits until the thread, after `stop`, has run everything posted before and ended: a barrier for work
    /// posted from other threads, which `queue.sync {}` alone is not (that work may still sit in the mailbox).
    /// Never call it on `queue`: the last posted work runs there.
    public func waitUntilStopped() {
        exited.wait()
    }

    /// Ends the thread after its current batch; it closes the epoll set then. Never waits, so it is safe on `queue`.
    public func stop() {
        mailbox.withLock { $0.stopping = true }
        poller.wake()
    }

    // MARK: - Timers (`EventTimer`'s; on `queue`)

    func addTimer(_ fired: @escaping () -> Void) -> Int {
        timers.add(fired)
    }

    func armTimer(_ slot: Int, at deadline: UInt64) {
        timers.arm(slot, at: deadline)
        // Outside a turn the thread may be waiting with a timeout computed before this arm.
        if !inTurn, !ended, deadline < plannedWake {
            plannedWake = deadline
            poller.wake()
        }
    }

    func disarmTimer(_ slot: Int) {
        timers.disarm(slot)  // a wait planned for it ends early, finds nothing due, and plans again
    }

    func removeTimer(_ slot: Int) {
        timers.remove(slot)
    }

    private static func token(_ handler: UInt32, _ fd: Int32) -> UInt64 {
        UInt64(handler) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    private func run() {
        var touched: [UInt32] = []
        var stopping = false
        // The first wait has no limit: a timer armed before it wakes it (`plannedWake` starts at `never`).
        var timeout: Int64 = -1
        while !stopping {
            let n = poller.wait(timeoutNanos: timeout)
            if n < 0 { break }
            mailbox.withLock { $0.awake = true }
            if ownsItsWork {
                (stopping, timeout) = turn(n, touched: &touched)
            } else {
                queue.sync { (stopping, timeout) = turn(n, touched: &touched) }
            }
        }
        // Whatever was posted meanwhile still runs, in order, on the queue.
        let left = mailbox.withLock { box -> [QueueOwned] in
            box.stopped = true
            defer { box.work = [] }
            return box.work
        }
        queue.sync {
            for owned in left { owned.work() }
            ended = true
        }
        poller.close()
    }

    /// One turn after a wait that returned `n` (0: its timeout, or a signal): the timers whose deadline has come,
    /// the ready fds, the posted work; returns whether `stop` was called and the next wait's timeout (ns, -1: none).
    private func turn(_ n: Int, touched: inout [UInt32]) -> (stop: Bool, timeout: Int64) {
        inTurn = true
        defer { inTurn = false }
        if timers.armedCount > 0 { runDueTimers(now: clinux_monotonic_ns()) }
        let stop = runBatch(n, datas: poller.tags, events: poller.events, touched: &touched)
        plannedWake = timers.earliest
        guard plannedWake != EventTimerTable.never else { return (stop, -1) }
        let now = clinux_monotonic_ns()
        return (stop, plannedWake > now ? Int64(clamping: plannedWake - now) : 0)
    }

    /// Runs the timers due at `now`, earliest first.
    private func runDueTimers(now: UInt64) {
        // The list is moved out while the actions run (and back after, to keep its storage): iterating the
        // stored property retained its buffer, since an action could reach `self`.
        var due: [Int] = []
        swap(&due, &dueTimers)
        timers.collectDue(now: now, into: &due)
        // Each taken only if still due: an earlier one's action may have disarmed or re-armed it. One armed
        // again for `now` or before by an action waits for the next check, so a turn always ends.
        for slot in due {
            if let fired = timers.takeIfDue(slot, now: now) { fired() }
        }
        swap(&due, &dueTimers)
    }

    /// After the ready fds' handlers (and their `batchDone`) and after each posted block: the timers whose deadline
    /// has come run now, not after every block posted meanwhile, so a due timer waits behind one push (~30 µs),
    /// not the pile a worker finds when it comes back to its core (issue 33, the capacity run's scheduler lag).
    /// Not between two ready fds: a handler's `batchDone` completes what its reads began (a SIP pool tells the
    /// Driver its agents' events there), and a timer must not see that half done. One clock read a piece while a
    /// timer is armed.
    @inline(__always)
    private func runTimersIfDue() {
        guard timers.armedCount > 0 else { return }
        let now = clinux_monotonic_ns()
        if now >= timers.earliest { runDueTimers(now: now) }
    }

    /// One batch: the `n` ready fds, each handler's `batchDone`, then the posted work, with the timers that come
    /// due meanwhile run after the fds and between posted blocks; returns whether `stop` was called.
    private func runBatch(_ n: Int, datas: UnsafeMutablePointer<UInt64>, events: UnsafeMutablePointer<UInt32>,
                          touched: inout [UInt32]) -> Bool {
        touched.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let data = datas[i]
            if data == EpollSet.wakeTag { continue }  // edge-triggered: nothing to drain
            let id = UInt32(truncatingIfNeeded: data >> 32)
            guard Int(id) < handlers.count, let entry = handlers[Int(id)] else { continue }
            if entry.batchDone != nil, !touched.contains(id) { touched.append(id) }
            entry.ready(Int32(bitPattern: UInt32(truncatingIfNeeded: data)), events[i])
        }
        for id in touched where Int(id) < handlers.count { handlers[Int(id)]?.batchDone?() }
        runTimersIfDue()
        return runPosted()
    }

    /// Runs what was posted (and what that posts in turn) up to `postsPerBatch` blocks; returns whether `stop`
    /// was called. Leaves `awake` set, with an eventfd write, when blocks are left for the next batch.
    private func runPosted() -> Bool {
        var ran = 0
        var batch: [QueueOwned] = []
        while true {
            let (more, stop, left) = mailbox.withLock { box -> (Bool, Bool, Bool) in
                if box.work.isEmpty || ran >= postsPerBatch {
                    box.awake = !box.work.isEmpty
                    return (false, box.stopping, box.awake)
                }
                swap(&batch, &box.work)  // the two buffers take turns, so posting allocates only to grow
                return (true, box.stopping, false)
            }
            if !more {
                if left { poller.wake() }
                return stop
            }
            for owned in batch {
                owned.work()
                runTimersIfDue()
            }
            ran += batch.count
            batch.removeAll(keepingCapacity: true)
        }
    }
}

/// Work posted to an `EventThread`: the queue's by the ownership rule, wherever the closure was made.
private struct QueueOwned: @unchecked Sendable {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}

/// One `sync` call's work and result, handed between the caller and the thread (the semaphore orders the two).
private final class SyncSlot<T>: @unchecked Sendable {
    var work: (() throws -> T)?
    var result: Result<T, Error>?
    let done = DispatchSemaphore(value: 0)
    init(_ work: @escaping () throws -> T) { self.work = work }
}
