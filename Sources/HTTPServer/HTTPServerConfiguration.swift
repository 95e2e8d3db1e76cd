import EventPolling

/// How an `HTTPServer` listens and what it tolerates. A plain value: build it, then hand it to the server.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// An IPv4 or IPv6 literal (no host names: resolving is not the server's job).
    public var host: String
    /// The TCP port; 0 asks the kernel for a free one (read it back from `HTTPServer.port`).
    public var port: Int
    /// Event-loop threads, each with its own epoll set and connections.
    public var threads: Int
    /// Largest request line plus header section (and chunked trailer section) accepted; beyond it: 431.
    public var maxHeaderBytes: Int
    /// Largest decoded request body accepted; beyond it: 413.
    public var maxBodyBytes: Int
    /// A connection with no request in progress and no byte moved for this long is closed. Fractions allowed.
    public var idleTimeoutSeconds: Double
    /// The listen backlog.
    public var backlog: Int
    /// Serve TLS with these files (ALPN h2 or http/1.1; without ALPN the first bytes decide). Nil: cleartext,
    /// where HTTP/2 with prior knowledge (h2c) and HTTP/1.1 share the port.
    public var tls: TLSFiles? = nil
    /// Whether HTTP/2 is spoken at all; when false, every connection is HTTP/1.1.
    public var http2 = true
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised on HTTP/2 connections.
    public var maxConcurrentStreams = 1000
    /// Answer HTTP CONNECT to these targets by serving the tunnel itself (see `ConnectPolicy`); nil passes a
    /// CONNECT to the handler like any request.
    public var connect: ConnectPolicy? = nil
    /// The loop threads' name, `NAME.INDEX` (the kernel keeps 15 bytes: what top, perf and /proc/…/comm show);
    /// nil keeps the name they inherit.
    public var threadName: String? = nil
    /// How the loop threads share the cores (`ThreadScheduling`): the embedded reference target's run below the
    /// driver's workers in the capacity run (docs/BENCHMARKS.md).
    public var threadScheduling: ThreadScheduling = .normal

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        threads: Int = 1,
        maxHeaderBytes: Int = 64 * 1024,
        maxBodyBytes: Int = 1024 * 1024,
        idleTimeoutSeconds: Double = 60,
        backlog: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.backlog = backlog
    }

    /// Every problem with this configuration, all at once; empty when it is usable.
    public func validate() -> [String] {
        var problems: [String] = []
        if host.isEmpty { problems.append("host must not be empty") }
        if !(0...65535).contains(port) { problems.append("port \(port) is outside 0...65535") }
        if !(1...256).contains(threads) { problems.append("threads \(threads) is outside 1...256") }
        if maxHeaderBytes < 256 { problems.append("maxHeaderBytes \(maxHeaderBytes) is below 256") }
        if maxBodyBytes < 0 { problems.append("maxBodyBytes \(maxBodyBytes) is negative") }
        if !(idleTimeoutSeconds > 0) { problems.append("idleTimeoutSeconds \(idleTimeoutSeconds) must be positive") }
        if backlog < 1 { problems.append("backlog \(backlog) must be at least 1") }
        if !(1...100_000).contains(maxConcurrentStreams) {
            problems.append("maxConcurrentStreams \(maxConcurrentStreams) is outside 1...100000")
        }
        if let connect, tls == nil && connect.tunnelTLS == nil {
            problems.append("connect needs TLS to serve inside tunnels: set tls or connect.tunnelTLS")
        }
        return problems
    }
}
