import Determinism
import Dispatch
import Driver
import Foundation
import HTTPServer
import Reports
import Scenario
import Locking
import Transport
import Metrics

/// The flags of `run` that make it one part of a distributed run, and what they do around the driver:
/// `--shard i/N`, `--start-at`, `--clock-reference`, `--metrics-listen`, `--metrics-linger`.
struct DistributedOptions {
    static let valuedFlags: Set<String> = ["shard", "start-at", "clock-reference", "metrics-listen", "metrics-linger"]

    var shard: Shard = .whole
    var startAt: Date?
    /// Base URL whose `Date` header the shard's clock is measured against; default the target.
    var clockReference: String?
    var metricsListen: (host: String, port: Int)?
    /// Keep serving metrics this long after the report is written, so the last scrape sees final values.
    var metricsLingerNanos: UInt64 = 0

    /// Whether this run is part of a distributed one (and so probes its clock and writes shard.json).
    var isDistributed: Bool { !shard.isWhole || startAt != nil }

    static func parse(_ parsed: Arguments) throws(CLIError) -> DistributedOptions {
        var o = DistributedOptions()
        if let s = parsed.value("shard") {
            guard let shard = Shard(parsing: s) else {
                throw .badValue(flag: "shard", value: s, expected: "i/N with 0 <= i < N (e.g. 0/4)")
            }
            o.shard = shard
        }
        if let s = parsed.value("start-at") {
            guard let date = parseInstant(s) else {
                throw .badValue(flag: "start-at", value: s, expected: "an ISO 8601 UTC time like 2026-12-02T10:00:00Z")
            }
            o.startAt = date
        }
        o.clockReference = parsed.value("clock-reference")
        if parsed.value("metrics-listen") != nil {
            let (host, port) = try parsed.hostPort("metrics-listen", default: "")
            o.metricsListen = (host.isEmpty ? "0.0.0.0" : host, port)
        }
        o.metricsLingerNanos = try parsed.duration("metrics-linger") ?? 0
        return o
    }

    /// `2026-12-02T10:00:00Z`, with optional fractional seconds; an offset other than Z is accepted too.
    static func parseInstant(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let d = plain.date(from: text) { return d }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    func apply(to settings: inout DriverSettings) {
        settings.shard = shard
        settings.startAt = startAt
    }
}

/// What a distributed run does around the driver: the metrics endpoint during the run, the clock probe before
/// it, and shard.json after it.
final class DistributedRun {
    let options: DistributedOptions
    private(set) var endpoint: HTTPServer?
    /// The run's final counters once the report is written (gateway books, late pushes and checker counters are
    /// only known then); the lingering endpoint serves them so the last scrape equals the report.
    private let finalCounters = FinalCounters()

    final class FinalCounters: Sendable {
        let value = Mutex<[String: Int64]?>(nil)
    }
    private(set) var clockOffset: ClockOffset?
    private var clockNote: String?

    init(options: DistributedOptions) {
        self.options = options
    }

    /// Before the driver starts: measures the clock when the run is a shard.
    func probeClock(targetURL: String, embeddedTarget: Bool) {
        guard options.isDistributed else { return }
        let reference = options.clockReference ?? targetURL
        if let estimate = DateHeaderProbe.measure(baseURL: reference), let offset = estimate.offsetSeconds,
           let uncertainty = estimate.uncertaintySeconds {
            clockOffset = ClockOffset(method: "HTTP Date header of \(reference) (\(estimate.samples) samples)",
                                      offsetSeconds: offset, uncertaintySeconds: uncertainty)
        } else if embeddedTarget, options.clockReference == nil {
            clockNote = "Clock offset not measured: the embedded target sends no Date header " +
                "(pass --clock-reference URL of any HTTP server all shards can reach)."
        } else {
            clockNote = "Clock offset not measured: \(reference) answered with no usable Date header."
        }
    }

    /// Serves Prometheus exposition from the driver's published snapshots; scraping never touches a worker.
    func startEndpoint(driver: LoadDriver, labels: PrometheusExposition.RunLabels) throws(CLIError) {
        guard let listen = options.metricsListen else { return }
        let exposition = PrometheusExposition(labels: labels)
        var config = HTTPServerConfiguration()
        config.host = listen.host
        config.port = listen.port
        let finalCounters = finalCounters
        let server = HTTPServer(configuration: config, handler: HTTPClosureHandler { request, respond in
            let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
            guard path == "/metrics" else {
                respond(.text(404, "callstorm serves /metrics\n"))
                return
            }
            var snapshot = driver.liveSnapshot
            if let counters = finalCounters.value.withLock({ $0 }) { snapshot.counters = counters }
            let figures = PrometheusExposition.Figures(
                counters: snapshot.counters, histograms: snapshot.histograms,
                activeConversations: snapshot.activeConversations, final: snapshot.final)
            let body = exposition.render(figures, elapsedSeconds: driver.progress.elapsedSeconds)
            respond(HTTPResponse(status: 200, headers: [
                HTTPHeader(name: "content-type", value: "text/plain; version=0.0.4; charset=utf-8"),
            ], body: Array(body.utf8)))
        })
        do {
            try server.start()
        } catch {
            throw .cannotStart(what: "the metrics endpoint on \(listen.host):\(listen.port)", cause: error)
        }
        endpoint = server
        FileHandle.standardError.write(Data(
            "callstorm: metrics on http://\(urlHost(listen.host)):\(server.port)/metrics\n".utf8))
    }

    /// Notes for the shard's own report.
    var notes: [String] {
        var notes: [String] = []
        if !options.shard.isWhole { notes.append("Shard \(options.shard) of a distributed run; merge with callstorm merge.") }
        if let clockOffset { notes.append("Clock offset: \(clockOffset.text).") }
        if let clockNote { notes.append(clockNote) }
        return notes
    }

    /// After the report: writes shard.json, then keeps the metrics endpoint up for the linger time.
    func finish(scenario: Scenario, result: LoadDriver.Result, facts: RunFacts, runDirectory: URL,
                notes: [String]) throws(CLIError) {
        let record = ShardRecord(
            shard: options.shard.description, shardIndex: options.shard.index, shardCount: options.shard.count,
            scenario: scenario.name, seed: scenario.seed, devices: scenario.devices,
            originUnixSeconds: result.originUnixSeconds, loadStartSecond: result.loadStartSecond,
            startAt: options.startAt, clockOffset: clockOffset, facts: facts, notes: notes)
        do {
            try record.write(to: runDirectory)
        } catch {
            throw .cannotWrite(what: ShardRecord.fileName, directory: runDirectory.path, cause: error)
        }
        finalCounters.value.withLock { $0 = result.recorder.counters }
        if let endpoint, options.metricsLingerNanos > 0 {
            Thread.sleep(forTimeInterval: Double(options.metricsLingerNanos) / 1e9)
            endpoint.stop()
        } else {
            endpoint?.stop()
        }
    }
}
