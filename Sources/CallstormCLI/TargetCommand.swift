import Dispatch
import Foundation
import HTTPServer
import ReferenceTarget

/// `callstorm target`: the reference call server on its own, until SIGINT or SIGTERM.
enum TargetCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: ["listen", "apns-url", "bundle-id", "threads", "bug", "allow-remote"],
                                   boolean: ["help"])
        if parsed.has("help") {
            print(Help.target)
            return .passed
        }
        let listen = parsed.value("listen") ?? "127.0.0.1:8080"
        guard let (host, port) = Loopback.hostPort(listen) else {
            throw .usage("--listen must be HOST:PORT, got '\(listen)'")
        }
        let apns = parsed.value("apns-url") ?? "http://127.0.0.1:2197"
        let allowed = try Loopback.allowedHosts(parsed.value("allow-remote"))
        try Loopback.require(host, role: "listen address", allowed: allowed)
        guard let apnsHost = Loopback.host(ofURL: apns) else { throw .usage("--apns-url '\(apns)' has no host") }
        try Loopback.require(apnsHost, role: "push gateway (--apns-url)", allowed: allowed)
        let threads = Int(parsed.value("threads") ?? "1") ?? 1
        var bugs: Set<ReferenceTarget.Bug> = []
        for name in (parsed.value("bug") ?? "").split(separator: ",") {
            guard let bug = ReferenceTarget.Bug(rawValue: String(name)) else {
                throw .usage("unknown --bug '\(name)'; known: " +
                             ReferenceTarget.Bug.allCases.map(\.rawValue).joined(separator: ", "))
            }
            bugs.insert(bug)
        }
        let target = ReferenceTarget(configuration: .init(
            gatewayURL: apns, bundleID: parsed.value("bundle-id") ?? "com.example.callstorm", bugs: bugs))
        var config = HTTPServerConfiguration()
        config.host = host
        config.port = port
        config.threads = max(1, threads)
        let server = HTTPServer(configuration: config, handler: target)
        do { try server.start() } catch { throw .harness("\(error)") }
        // Unbuffered, so a script waiting for this line sees it at once.
        let banner = "callstorm target listening on http://\(urlHost(host)):\(server.port), pushes to \(apns)\n"
        FileHandle.standardOutput.write(Data(banner.utf8))
        let done = DispatchSemaphore(value: 0)
        let signals = SignalWatch { _ in done.signal() }
        done.wait()
        signals.cancel()
        server.stop()
        target.close()
        return .passed
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
