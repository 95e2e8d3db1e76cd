import Foundation

/// The `callstorm` command line: parses the subcommand and maps every outcome to an exit code in one place.
public enum Command {
    public static let version = "0.1.0"

    public static func main() -> Never {
        let args = Array(CommandLine.arguments.dropFirst())
        exit(run(args).rawValue)
    }

    /// Runs one command line (without the program name) and returns its exit code.
    public static func run(_ args: [String]) -> ExitCode {
        do {
            guard let sub = args.first else {
                print(Help.overview)
                return .invalidInput
            }
            let rest = Array(args.dropFirst())
            switch sub {
            case "run": return try RunCommand.execute(rest)
            case "validate": return try ValidateCommand.execute(rest)
            case "target": return try TargetCommand.execute(rest)
            case "check": return try CheckCommand.execute(rest)
            case "replay": return try ReplayCommand.execute(rest)
            case "report": return try ReportCommand.execute(rest)
            case "compare": return try CompareCommand.execute(rest)
            case "gateway": return try GatewayCommand.execute(rest)
            case "cert": return try CertCommand.execute(rest)
            case "provider-token": return try ProviderTokenCommand.execute(rest)
            case "merge": return try MergeCommand.execute(rest)
            case "raw-http": return try RawHTTPCommand.execute(rest)
            case "help", "--help", "-h":
                print(rest.first.flatMap(Help.forCommand) ?? Help.overview)
                return .passed
            case "--version", "version":
                print("callstorm \(version)")
                return .passed
            default:
                throw CLIError.usage("unknown command '\(sub)'")
            }
        } catch let error as CLIError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            return error.exitCode
        } catch {
            FileHandle.standardError.write(Data("callstorm failed: \(error)\n".utf8))
            return .harnessFailure
        }
    }
}

enum Help {
    static let overview = """
        callstorm \(Command.version) — load and chaos testing for VoIP call infrastructure

        Usage: callstorm <command> [flags]

        Commands:
          run FILE        run a scenario and write its report
          validate FILE   check a scenario; print every problem with file:line:column
          target          run the embedded reference call server on its own
          gateway         run the push gateway (APNs + FCM) on its own and log every push
          cert voip       issue a VoIP Services-like client certificate (certificate auth) from the local CA
          provider-token  print an APNs provider token (ES256 JWT) for a pusher, e.g. Kamailio's PUSH_JWT
          check RUN_DIR   check a run's operation history against the conversation rules
          replay FILE     re-run a violation's repro-<n>.yaml (--repeat K); say how often it comes back
          report RUN_DIR  rebuild every report file of a run from its raw results (also after a kill)
          compare A B     compare two runs' summaries; exit 1 on a latency regression
          merge DIR...    merge the run directories of shards into one report (--out DIR)
          raw-http        the driver's plain HTTP GET loop against one URL (raw throughput, vs wrk)
          help COMMAND    flags of one command

        Exit codes: 0 passed, 1 thresholds failed, 2 invalid input or usage, 3 harness failure,
                    130 interrupted (a partial report is still written).
        """

    static let run = """
        Usage: callstorm run FILE [flags]

          --out DIR              run directory (default Reports/<scenario>-<UTC timestamp>)
          --target URL           load this server instead of the scenario's target (loopback only)
          --allow-remote HOST    permit this non-loopback host (not 127.0.0.0/8, ::1, localhost) as target or push
                                 listener; comma-separated for several
          --seed N               override the scenario seed
          --duration D           override the arrival window (e.g. 30s, 2m)
          --workers N            worker queues (default: number of cores)
          --trace N              write the first N calls' requests, responses and pushes to trace.jsonl
          --quiet                no progress line (the line telling a script to start its outside callers stays)
          --ready-file PATH      write PATH once the devices registered and the load starts: key=value lines
                                 (registered, gateway, window_seconds, run_directory, sip for a SIP run)
          --shard i/N            run shard i (0-based) of N: devices d%N==i, arrivals k%N==i (docs/DISTRIBUTED.md)
          --start-at TIME        start the load at this ISO 8601 UTC instant (after registration), so shards line up
          --clock-reference URL  measure this machine's clock against URL's Date header (default: the target)
          --metrics-listen H:P   serve Prometheus text on http://H:P/metrics during the run
          --metrics-linger D     keep serving metrics for D after the report is written (e.g. 30s)
          --otlp URL             export metrics and traces to this OTLP/HTTP collector (over the scenario's
                                 observability.otlp.endpoint and OTEL_EXPORTER_OTLP_*; docs/OBSERVABILITY.md)
        Ctrl-C stops arrivals and drains; a second Ctrl-C stops at once. Either way the report is written.
        """

    static let validate = """
        Usage: callstorm validate FILE

        Prints every problem of the scenario as file:line:column: error: message, and exits 2 if there is one.
        With no problem it prints a summary of the plan and exits 0.
        """

