import Foundation

/// How to start one Kamailio: its configuration, the `-A` defines that select its routes, where its log goes and
/// its memory pools. A value, so the command line it makes is tested without starting anything.
public struct KamailioOptions: Sendable, Equatable {
    /// The configuration file: deploy/kamailio/kamailio.cfg, or one the scenario names.
    public var configuration: URL
    /// `-A` pre-processor defines (`WITH_PUSH`, `PUSH_URL="http://…"`, `SIP_PASSWORD="…"`).
    public var defines: [String]
    /// Where its stdout and stderr go; nil keeps `kamailio.log` in its runtime directory, removed at `stop`.
    public var logFile: URL?
    /// Starts it in a process group of its own, so a Ctrl-C at the terminal reaches only callstorm, which drains
    /// its calls through the server and then stops it, instead of the server dying first (the CLI's choice). Off
    /// for tests: a test process killed from outside then takes its Kamailio with it.
    public var ownProcessGroup: Bool
    /// `-m` (shared memory, MB): transactions and registrations live there.
    public var sharedMemoryMB: Int
    /// `-M` (private memory per process, MB).
    public var privateMemoryMB: Int
    /// `-x` and `-X`: the allocator of the shared and of each private memory pool; nil keeps Kamailio's default,
    /// `qm`, whose search for a free fragment walks its size buckets one by one: under callgrind it ran 61 % of
    /// Kamailio's instructions per call through the bench's configuration, awake or woken by a push; `tlsf` halves
    /// them, though only ~12 % of the CPU time by the profile's shares (qm's walk is cheap instructions in cache;
    /// docs/SIP.md, "Kamailio's own cost per call"). Left out when a TLS listener loads the tls module.
    public var memoryManager: String? = Self.defaultMemoryManager
    /// `-n` and `-N`: SIP worker processes per UDP listener and TCP readers; nil keeps the configuration's
    /// `children` and `tcp_children`.
    public var children: Int?
    /// `-N` alone (TCP/TLS readers), over `children`'s: one reader when the tls module is loaded, since Debian
    /// bookworm's Kamailio 5.6.3 double-frees in it with two or more (`qm_free(): BUG: freeing already freed
    /// pointer … tls_init.c: ser_free`, then failed handshakes or a dead worker; docs/SIP.md "Kamailio started by
    /// the run").
    public var tcpChildren: Int?
    /// How long to wait for its first answer to an OPTIONS.
    public var readySeconds: Double
    /// TLS and WebSocket listeners beside UDP and TCP; nil: none.
    public var listeners: KamailioListeners?

    public init(configuration: URL = KamailioOptions.checkoutConfiguration, defines: [String] = [],
                logFile: URL? = nil, ownProcessGroup: Bool = false, sharedMemoryMB: Int = 32,
                privateMemoryMB: Int = 8, readySeconds: Double = 20) {
        self.configuration = configuration
        self.defines = defines
        self.logFile = logFile
        self.ownProcessGroup = ownProcessGroup
        self.sharedMemoryMB = sharedMemoryMB
        self.privateMemoryMB = privateMemoryMB
        self.readySeconds = readySeconds
    }

    /// TLSF (two-level segregated fit): a free fragment found in constant time, neighbours merged as they free.
    public static let defaultMemoryManager = "tlsf"

    /// The shipped configuration's path inside a checkout.
    public static let shippedPath = "deploy/kamailio/kamailio.cfg"

