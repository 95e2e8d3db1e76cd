import Determinism
import Dispatch
import EventPolling
import Foundation
import Metrics
import Synchronization
import Transport

/// The `raw-http` mode: devices that each keep one plain HTTP/1.1 GET in flight against one URL, back to back,
/// for a fixed time — a closed loop like wrk's, so the driver's own request rate can be compared with wrk's on the
/// same server. It uses the driver's transport exactly as flows do (libcurl multi handles on worker queues); a
/// worker spreads its devices over several multi handles because curl's cost per request grows with the
/// connections in one handle (DESIGN.md §10).
public enum RawHTTPLoad {
    public struct Configuration: Sendable {
        public var url: String
        /// Devices, one request (and so one keep-alive connection) in flight each.
        public var devices: Int
        public var durationNanos: UInt64
        public var workers: Int
        /// Devices per libcurl multi handle.
        public var devicesPerClient: Int = 200
        public var timeoutMillis: Int = 10_000

        public init(url: String, devices: Int, durationNanos: UInt64, workers: Int) {
            self.url = url
            self.devices = devices
            self.durationNanos = durationNanos
            self.workers = workers
        }
    }

    public struct Result: Sendable {
        /// What every worker counted before the deadline, summed.
        public var tally = RawLoadTally()
        /// From the first request to the deadline (requests still in flight then are not counted).
        public var elapsedSeconds: Double

        /// Responses received with a 2xx status before the deadline.
        public var succeeded: Int64 { tally.succeeded }
        /// Responses with another status.
        public var otherStatus: Int64 { tally.otherStatus }
        /// Requests that got no response, by the client's error kind.
        public var errors: [String: Int64] { tally.errors }
        /// Response time in microseconds of every counted request.
        public var latency: HdrHistogram { tally.latency }
        public var requestsPerSecond: Double { elapsedSeconds > 0 ? Double(succeeded) / elapsedSeconds : 0 }

        public init(elapsedSeconds: Double) {
            self.elapsedSeconds = elapsedSeconds
        }

        /// Adds one worker's tally.
        public mutating func add(_ worker: RawLoadTally) { tally.add(worker) }
    }

    /// Starts `workers`, blocks until each has stopped (at `deadline`), and sums their figures: the one ending of
    /// every raw loop, whichever client carries it (libcurl here, `HTTPWire` in `raw-http --client wire`).
    public static func collect(_ workers: [any RawLoadWorker], start: UInt64, deadline: UInt64) -> Result {
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            worker.start { group.leave() }
        }
        group.wait()
        var result = Result(elapsedSeconds: Double(deadline - start) / 1e9)
        for worker in workers {
            worker.queue.sync {
                result.add(worker.tally)
                worker.close()
            }
        }
        return result
    }

    /// Runs the loop and blocks until every device has stopped; devices stop sending at the deadline.
    public static func run(_ configuration: Configuration) -> Result {
        let workerCount = max(1, min(configuration.workers, configuration.devices))
        var request = ClientRequest(method: "GET", url: configuration.url, timeoutMillis: configuration.timeoutMillis)
        request.collectsHeaders = false
        let clock = MonotonicClock()
        let start = clock.nowNanos()
        let deadline = start + configuration.durationNanos
        var workers: [RawHTTPWorker] = []
        for w in 0..<workerCount {
            let devices = configuration.devices / workerCount + (w < configuration.devices % workerCount ? 1 : 0)
            let worker = RawHTTPWorker(index: w, devices: devices, devicesPerClient: configuration.devicesPerClient,
                                       request: request, deadline: deadline, clock: clock)
            workers.append(worker)
        }
        return collect(workers, start: start, deadline: deadline)
    }
}

/// One worker of a raw loop, read on its `queue` once it has stopped.
public protocol RawLoadWorker: AnyObject {
    var queue: DispatchQueue { get }
    var tally: RawLoadTally { get }
    /// Starts its devices; `done` once every one has stopped at the deadline.
    func start(done: @escaping @Sendable () -> Void)
    func close()
}

/// One worker queue of the raw-http loop. Everything is touched only on `queue`.
final class RawHTTPWorker: RawLoadWorker, @unchecked Sendable {
    let queue: DispatchQueue
    /// One thread waits for every client's sockets and runs them on `queue`.
    private var events: EventThread!
    private var clients: [HTTPClient] = []
    private let devices: Int
    private let request: ClientRequest
    private let deadline: UInt64
    private let clock: MonotonicClock
    private var running = 0
    private var done: (() -> Void)?
    var tally = RawLoadTally()

    init(index: Int, devices: Int, devicesPerClient: Int, request: ClientRequest, deadline: UInt64,
         clock: MonotonicClock) {
        self.queue = DispatchQueue(label: "callstorm.raw-http.\(index)", qos: .userInteractive)
        self.devices = devices
        self.request = request
        self.deadline = deadline
        self.clock = clock
        let clientCount = max(1, (devices + devicesPerClient - 1) / max(1, devicesPerClient))
        queue.sync {
            events = EventThread(queue: queue, name: "callstorm.raw-http.\(index)")
            for _ in 0..<clientCount {
                var configuration = HTTPClient.Configuration()
                configuration.maxConnections = devicesPerClient + 16
                clients.append(HTTPClient(queue: queue, configuration: configuration, events: events))
            }
        }
    }

    func start(done: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            self.done = done
            running = devices
            if devices == 0 { finish() }
            for device in 0..<devices { send(device) }
        }
    }

    private func send(_ device: Int) {
        let sent = clock.nowNanos()
        clients[device % clients.count].send(request) { [self] result in
            let now = clock.nowNanos()
            if now <= deadline {
                switch result {
                case .success(let response): tally.response(status: response.status, sentNanos: sent, nowNanos: now)
                case .failure(let error): tally.error(error.kind)
                }
                send(device)
            } else {
                running -= 1
                if running == 0 { finish() }
            }
        }
    }

    private func finish() {
        let done = self.done
        self.done = nil
        done?()
    }

    func close() {
        for client in clients { client.close() }
        clients.removeAll()
        events?.stop()
    }
}

/// What a raw loop's worker counted before its deadline; each client's workers keep one, and `collect` sums them.
public struct RawLoadTally: Sendable {
    /// Responses received with a 2xx status.
    public var succeeded: Int64 = 0
    /// Responses with another status.
    public var otherStatus: Int64 = 0
    /// Requests that got no response, by the client's error kind.
    public var errors: [String: Int64] = [:]
    /// Response time in microseconds of every 2xx.
    public var latency = HdrHistogram()

    public init() {}

    /// A response: a 2xx counted with its time since `sentNanos`, any other status apart.
    public mutating func response(status: Int, sentNanos: UInt64, nowNanos: UInt64) {
        if (200..<300).contains(status) {
            succeeded += 1
            latency.record(Int64((nowNanos - sentNanos) / 1_000))
        } else {
            otherStatus += 1
        }
    }

    /// A request that got no response.
    public mutating func error(_ kind: String) { errors[kind, default: 0] += 1 }

    mutating func add(_ other: RawLoadTally) {
        succeeded += other.succeeded
        otherStatus += other.otherStatus
        errors.merge(other.errors, uniquingKeysWith: +)
        latency.add(other.latency)
    }
}
