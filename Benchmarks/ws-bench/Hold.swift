import StreamIO
import CLinux
import Determinism
import Dispatch
import Driver
import EventPolling
import Foundation
import WebSocket
import WebSocketClient

/// `ws-bench hold`: the client side of `make bench`'s socket section (scripts/bench-sockets.sh). Opens one idle
/// socket per device `PREFIX<first>` … `PREFIX<first+count-1>` with at most `window` handshakes in flight, prints
/// `ready` once all are open, then holds them: every socket the server ends is opened again after a seeded,
/// jittered exponential backoff, as an app's reconnect loop does, and each reopen's wall-clock time is kept so
/// the script can tell when ≥ 99 % of a reconnect storm was back. A line `stop` (or EOF) on stdin, or the stop
/// file appearing, ends it and writes the figures as JSON to `out`.
///
/// Thread rule: everything but `run`'s waiting happens on `thread.queue`.
final class HoldBench: @unchecked Sendable {
    struct Options {
        var prefix = ""
        var first = 0
        var count = 1000
        var caFile: String?
        /// Handshakes in flight at once, opening and reconnecting alike (`waiting` says why).
        var window = 500
        /// Backoff before attempt k (k = 0 after a drop): uniform in [0, min(cap, base · 2^k)) ("full jitter").
        var backoffBaseNanos: UInt64 = 500_000_000
        var backoffCapNanos: UInt64 = 15_000_000_000
        var seed: UInt64 = 1
        var out = "hold.json"
        /// When set, the run ends once this file exists (polled every 100 ms) instead of on stdin.
        var stopFile: String?
    }

    /// What the run saw, written as JSON at the end.
    struct Figures {
        var openSeconds = 0.0, openCPUSeconds = 0.0
        var rssBase = 0, rssOpen = 0, heapBase = 0, heapOpen = 0
        var openRetries = 0, drops = 0, reconnectAttempts = 0
        var firstDropMillis: Int64?
        var reopenedMillis: [Int64] = []
    }

    let options: Options
    private let thread = EventThread(queue: DispatchQueue(label: "ws-bench.hold"), name: "ws-bench-hold")
    private var pool: WebSocketClientPool!
    private var wheel = TimerWheel<Int>(tickNanos: 1_000_000, slotCount: 16_384, startNanos: clinux_monotonic_ns())
    private var timer: EventTimer?
    private var device: [UInt64: Int] = [:]
    /// Per device: failed attempts since its last open (the backoff's exponent), and drops so far (with the
    /// former, the stream of its seeded jitter, so a device's delays do not depend on other devices' order).
    private var failures: [UInt8]
    private var generation: [UInt16]
    private var open: [Bool]
    private var openCount = 0, inFlight = 0
    /// Devices whose (re)connect is due but waits for a handshake slot: one process plays thousands of phones, so
    /// at most `window` handshakes run at once, first come first served. Unbounded, its one core would share
    /// itself among all of a storm's handshakes and finish none within the open timeout.
    private var waiting: [Int] = []
    private var waitingHead = 0
    private var holding = false, stopping = false
    private var started: UInt64 = 0
    private var cpuAtStart = 0.0
    private var figures = Figures()
    private let allOpen = DispatchSemaphore(value: 0)

    init(_ options: Options) {
        self.options = options
        failures = Array(repeating: 0, count: options.count)
        generation = Array(repeating: 0, count: options.count)
        open = Array(repeating: false, count: options.count)
    }

    static func main(_ args: [String]) throws {
        let bench = HoldBench(try parse(args))
        try bench.run()
    }