    /// deploy/kamailio/kamailio.cfg in the checkout this module was built from (tests and `swift run`).
    public static var checkoutConfiguration: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(shippedPath)
    }

    /// The shipped configuration for a run: under `directory` (a checkout, where `callstorm run` is started), else
    /// in the checkout the binary was built from; nil when neither has it.
    public static func shippedConfiguration(under directory: String) -> URL? {
        let local = URL(fileURLWithPath: directory).appendingPathComponent(shippedPath)
        return [local, checkoutConfiguration].first { FileManager.default.isReadableFile(atPath: $0.path) }
    }

    /// The defines of the push wake-up route (docs/SIP.md): pushes POSTed to `url` (the run's gateway, cleartext)
    /// with `authorization: bearer <token>`; a parked INVITE waits `timeoutMillis` (the configuration's default,
    /// 10,000, when nil).
    public static func pushDefines(url: String, token: String?, timeoutMillis: Int? = nil) -> [String] {
        var defines = ["WITH_PUSH", "PUSH_URL=\"\(url)\""]
        if let token { defines.append("PUSH_JWT=\"\(token)\"") }
        if let timeoutMillis { defines.append("PUSH_TIMEOUT=\(timeoutMillis)") }
        return defines
    }

    /// The defines of the kept push connection (deploy/kamailio/kamailio.cfg route[PUSHKEPT], -A PUSH_KEEP and
    /// PUSH_KEEP_TOPIC; scripts/bench-sip-lib.sh `push_keep` writes the same): each push task worker keeps one
    /// connection to `url` for the VoIP pushes at priority 10 to `topic`, instead of a connection per push. Kamailio
    /// 5.6's kept connection (a named httpcon) sends none of the script's headers, so the constant ones (the provider
    /// token among them) ride in its user agent, which libcurl writes as given: `\r\n` stays as written here and
    /// the configuration's parser turns it into CR LF. Pushes to any other topic still get a connection each.
    public static func keptPushDefines(url: String, token: String?, topic: String) -> [String] {
        let lines = (token.map { "authorization: bearer \($0)\\r\\n" } ?? "")
            + "apns-push-type: voip\\r\\napns-topic: \(topic)\\r\\napns-priority: 10"
        return ["PUSH_KEEP=\"push=>\(url);useragent=\\\"callstorm\\r\\n\(lines)\\\"\"",
                "PUSH_KEEP_TOPIC=\"\(topic)\""]
    }

    /// The define of the forking routes (fork.cfg: several bindings per address of record, parallel branches, a
    /// push to each sleeping device); with it `forkNoLateDefine` leaves out telling a device woken after the call
    /// ended.
    public static let forkDefine = "WITH_FORK"
    public static let forkNoLateDefine = "WITH_FORK_NO_LATE"

    /// The defines as the run's facts show them: a provider token is a credential (valid an hour), so its value is
    /// left out.
    public var shownDefines: [String] {
        defines.map { define in
            if define.hasPrefix("PUSH_JWT=") { return "PUSH_JWT=\"<provider token>\"" }
            // The kept connection's header lines carry the same token.
            guard define.hasPrefix("PUSH_KEEP="), let bearer = define.range(of: "authorization: bearer ") else {
                return define
            }
            let end = define[bearer.upperBound...].range(of: "\\r\\n")?.lowerBound ?? define.endIndex
            return define.replacingCharacters(in: bearer.upperBound..<end, with: "<provider token>")
        }
    }

    /// Kamailio's command line: in the foreground (`-DD`), logging to stderr (`-E`), listening on `port` over UDP
    /// and TCP on loopback.
    public func arguments(modules: String, runDirectory: String, port: Int) -> [String] {
        arguments(modules: modules, runDirectory: runDirectory, ports: KamailioPorts(sip: port))
    }

    /// The same with every listener in `ports`, and the listeners' defines (the tls module's file is
    /// `<runDirectory>/tls.cfg`, which `KamailioServer` writes).
    public func arguments(modules: String, runDirectory: String, ports: KamailioPorts) -> [String] {
        var args = ["-f", configuration.path, "-DD", "-E", "-L", modules, "-Y", runDirectory]
            + ports.listenArguments + ["-m", "\(sharedMemoryMB)", "-M", "\(privateMemoryMB)"]
        // Not with the tls module: Debian's 5.6.3 double-frees OpenSSL's state there under load (`tcpChildren`), and
        // qm catches a double free and logs it where TLSF would corrupt its lists.
        if let memoryManager, listeners?.needsTLS != true { args += ["-x", memoryManager, "-X", memoryManager] }
        if let children { args += ["-n", "\(children)"] }
        if let readers = tcpChildren ?? children { args += ["-N", "\(readers)"] }
        var listenerDefines = listeners?.defines(tlsConfigurationPath: runDirectory + "/tls.cfg") ?? []
        // Forking's parking branches go to this proxy's own UDP listener (deploy/kamailio/fork.cfg).
        if defines.contains(Self.forkDefine), !defines.contains(where: { $0.hasPrefix("FORK_PARK=") }) {
            listenerDefines.append("FORK_PARK=\"sip:127.0.0.1:\(ports.sip);transport=udp\"")
        }
        for define in defines + listenerDefines { args += ["-A", define] }
        return args
    }
}
