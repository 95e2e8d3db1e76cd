import Foundation
import WebSocket

/// `ws-bench hold`'s arguments and its JSON output.
extension HoldBench {
    static let usage = """
        usage: ws-bench hold --prefix URL --count N [--first I] [--ca FILE] [--window W] [--backoff-ms B]
                             [--backoff-cap-ms C] [--seed S] [--stop-file PATH] --out FILE
          socket i connects to URL<first+i> (e.g. wss://127.0.0.1:8443/v1/events?device=d); prints `ready N` once
          all N are open, reconnects what the server drops (uniform in [0, min(C, B·2^k)) before attempt k), and
          writes the figures to FILE after a `stop` line or EOF on stdin (or once PATH exists)
        """

    static func parse(_ args: [String]) throws -> Options {
        var options = Options()
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < args.count else { throw HoldBenchError.usage("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--prefix": options.prefix = try value()
            case "--count": options.count = try number(value())
            case "--first": options.first = try number(value())
            case "--ca": options.caFile = try value()
            case "--window": options.window = try number(value())
            case "--backoff-ms": options.backoffBaseNanos = UInt64(try number(value())) * 1_000_000
            case "--backoff-cap-ms": options.backoffCapNanos = UInt64(try number(value())) * 1_000_000
            case "--seed": options.seed = UInt64(try number(value()))
            case "--out": options.out = try value()
            case "--stop-file": options.stopFile = try value()
            default: throw HoldBenchError.usage("unknown argument \(args[i])")
            }
            i += 1
        }
        guard !options.prefix.isEmpty, options.count > 0, options.window > 0 else {
            throw HoldBenchError.usage("--prefix, a positive --count and --window are required")
        }
        return options
    }

    private static func number(_ text: String) throws -> Int {
        guard let n = Int(text), n >= 0 else { throw HoldBenchError.usage("'\(text)' is not a whole number") }
        return n
    }

    func write(_ f: Figures, tally: CloseTally, openAtStop: Int) throws {
        let closes = tally.closed.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
        let text = """
            {"sockets": \(options.count), "open_seconds": \(f.openSeconds), "open_cpu_seconds": \(f.openCPUSeconds),
             "rss_base_bytes": \(f.rssBase), "rss_open_bytes": \(f.rssOpen),
             "heap_base_bytes": \(f.heapBase), "heap_open_bytes": \(f.heapOpen),
             "open_retries": \(f.openRetries), "drops": \(f.drops), "reconnect_attempts": \(f.reconnectAttempts),
             "first_drop_ms": \(f.firstDropMillis.map(String.init) ?? "null"),
             "reopened_ms": [\(f.reopenedMillis.map(String.init).joined(separator: ","))],
             "opened_total": \(tally.opened), "open_at_stop": \(openAtStop),
             "closes": {\(closes.joined(separator: ", "))}}

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: options.out))
    }
}

enum HoldBenchError: Error, CustomStringConvertible {
    case usage(String)

    var description: String {
        switch self {
        case .usage(let why): return "\(why)\n\(HoldBench.usage)"
        }
    }
}