    func run() throws {
        let url = try WebSocketURL(parsing: options.prefix + "0")
        let tls = url.secure ? try ClientTLS(caFile: options.caFile) : nil
        thread.queue.sync {
            pool = WebSocketClientPool(thread: thread, tls: tls) { [unowned self] id, event in handle(id, event) }
            timer = EventTimer(on: thread) { [unowned self] in fire() }
        }
        _ = trimHeap(0)
        let rssBase = WSBench.rss(), heapBase = Int(clinux_glibc_heap_in_use())
        thread.queue.sync {
            figures.rssBase = rssBase
            figures.heapBase = heapBase
            started = clinux_monotonic_ns()
            cpuAtStart = WSBench.cpuSeconds()
            waiting = Array(0..<options.count)
            openMore()
        }
        allOpen.wait()
        // Idle: past the pool's once-a-second sweep (TLS buffers released), the handshakes' garbage trimmed.
        usleep(1_500_000)
        _ = trimHeap(0)
        let rssOpen = WSBench.rss(), heapOpen = Int(clinux_glibc_heap_in_use())
        thread.queue.sync {
            figures.rssOpen = rssOpen
            figures.heapOpen = heapOpen
        }
        FileHandle.standardOutput.write(Data("ready \(options.count)\n".utf8))
        if let stopFile = options.stopFile {
            while !FileManager.default.fileExists(atPath: stopFile) { usleep(100_000) }
        } else {
            while let line = readLine(), line != "stop" {}
        }
        let (result, tally, openAtStop) = thread.queue.sync { () -> (Figures, CloseTally, Int) in
            stopping = true
            return (figures, pool.tally, openCount)
        }
        try write(result, tally: tally, openAtStop: openAtStop)
        thread.queue.sync {
            pool.shutDown()
            timer?.close()
        }
        thread.stop()
    }

    // MARK: - On the queue

    private func openMore() {
        while inFlight < options.window && waitingHead < waiting.count {
            connect(waiting[waitingHead])
            waitingHead += 1
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
    }

    private func connect(_ index: Int) {
        guard !stopping, let url = try? WebSocketURL(parsing: options.prefix + String(options.first + index)) else {
            return
        }
        let random = SeededRandom(seed: options.seed, stream: stream(index))
        switch pool.open(url, random: random) {
        case .success(let id):
            device[id] = index
            inFlight += 1
        case .failure:
            retry(index)
        }
        if holding { figures.reconnectAttempts += 1 }
    }

    private func handle(_ id: UInt64, _ event: ClientConnection.Event) {
        guard let index = device[id] else { return }
        switch event {
        case .opened:
            inFlight -= 1
            open[index] = true
            openCount += 1
            failures[index] = 0
            if figures.firstDropMillis != nil {
                figures.reopenedMillis.append(Self.wallMillis())
                // All back after a storm: the script waits for this line before it stops the clients.
                if openCount == options.count { FileHandle.standardOutput.write(Data("back \(openCount)\n".utf8)) }
            }
            openMore()
            if !holding && openCount == options.count { allOpened() }
        case .closed:
            device[id] = nil
            if open[index] {
                open[index] = false
                openCount -= 1
                figures.drops += 1
                generation[index] &+= 1
                if figures.firstDropMillis == nil { figures.firstDropMillis = Self.wallMillis() }
            } else {
                inFlight -= 1
                if !holding { figures.openRetries += 1 }
                openMore()
            }
            retry(index)
        default:
            break
        }
    }

    private func allOpened() {
        holding = true
        figures.openSeconds = Double(clinux_monotonic_ns() - started) / 1e9
        figures.openCPUSeconds = WSBench.cpuSeconds() - cpuAtStart
        allOpen.signal()
    }

    private func retry(_ index: Int) {
        guard !stopping else { return }
        let exponent = min(Int(failures[index]), 30)
        let ceiling = min(options.backoffCapNanos, options.backoffBaseNanos << UInt64(exponent))
        var random = SeededRandom(seed: options.seed ^ 0x9e37_79b9, stream: stream(index))
        let delay = UInt64(random.nextUnit() * Double(ceiling))
        failures[index] = failures[index] == .max ? .max : failures[index] + 1
        let now = clinux_monotonic_ns()
        wheel.schedule(index, at: now + delay)
        if let next = wheel.nextWakeNanos() { timer?.arm(atMonotonicNanos: next) }
    }

    private func fire() {
        var due: [Int] = []
        wheel.advance(to: clinux_monotonic_ns(), into: &due)
        waiting.append(contentsOf: due)
        openMore()
        if let next = wheel.nextWakeNanos() { timer?.arm(atMonotonicNanos: next) }
    }

    private func stream(_ index: Int) -> UInt64 {
        UInt64(index) << 32 | UInt64(generation[index]) << 8 | UInt64(failures[index])
    }

    static func wallMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
