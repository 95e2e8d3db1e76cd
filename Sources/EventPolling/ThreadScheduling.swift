import CLinux
import Foundation

/// How a thread competes for a core with the process's other threads: the Linux scheduling policy.
public enum ThreadPriority: String, Sendable {
    /// The kernel's default (SCHED_OTHER): the driver's workers.
    case normal
    /// SCHED_BATCH: the same share of the cores as `normal` at the same nice, but the thread never preempts another
    /// as it wakes; it waits for the running thread's slice to end (or for it to block) instead.
    case batch
    /// SCHED_IDLE: the thread runs only in what the other threads leave (a weight of 3 against nice 0's 1024), and a
    /// thread of any other policy waking on its core takes the core at once. Starves on a busy machine: a capacity
    /// run beside other load (2026-12-07, load ~20) read its checkpoints 9 times in 127 s instead of ~60 and
    /// wrote a checkpoint up to 15 s late, so the knee's verdict came too late to end the ramp. Unprivileged, a
    /// thread cannot leave SCHED_IDLE again.
    case idle
    /// SCHED_FIFO (real time): a waking thread takes a core from every SCHED_OTHER, SCHED_BATCH and SCHED_IDLE thread
    /// at once, the embedded target's and other processes' alike, and keeps it until it blocks. For the driver's
    /// workers, whose timers must fire on time (issue 33's lag clause): they block in their wait after every turn,
    /// and the kernel's real-time throttling (95 % of each second by default) keeps the rest of the machine alive if
    /// one ever spins. Needs CAP_SYS_NICE or an RLIMIT_RTPRIO; without it the thread stays at SCHED_OTHER. Threads a
    /// `fifo` thread starts run at SCHED_OTHER (SCHED_RESET_ON_FORK).
    case fifo

    /// The Linux policy number (`sched_setscheduler`).
    public var policy: Int32 {
        switch self {
        case .normal: 0
        case .fifo: 1
        case .batch: 3
        case .idle: 5
        }
    }
}

/// A thread's policy and niceness, applied to the calling thread as it starts: the one place callstorm sets how its
/// threads share the cores (the background thread, the embedded target's loops and push thread, the gateway's).
///
/// Why: in the capacity run the two workers, the embedded target's threads and the gateway share two cores, and a
/// worker's timer that comes due while another thread holds the core waits for it; callstorm's own lag p99 passed
/// 1 ms from ~2,000 calls/s. A load tool's event loops should get the core first; what it measures can wait, and
/// its figures then say so. Policy and nice only lower a thread, which needs no privilege (and cannot be undone
/// without CAP_SYS_NICE: out of SCHED_IDLE, or back to a lower nice); `fifo` raises one above every other, which
/// needs the privilege (docs/BENCHMARKS.md, "The workers at SCHED_FIFO").
///
/// The slice (`sliceMicros`): under EEVDF (Linux >= 6.12) a thread may ask for its own time slice
/// (`sched_setattr`'s `sched_runtime`, 0.1...100 ms). A waking thread whose slice is shorter than the running
/// thread's preempts it at once (the scheduler's PREEMPT_SHORT), and the running thread's protected stretch
/// (RUN_TO_PARITY) is cut to the shortest slice queued; with the default slice (1.4 ms on this 2-core machine)
/// a worker whose timer came due could wait up to that long for another SCHED_OTHER thread (the gateway's loop,
/// the other worker) to finish its stretch. Measured mixed so far (docs/BENCHMARKS.md, "The workers' short slice").
///
/// Text form (the environment variables): `normal`, `batch` or `idle`, optionally `:N` for nice N (0...19), then
/// optionally `/` and a slice in `us` or `ms`, e.g. `batch:5`, `normal/200us`, `batch/20ms`; or `fifo`, optionally
/// `:N` for the real-time priority N (1...99, default 1), no slice.
public struct ThreadScheduling: Sendable, Equatable, CustomStringConvertible {
    public var priority: ThreadPriority
    /// The thread's nice value (0...19; higher: a smaller share when the cores are contended, weight 1024 at 0,
    /// 335 at 5, 110 at 10).
    public var nice: Int32
    /// The requested time slice in microseconds (100...100,000; 0: the kernel's default, nothing asked).
    public var sliceMicros: Int
    /// `fifo`'s real-time priority (1...99; 0 for the other policies).
    public var realtimePriority: Int32

    public static let normal = ThreadScheduling(.normal)
    public static let batch = ThreadScheduling(.batch)
    public static let fifo = ThreadScheduling(.fifo)

    /// `fifo` takes `nice` as its real-time priority (1...99) and no slice.
    public init(_ priority: ThreadPriority, nice: Int32 = 0, sliceMicros: Int = 0) {
        self.priority = priority
        if priority == .fifo {
            self.nice = 0
            self.sliceMicros = 0
            realtimePriority = max(1, min(99, nice))
        } else {
            self.nice = max(0, min(19, nice))
            self.sliceMicros = sliceMicros <= 0 ? 0 : max(100, min(100_000, sliceMicros))
            realtimePriority = 0
        }
    }

