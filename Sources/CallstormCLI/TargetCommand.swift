import CallModel
import Credentials
import Dispatch
import Foundation
import HTTPServer
import ReferenceTarget
import Scenario

/// `callstorm target`: the reference call server on its own, until SIGINT or SIGTERM.
enum TargetCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: ["listen", "apns-url", "bundle-id", "threads", "bug", "allow-remote",
                                                  "registrations", "apns-ca", "apns-key", "apns-team",
                                                  "apns-proxy", "apns-cert",
                                                  "push-expiration", "push-retries", "cert", "key", "state-dir",
                                                  "unmerge-policy", "traceparent-log"],
                                   boolean: ["help", "exit-with-parent", "tls", "admin"])
        if parsed.has("help") {
            print(Help.target)
            return .passed
        }
        let (host, port) = try parsed.hostPort("listen", default: "127.0.0.1:8080")
        let apns = parsed.value("apns-url") ?? "http://127.0.0.1:2197"
        let allowed = try Loopback.allowedHosts(parsed.value("allow-remote"))
        try Loopback.require(host, role: "listen address", allowed: allowed)
        // Behind a proxy the pushes go to the proxy's host (the URL then names Apple's host, never dialled).
        let dialled = parsed.value("apns-proxy") ?? apns
        guard let apnsHost = Loopback.host(ofURL: dialled) else {
            throw .badValue(flag: parsed.value("apns-proxy") == nil ? "apns-url" : "apns-proxy", value: dialled,
                            expected: "a URL with a host, like http://127.0.0.1:2197")
        }
        try Loopback.require(apnsHost, role: "push gateway (--apns-url or --apns-proxy)", allowed: allowed)
        let threads = try parsed.integer("threads", default: 1, in: 1...256)
        let target = try referenceTarget(parsed, apns: apns)
        let (config, caPath) = try serverConfiguration(parsed, host: host, port: port, threads: threads)
        let handler: any HTTPHandler = parsed.has("admin") ? TargetAdmin(target: target) : target
        let server = HTTPServer(configuration: config, handler: handler)
        do { try server.start() } catch { throw .cannotStart(what: "the target on \(host):\(port)", cause: error) }
        // Unbuffered, so a script waiting for this line sees it at once.
        let scheme = config.tls == nil ? "http" : "https"
        var banner = "callstorm target listening on \(scheme)://\(urlHost(host)):\(server.port), pushes to \(apns)\n"
        if let caPath { banner += "trust this CA for https and wss: \(caPath)\n" }
        if parsed.has("admin") {
            banner += "admin endpoints on: POST /admin/drop-event-sockets, GET /admin/event-sockets\n"
        }
        FileHandle.standardOutput.write(Data(banner.utf8))
        let done = DispatchSemaphore(value: 0)
        let signals = SignalWatch { _ in done.signal() }
        let orphanWatch = parsed.has("exit-with-parent") ? ParentWatch { done.signal() } : nil
        done.wait()
        orphanWatch?.cancel()
        signals.cancel()
        server.stop()
        target.close()
        return .passed
    }
}

extension TargetCommand {
    /// The reference target the flags describe: its bugs, unmerge policy and push settings (the gateway's CA,
    /// provider key, proxy and client certificate, registered for the gateway URL its pushes go to).
    static func referenceTarget(_ parsed: Arguments, apns: String) throws(CLIError) -> ReferenceTarget {
        var bugs: Set<ReferenceTarget.Bug> = []
        for name in (parsed.value("bug") ?? "").split(separator: ",") {
            guard let bug = ReferenceTarget.Bug(rawValue: String(name)) else {
                throw .badValue(flag: "bug", value: String(name), expected: "bug names among " +
                                ReferenceTarget.Bug.allCases.map(\.rawValue).joined(separator: ", "))
            }
            bugs.insert(bug)
        }
        _ = try parsed.readableFile("apns-ca")
        _ = try parsed.readableFile("apns-cert")
        let unmergePolicy = try parsed.choice("unmerge-policy", default: ServerPolicy.Unmerge.holdSplit)
        var signer: ProviderTokenSigner?
        if let keyArg = parsed.value("apns-key") {
            let parts = keyArg.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].count == 10 else {
                throw .badValue(flag: "apns-key", value: keyArg, expected: "KEYID=FILE with a 10-character key id")
            }
            do {
                signer = ProviderTokenSigner(keyID: parts[0], teamID: parsed.value("apns-team") ?? "CALLSTORMT",
                                             key: try ES256Key(contentsOf: parts[1]))
            } catch {
                throw .badValue(flag: "apns-key", value: keyArg, expected: "a readable ES256 key file (\(error))")
            }
        }
        if signer != nil || parsed.value("apns-ca") != nil || parsed.value("apns-proxy") != nil
            || parsed.value("apns-cert") != nil {
            PushClientSettings.register(PushClientSettings(caFile: parsed.value("apns-ca"), signer: signer,
                                                           proxy: parsed.value("apns-proxy"),
                                                           clientCertificatePath: parsed.value("apns-cert")),
                                        forGatewayURL: apns)
        }
        var configuration = ReferenceTarget.Configuration(
            gatewayURL: apns, bundleID: parsed.value("bundle-id") ?? "com.example.callstorm", bugs: bugs,
            registrationsFile: parsed.value("registrations"),
            pushExpirationSeconds: try parsed.integer("push-expiration", default: 0, in: 0...Int(Int32.max)),
            pushRetries: try parsed.integer("push-retries", default: PushSpec.defaultRetries, in: 0...100))
        configuration.unmergePolicy = unmergePolicy
        configuration.traceparentLog = parsed.value("traceparent-log")
        return ReferenceTarget(configuration: configuration)
    }
}

extension TargetCommand {
    /// The listener: address and threads, and TLS (`--tls`, or `--cert`/`--key`) for https and wss on the same
    /// port, with the local CA's certificate when no pair is given. Returns the CA file clients should trust.
    static func serverConfiguration(_ parsed: Arguments, host: String, port: Int, threads: Int) throws(CLIError)
        -> (HTTPServerConfiguration, caPath: String?) {
        var config = HTTPServerConfiguration()
        config.host = host
        config.port = port
        config.threads = max(1, threads)
        var caPath: String?
        if parsed.has("tls") || parsed.value("cert") != nil || parsed.value("key") != nil {
            let chosen = try TLSArguments.files(parsed, clientCA: nil, askLocalCA: false)
            config.tls = chosen.files
            caPath = chosen.caPath
        }
        return (config, caPath)
    }
}

/// SIGINT/SIGTERM as DispatchSources on their own queue (never in main.swift, whose closures are main-actor).
final class SignalWatch: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "callstorm.signals")

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { handler(sig) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// Calls `gone` once the process that started this one has exited (the parent pid changes when the kernel
/// re-parents an orphan), so a child target never outlives a callstorm run that was killed.
final class ParentWatch: @unchecked Sendable {
    private let timer: DispatchSourceTimer

    init(_ gone: @escaping @Sendable () -> Void) {
        let parent = getppid()
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "callstorm.parent-watch"))
        timer.setEventHandler { if getppid() != parent { gone() } }
        timer.schedule(deadline: .now() + 0.2, repeating: 0.2)
        timer.resume()
    }

    func cancel() { timer.cancel() }
}
