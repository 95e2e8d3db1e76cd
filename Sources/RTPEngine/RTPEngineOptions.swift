import Foundation

/// How to start one rtpengine: userspace forwarding on one interface, its ng control port, the media ports it
/// may take, its log. A value, so the command line it makes is tested without starting anything.
public struct RTPEngineOptions: Sendable, Equatable {
    /// The address rtpengine binds media ports on and writes into rewritten SDP (`--interface`).
    public var interface: String
    /// The media ports (`--port-min`, `--port-max`); nil picks a free range of `portCount` ports when it starts.
    public var ports: ClosedRange<Int>?
    /// How many ports a picked range holds: two per stream (RTP and RTCP), two streams per call.
    public var portCount: Int
    /// Ports a picked range must not overlap: the ones the run's own media streams bind (`media.ports`).
    public var avoidPorts: ClosedRange<Int>?
    /// `--log-level` (syslog levels: 3 errors … 6 informational, 7 debug).
    public var logLevel: Int
    /// Where its stderr goes; nil keeps `rtpengine.log` in its runtime directory, removed at `stop`.
    public var logFile: URL?
    /// `--delete-delay`: seconds a deleted call stays queryable. 0 frees its ports at once.
    public var deleteDelay: Int
    /// `--num-threads`; nil leaves rtpengine's default (one per core).
    public var threads: Int?
    /// Starts it in a process group of its own (as `KamailioOptions.ownProcessGroup`: a Ctrl-C reaches only
    /// callstorm, which then stops it). Off for tests.
    public var ownProcessGroup: Bool
    /// How long to wait for the first `pong`.
    public var readySeconds: Double

    public init(interface: String = "127.0.0.1", ports: ClosedRange<Int>? = nil, portCount: Int = 200,
                logLevel: Int = 5, logFile: URL? = nil, deleteDelay: Int = 0, threads: Int? = 2,
                ownProcessGroup: Bool = false, readySeconds: Double = 10) {
        self.interface = interface
        self.ports = ports
        self.portCount = portCount
        avoidPorts = nil
        self.logLevel = logLevel
        self.logFile = logFile
        self.deleteDelay = deleteDelay
        self.threads = threads
        self.ownProcessGroup = ownProcessGroup
        self.readySeconds = readySeconds
    }

    /// rtpengine's command line: no configuration file (Debian's /etc/rtpengine/rtpengine.conf would otherwise
    /// be read), userspace forwarding only (`--table=-1`: no kernel module, nothing that needs root), in the
    /// foreground, logging to stderr, ng control on `interface:ngPort` over UDP.
    public func arguments(ngPort: Int, ports: ClosedRange<Int>) -> [String] {
        var args = ["--config-file=none", "--table=-1", "--foreground", "--log-stderr",
                    "--interface=\(interface)", "--listen-ng=\(interface):\(ngPort)",
                    "--port-min=\(ports.lowerBound)", "--port-max=\(ports.upperBound)",
                    "--log-level=\(logLevel)", "--delete-delay=\(deleteDelay)"]
        if let threads { args.append("--num-threads=\(threads)") }
        return args
    }
}
