/// `device.signaling: sip`: the devices are SIP user agents (RFC 3261) registered at `target.sip`'s registrar,
/// instead of clients of an HTTP call server. See docs/SIP.md.
public struct SIPDeviceSpec: Sendable, Equatable {
    public enum Transport: String, Sendable, CaseIterable {
        case udp, tcp
    }

    /// `sleep: true`: the device keeps no registration between calls; a VoIP push (RFC 8599, sent by the SIP
    /// server through callstorm's push gateway) wakes it, it reports the call, re-REGISTERs and then gets the
    /// INVITE. `false`: it stays registered (refreshing before expiry) and gets INVITEs directly.
    public var sleep: Bool
    public var transport: Transport

    public init(sleep: Bool = false, transport: Transport = .udp) {
        self.sleep = sleep
        self.transport = transport
    }
}

/// `target.sip`: the SIP server (a registrar and proxy such as Kamailio) the SIP devices register at and send
/// their requests to.
public struct SIPTargetSpec: Sendable, Equatable {
    /// The outbound proxy and registrar, `host:port` (IPv4; loopback in tests).
    public var host: String
    public var port: Int
    /// The domain of every device's address of record (`sip:<device id>@<domain>`); the registrar's host when
    /// not given.
    public var domain: String
    /// The digest password every device authenticates with (the shipped Kamailio config takes one for all).
    public var password: String
    /// The registration lifetime devices ask for, seconds.
    public var expires: Int

    public init(host: String, port: Int, domain: String? = nil, password: String = "callstorm", expires: Int = 600) {
        self.host = host
        self.port = port
        self.domain = domain ?? host
        self.password = password
        self.expires = expires
    }

    /// The flow steps SIP carries (`start` is INVITE, `join` 200 OK, `decline` 486/603, `end` BYE or CANCEL,
    /// `pause`/`resume` re-INVITE); merge and unmerge need a conference focus, which a SIP proxy is not.
    public static let unsupportedSteps: Set<String> = ["merge", "unmerge"]
}
