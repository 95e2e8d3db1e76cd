import Determinism
import Dispatch
import Driver
import EventPolling
import HTTPWire

/// `callstorm raw-http --client wire`: the same closed loop as `RawHTTPLoad` (each device keeps one GET in
/// flight, back to back, until the deadline), carried by `HTTPWire.WireClient` instead of libcurl, so the bench
/// measures both clients the same way in the same run. One event thread and one client per worker.
enum RawWireLoad {
    static func run(_ configuration: RawHTTPLoad.Configuration) throws(WireError) -> RawHTTPLoad.Result {
        var request = try WireRequest(method: "GET", url: configuration.url,
                                      timeoutMillis: configuration.timeoutMillis)
        request.collectsHeaders = false
        let workerCount = max(1, min(configuration.workers, configuration.devices))
        let clock = MonotonicClock()
        let start = clock.nowNanos()
        let deadline = start + configuration.durationNanos
        var workers: [RawWireWorker] = []
        for w in 0..<workerCount {
            let devices = configuration.devices / workerCount + (w < configuration.devices % workerCount ? 1 : 0)
            workers.append(RawWireWorker(index: w, devices: devices, request: request, deadline: deadline,
                                         clock: clock))
        }
        return RawHTTPLoad.collect(workers, start: start, deadline: deadline)
    }
}

/// One worker of the wire loop. Everything is touched only on `queue`.
final class RawWireWorker: RawLoadWorker, @unchecked Sendable {
    let queue: DispatchQueue
    private var events: EventThread!
    private var client: WireClient!
    private let devices: Int
    private let request: WireRequest
    private let deadline: UInt64
    private let clock: MonotonicClock
    private var running = 0
    private var done: (() -> Void)?
    var tally = RawLoadTally()

    init(index: Int, devices: Int, request: WireRequest, deadline: UInt64, clock: MonotonicClock) {
        self.queue = DispatchQueue(label: "callstorm.raw-wire.\(index)", qos: .userInteractive)
        self.devices = devices
        self.request = request
        self.deadline = deadline
        self.clock = clock
        queue.sync {
            events = EventThread(queue: queue, name: "callstorm.raw-wire.\(index)")
            var configuration = WireClient.Configuration()
            configuration.maxConnectionsPerOrigin = devices + 16
            client = WireClient(thread: events, configuration: configuration)
        }
    }

    func start(done: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            self.done = done
            running = devices
            if devices == 0 { finish() }
            for _ in 0..<devices { send() }
        }
    }

    private func send() {
        let sent = clock.nowNanos()
        client.send(request) { [self] result in
            let now = clock.nowNanos()
            guard now <= deadline else {
                running -= 1
                if running == 0 { finish() }
                return
            }
            switch result {
            case .success(let response): tally.response(status: response.status, sentNanos: sent, nowNanos: now)
            case .failure(let error): tally.error(error.kind)
            }
            send()
        }
    }

    private func finish() {
        let done = self.done
        self.done = nil
        done?()
    }

    func close() {
        client?.close()
        client = nil
        events?.stop()
    }
}
