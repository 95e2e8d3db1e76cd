import Driver
import Foundation

/// `callstorm raw-http`: the driver's request loop with no call logic, for comparing its raw throughput with wrk's
/// against the same server (`make bench`). Prints one JSON object.
enum RawHTTPCommand {
    static let help = """
        Usage: callstorm raw-http --url URL [--devices N] [--duration D] [--workers N] [--per-client N]
                                  [--client curl|wire]

        Each device keeps one plain HTTP/1.1 GET to URL in flight, back to back, until the duration ends (a closed
        loop, like wrk's connections), through the same libcurl transport the flows use. Prints requests/s,
        statuses, errors and latency percentiles as JSON. URL must be on this machine (loopback) unless
        --allow-remote.
          --devices     devices, one keep-alive connection each (default 1000)
          --duration    how long to send (default 10s)
          --workers     worker queues (default: number of cores)
          --per-client  devices per libcurl multi handle (default 200)
          --client      curl (default: libcurl, the transport the flows use) or wire (HTTPWire, our own
                        HTTP/1.1 client on the event thread), measured the same way
        """

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args,
                                   valued: ["url", "devices", "duration", "workers", "per-client", "client"],
                                   boolean: ["help", "allow-remote"])
        if parsed.has("help") {
            print(help)
            return .passed
        }
        guard let url = parsed.value("url") else { throw .usage("raw-http needs --url URL") }
        guard let host = Loopback.host(ofURL: url), url.hasPrefix("http://") else {
            throw .badValue(flag: "url", value: url, expected: "an http:// URL")
        }
        if !Loopback.isLoopback(host) && !parsed.has("allow-remote") {
            throw .usage("--url \(url) is not on this machine; pass --allow-remote to load it anyway")
        }
        let devices = try parsed.integer("devices", default: 1000, in: 1...1_000_000)
        let workers = try parsed.integer("workers", default: ProcessInfo.processInfo.activeProcessorCount, in: 1...256)
        let perClient = try parsed.integer("per-client", default: 200, in: 1...100_000)
        let durationText = parsed.value("duration") ?? "10s"
        guard let seconds = parseSeconds(durationText), seconds > 0 else {
            throw .badValue(flag: "duration", value: durationText, expected: "a duration like 10s or 1m")
        }
        var configuration = RawHTTPLoad.Configuration(url: url, devices: devices,
                                                      durationNanos: UInt64(seconds * 1e9), workers: workers)
        configuration.devicesPerClient = perClient
        let client = parsed.value("client") ?? "curl"
        let result: RawHTTPLoad.Result
        switch client {
        case "curl": result = RawHTTPLoad.run(configuration)
        case "wire":
            do {
                result = try RawWireLoad.run(configuration)
            } catch {
                throw .badValue(flag: "url", value: url, expected: "\(error)")
            }
        case let other: throw .badValue(flag: "client", value: other, expected: "curl or wire")
        }
        let errors = result.errors.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }
            .joined(separator: ",")
        let l = result.latency
        print("{\"requests\":\(result.succeeded),\"requests_per_second\":\(Int(result.requestsPerSecond)),"
              + "\"other_status\":\(result.otherStatus),\"errors\":{\(errors)},"
              + "\"seconds\":\(result.elapsedSeconds),\"devices\":\(devices),\"workers\":\(workers),"
              + "\"client\":\"\(client)\","
              + "\"latency_us\":{\"p50\":\(l.value(atPercentile: 50)),\"p99\":\(l.value(atPercentile: 99)),"
              + "\"max\":\(l.max)}}")
        return result.succeeded > 0 ? .passed : .harnessFailure
    }

    /// `10s`, `1m`, `500ms` or a bare number of seconds.
    static func parseSeconds(_ text: String) -> Double? {
        if text.hasSuffix("ms") { return Double(text.dropLast(2)).map { $0 / 1000 } }
        if text.hasSuffix("s") { return Double(text.dropLast()) }
        if text.hasSuffix("m") { return Double(text.dropLast()).map { $0 * 60 } }
        return Double(text)
    }
}