    static let target = """
        Usage: callstorm target [--listen HOST:PORT] [--apns-url URL] [--bundle-id ID] [--threads N] [--tls] [options]

        Runs the embedded reference call server (docs/PROTOCOL.md) until SIGINT or SIGTERM.
          --listen     address to serve on (default 127.0.0.1:8080)
          --apns-url   the push gateway it sends VoIP pushes to (default http://127.0.0.1:2197)
          --allow-remote HOST  permit a non-loopback listen address or push gateway host
          --bug NAMES  switch on deliberate bugs, comma-separated: merge-lost-update, merge-ignores-ended,
                       unmerge-drops-join, version-not-bumped, elsewhere-keeps-ringing, elsewhere-voip-cancel,
                       interrupted-stays-joined
                       (to prove the history checker finds them)
          --unmerge-policy P  where the device that unmerges stands afterwards: hold-split (default: active in
                       the group, holding the split-off call), hold-group (active with the split member, holding
                       the group) or leave-group (docs/CHECKER.md, policies)
          --registrations FILE  keep registered devices in FILE and read them back at start (survives a crash)
          --traceparent-log FILE  append each request's method, path and traceparent header to FILE
          --apns-ca FILE        CA bundle to trust for an https gateway
          --apns-key KEYID=FILE ES256 key (.p8) to sign provider tokens with; --apns-team TEAMID names the team
          --apns-proxy URL      reach the gateway through this HTTP proxy (CONNECT), as behind HTTPS_PROXY
          --apns-cert FILE      certificate auth: a PEM client certificate and key (`callstorm cert voip`)
          --threads N           event-loop threads, 1…256 (default 1)
          --push-expiration S   stamp pushes apns-expiration = now + S seconds (default 0: deliver once, now)
          --push-retries N      tries again after a 429, 500, 503 or a lost connection, 0…100 (default 4)
          --exit-with-parent    exit when the process that started this one is gone (callstorm's child target)
          --tls                 serve https and wss (the event channel) on the same port, with the local CA's
                                certificate from --state-dir (created on first use; the banner names the CA file
                                clients verify against), or with --cert FILE --key FILE
          --admin               also serve POST /admin/drop-event-sockets[?code=N] (every event socket dropped at
                                once: a reconnect storm) and GET /admin/event-sockets (counts); for benchmarks and
                                chaos scripts, off by default (docs/PROTOCOL.md, "Admin endpoints")
        """

    static let check = """
        Usage: callstorm check RUN_DIR

        Reads RUN_DIR/history.jsonl, checks it against the rules of docs/CHECKER.md, writes checker.json and a
        timeline SVG per violation (violation-<n>.svg), prints a summary and exits 1 if any rule was broken.
        """

    static let replay = """
        Usage: callstorm replay repro-<n>.yaml [--repeat K] [--out DIR] [--quiet]

        Runs the one call a repro file names (same seed, operations, race offset and target bugs) K times
        (default 1), each a fresh run against fresh embedded servers, checks each history, and prints in how many
        repetitions the repro's rule was broken again.
          --repeat K   repetitions, 1…1000
          --out DIR    keep repetition k's run directory (report, history, checker.json) as DIR/k; without it
                       a repetition writes its history only, and removes it after the check
          --quiet      no line per repetition
        Exit 1 if the violation came back in any repetition, 0 if in none (e.g. after a fix), 2 bad usage.
        """

    static let gateway = """
        Usage: callstorm gateway [--listen HOST:PORT] [--tls] [--state-dir DIR] [--cert FILE --key FILE] [flags]

        Runs the push gateway until SIGINT or SIGTERM and logs every push it accepts or rejects.
          --listen        address to serve on (default 127.0.0.1:2197)
          --tls           serve HTTP/2 over TLS (ALPN h2, or no ALPN) with a certificate from callstorm's local
                          CA, created on first use in the state directory and printed so clients can trust it
          --state-dir     where the local CA lives (default $CALLSTORM_STATE_DIR or ~/.local/state/callstorm)
          --cert, --key   serve TLS with your own PEM certificate and key instead
          --client-ca     trust client certificates (certificate auth) from this PEM CA; default: the local CA
                          when the gateway uses it (issue one with `callstorm cert voip`)
          --bundle-id     the app's bundle id; VoIP topics must be <bundle-id>.voip (default com.example.callstorm)
          --keys          KEYID=key.pem[,…]: verify provider-token ES256 signatures with these keys
          --team          the team id tokens must name in iss
          --unregistered  TOKEN[,…]: answer these device tokens with 410 Unregistered
          --fcm-project   the FCM project id requests must name (default: any)
          --threads N     event-loop threads (default 1)
          --quiet         no line per push
          --allow-remote HOST  permit a --listen address outside loopback (e.g. 0.0.0.0)
        Without --tls the port speaks HTTP/2 with prior knowledge (h2c) and HTTP/1.1, and TLS as well.
        Either way it answers HTTP CONNECT to api.push.apple.com, api.sandbox.push.apple.com and
        api.development.push.apple.com on 443 or 2197 and serves the tunnel itself, so
        HTTPS_PROXY=http://HOST:PORT plus trusting the CA is all an APNs client needs (docs/GATEWAY.md).
        """

    static func forCommand(_ name: String) -> String? {
        switch name {
        case "check": return check
        case "replay": return replay
        case "gateway": return gateway
        case "run": return run
        case "validate": return validate
        case "target": return target
        case "report": return report
        case "compare": return compare
        case "merge": return MergeCommand.help
        case "cert": return CertCommand.help
        case "provider-token": return ProviderTokenCommand.help
        case "raw-http": return RawHTTPCommand.help
        default: return nil
        }
    }
}