    /// `normal`, `batch`, `idle`, each optionally `:N` (nice 0...19), then optionally `/Nus` or `/Nms` (the
    /// slice, 100 µs...100 ms); nil for anything else.
    public init?(parsing text: String) {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(halves.count) else { return nil }
        var slice = 0
        if halves.count == 2 {
            guard let micros = Self.parseSlice(halves[1]) else { return nil }
            slice = micros
        }
        let parts = halves[0].split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let priority = ThreadPriority(rawValue: String(parts[0])) else { return nil }
        var nice: Int32 = priority == .fifo ? 1 : 0
        if parts.count == 2 {
            let range: ClosedRange<Int32> = priority == .fifo ? 1...99 : 0...19
            guard let value = Int32(parts[1]), range.contains(value) else { return nil }
            nice = value
        }
        if priority == .fifo, slice != 0 { return nil }
        self.init(priority, nice: nice, sliceMicros: slice)
    }

    /// `200us` or `3ms` to microseconds within 100...100,000; nil otherwise.
    private static func parseSlice(_ text: Substring) -> Int? {
        let micros: Int?
        if text.hasSuffix("us") {
            micros = Int(text.dropLast(2))
        } else if text.hasSuffix("ms") {
            micros = Int(text.dropLast(2)).map { $0 * 1000 }
        } else {
            micros = nil
        }
        guard let micros, (100...100_000).contains(micros) else { return nil }
        return micros
    }

    /// The variable `name`'s value when it parses, else `fallback` (an unset or mistyped variable changes nothing).
    public static func fromEnvironment(_ name: String, or fallback: ThreadScheduling) -> ThreadScheduling {
        ProcessInfo.processInfo.environment[name].flatMap(ThreadScheduling.init(parsing:)) ?? fallback
    }

    /// The Linux policy number (`ThreadPriority.policy`).
    public var policy: Int32 { priority.policy }

    public var description: String {
        if priority == .fifo { return realtimePriority == 1 ? "fifo" : "fifo:\(realtimePriority)" }
        let base = nice == 0 ? priority.rawValue : "\(priority.rawValue):\(nice)"
        return sliceMicros == 0 ? base : "\(base)/\(sliceMicros)us"
    }

    /// Applies the policy, the nice and the slice to the calling thread (Linux: per thread, by its TID); returns
    /// whether all took (a kernel before 6.12 accepts a slice and ignores it). The default (`normal`, nice 0, no
    /// slice) changes nothing, so a thread keeps what it inherited.
    @discardableResult
    public func applyToCurrentThread() -> Bool {
        if priority == .fifo { return clinux_set_thread_realtime(realtimePriority) == 0 }
        var ok = true
        if priority != .normal { ok = clinux_set_thread_policy(priority.policy) == 0 }
        if nice != 0 { ok = clinux_set_thread_nice(nice) == 0 && ok }
        // Last: sched_setattr keeps the policy and nice it reads back, so it must see them already set.
        if sliceMicros != 0 { ok = clinux_set_thread_slice(UInt64(sliceMicros) * 1000) == 0 && ok }
        return ok
    }

    /// The calling thread's slice in nanoseconds as the kernel reports it (its default when none was asked for;
    /// 0 before Linux 6.12), for tests and measurement.
    public static func currentSliceNanos() -> Int64 { clinux_thread_slice() }

    /// The calling thread's policy (SCHED_OTHER 0, SCHED_FIFO 1, SCHED_BATCH 3, SCHED_IDLE 5), for tests and
    /// measurement.
    public static func currentPolicy() -> Int32 { clinux_thread_policy() }

    /// The calling thread's real-time priority (0 unless `fifo` took), for tests and measurement.
    public static func currentRealtimePriority() -> Int32 { clinux_thread_realtime_priority() }

    /// Whether this process may put a thread at SCHED_FIFO (CAP_SYS_NICE or an RLIMIT_RTPRIO), tried on a thread of
    /// its own that ends at once, so the caller's policy stays; for tests and measurement.
    public static func realtimeAllowed() -> Bool {
        let took = RealtimeTry()
        let done = DispatchSemaphore(value: 0)
        Thread {
            took.value = ThreadScheduling.fifo.applyToCurrentThread()
            done.signal()
        }.start()
        done.wait()
        return took.value
    }

    /// The calling thread's nice value, for tests and measurement.
    public static func currentNice() -> Int32 { clinux_thread_nice() }
}

/// The trying thread's answer, written before the semaphore `realtimeAllowed` waits on.
private final class RealtimeTry: @unchecked Sendable {
    var value = false
}
