import Dispatch
import Foundation
import Metrics
import OTLP
import Transport

/// Sends a run's metrics and spans to an OTLP/HTTP collector (binary protobuf, `POST /v1/metrics` and
/// `/v1/traces`) from a queue and HTTP client of its own, never from a worker.
///
/// Workers hand ended calls' spans to `enqueue`, which takes a lock, appends and returns: when the queue holds
/// `queueLimit` spans (the collector is slow, down or asked to wait) the new ones are dropped and counted
/// (`dropped`, reported as `otlp.dropped`), so the run never waits on the collector. One trace request and one
/// metrics request are in flight at most; metrics are sent every `interval`, cumulative, so a lost export loses
/// nothing the next one does not repeat.
public final class OTLPExporter: @unchecked Sendable {
    public let configuration: OTLPConfiguration
    private let resource: OTLPResource
    private let queue = DispatchQueue(label: "callstorm.otlp")
    private let client: HTTPClient
    private let spans: SpanQueue
    private var timer: DispatchSourceTimer?
    /// Set on `queue`: whether a request of each kind is in flight, and until when the collector asked to wait.
    private var tracesInFlight = false
    private var metricsInFlight = false
    private var quietUntil: DispatchTime = .now()
    private let stats = OTLPExportStats()
    private let startUnixNanos: UInt64

    public init(configuration: OTLPConfiguration, resource: OTLPResource) {
        self.configuration = configuration
        self.resource = resource
        spans = SpanQueue(limit: configuration.queueLimit)
        var http = HTTPClient.Configuration()
        http.maxConnections = 2
        http.connectTimeoutMillis = 1_000
        http.maxResponseBytes = 1 << 20
        client = HTTPClient(queue: queue, configuration: http)
        startUnixNanos = OTLPExporter.unixNanos()
    }

    /// Unix time now, in nanoseconds.
    public static func unixNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Spans dropped so far because the queue was full or their request failed.
    public var dropped: Int64 { spans.dropped + stats.value.spansLost }
    public var snapshot: OTLPExportStats.Value { stats.value }

    /// From any thread: an ended call's spans, or nothing when the queue is full (they are counted as dropped).
    /// A full batch wakes the exporter's queue once; until it has taken spans again, further appends do not.
    public func enqueue(_ batch: [OTLPSpan]) {
        if spans.append(batch, kickAt: configuration.batchSize) { queue.async { self.sendSpans() } }
    }

    /// Starts the periodic exports: metrics every interval (`figures`: the driver's live snapshot), spans at
    /// least every 200 ms.
    public func start(figures: @escaping @Sendable () -> OTLPFigures) {
        let t = DispatchSource.makeTimerSource(queue: queue)
        let spanTick = DispatchTimeInterval.milliseconds(200)
        let ticksPerMetrics = max(1, Int(configuration.intervalNanos / 200_000_000))
        var tick = 0
        t.setEventHandler { [unowned self] in
            tick += 1
            sendSpans()
            if tick % ticksPerMetrics == 0 { sendMetrics(figures()) }
        }
        t.schedule(deadline: .now() + spanTick, repeating: spanTick)
        t.resume()
        timer = t
    }

    /// The run is over: stops the periodic exports, sends what is queued and `final` (the report's figures, so
    /// the last export equals summary.json), waiting at most `seconds` for the collector. Returns whether every
    /// request was answered in time. A collector that asks to wait (Retry-After) is waited for within the same
    /// `seconds`, and `final` is sent again when its own answer was "retry"; past them the drain stops, so nothing
    /// is sent after `finish` returned.
    @discardableResult
    public func finish(final: OTLPFigures?, seconds: Double) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let deadline = DispatchTime.now() + seconds
        queue.async { [self] in
            timer?.cancel()
            timer = nil
            drain(final: final, until: deadline) { done.signal() }
        }
        return done.wait(timeout: deadline) == .success
    }

    /// Sends the spans that are left, then `final`, then calls `done` (all on `queue`); gives up at `deadline`.
    private func drain(final: OTLPFigures?, until deadline: DispatchTime, done: @escaping @Sendable () -> Void) {
        let now = DispatchTime.now()
        guard now < deadline else { return }
        let again = { (after: DispatchTime) in
            self.queue.asyncAfter(deadline: min(after, deadline)) {
                self.drain(final: final, until: deadline, done: done)
            }
        }
        if tracesInFlight || metricsInFlight { return again(now + .milliseconds(20)) }
        if now < quietUntil { return again(quietUntil) }
        if !spans.isEmpty {
            sendSpans()
            return again(now + .milliseconds(5))
        }
        guard let final else { return done() }
        sendMetrics(final) { answer in
            if case .retry? = answer {
                self.drain(final: final, until: deadline, done: done)
            } else {
                self.drain(final: nil, until: deadline, done: done)
            }
        }
    }

    /// Closes the client (on its queue); the exporter sends nothing after this.
    public func close() {
        queue.sync {
            timer?.cancel()
            client.close()
        }
    }

    // MARK: - Requests (on `queue`)

    private func sendSpans() {
        guard !tracesInFlight, DispatchTime.now() >= quietUntil else { return }
        let batch = spans.take(configuration.batchSize)
        guard !batch.isEmpty else { return }
        tracesInFlight = true
        let body = OTLPRequest.traces(batch, resource: resource)
        post("/v1/traces", body) { [self] answer in
            tracesInFlight = false
            stats.record(answer, spans: Int64(batch.count))
            if case .retry(let seconds, _)? = answer { quietUntil = .now() + .seconds(seconds ?? 1) }
            // A backlog goes on at once, not at the next 200 ms tick (which would cap export at a batch a tick).
            if spans.count >= configuration.batchSize { sendSpans() }
        }
    }

    /// `answered` (the final export's drain) is called with the collector's answer once the request is over.
    private func sendMetrics(_ figures: OTLPFigures, answered: ((OTLPExportResponse?) -> Void)? = nil) {
        guard !metricsInFlight, DispatchTime.now() >= quietUntil else { return }
        metricsInFlight = true
        let body = OTLPRequest.metrics(figures.metrics(startUnixNanos: startUnixNanos, now: Self.unixNanos()),
                                       resource: resource)
        post("/v1/metrics", body) { [self] answer in
            metricsInFlight = false
            stats.record(answer, spans: nil)
            if case .retry(let seconds, _)? = answer { quietUntil = .now() + .seconds(seconds ?? 1) }
            answered?(answer)
        }
    }

    /// One POST; `answered` gets the collector's answer, or nil when none came (refused, timed out).
    private func post(_ path: String, _ body: [UInt8], answered: @escaping (OTLPExportResponse?) -> Void) {
        var request = ClientRequest(method: "POST", url: configuration.url(path),
                                    headers: ["Content-Type: application/x-protobuf"] + configuration.headerLines,
                                    body: body, timeoutMillis: configuration.timeoutMillis)
        request.collectsHeaders = true
        client.send(request) { result in
            switch result {
            case .success(let response):
                answered(OTLPExportResponse.parse(status: response.status, retryAfter: response.header("retry-after"),
                                                  body: response.body))
            case .failure:
                answered(nil)
            }
        }
    }
}
