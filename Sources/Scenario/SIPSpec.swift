import Determinism
import Quantities

/// `device.signaling: sip`: the devices are SIP user agents (RFC 3261) registered at `target.sip`'s registrar,
/// instead of clients of an HTTP call server. See docs/SIP.md.
public struct SIPDeviceSpec: Sendable, Equatable {
    /// `tls`: SIP over TLS (RFC 3261 §26) on a TCP connection to the registrar's TLS port, the proxy's
    /// certificate verified against `target.sip.ca` (docs/SIP.md, "SIP over TLS"). `ws`, `wss`: SIP over
    /// WebSocket (RFC 7118) to the registrar's WebSocket port, in the clear or under TLS (verified as `tls`).
    public enum Transport: String, Sendable, CaseIterable {
        case udp, tcp, tls, ws, wss

        /// Whether messages travel on a connection (TCP, TLS, WebSocket), which the kernel retransmits, not
        /// datagrams.
        public var isConnection: Bool { self != .udp }

        /// Whether the devices verify the registrar's certificate (`tls`, `wss`), against `target.sip.ca`.
        public var isSecure: Bool { self == .tls || self == .wss }
    }

    /// `sleep: true`: the device keeps no registration between calls; a VoIP push (RFC 8599, sent by the SIP
    /// server through callstorm's push gateway) wakes it, it reports the call, re-REGISTERs and then gets the
    /// INVITE. `false`: it stays registered (refreshing before expiry) and gets INVITEs directly.
    public var sleep: Bool
    /// `sleep: 50%`: the share of devices that sleep (each device's own seeded draw, `sleeps(index:seed:)`), the
    /// others stay registered; 1 with `sleep: true`. Lets one user's devices differ (issue 36).
    public var sleepShare: Double = 1
    public var transport: Transport
    /// `wake_after`: how long a woken app takes, after it reported the push, before its wake REGISTER leaves
    /// (launching in the background, bringing its SIP stack up). Nil: at once. A property of the app, not a fault:
    /// it is what makes a Lock Screen answer come before the INVITE, and a long one can miss the server's push
    /// timeout as a slow app would.
    public var wakeAfter: Distribution?
    /// When a callee's `join` is fulfilled (`device.join_at`).
    public enum JoinAt: String, Sendable, CaseIterable {
        /// When its 200 goes: the callee's dialog is confirmed by its 2xx (RFC 3261 §12.1.1). The default.
        case answer
        /// When its 200 is ACKed: for a scenario that measures the whole answer; a BYE that overtakes the ACK then
        /// fails the join `already_ended`.
        case ack
        /// When media flows both ways at the callee (needs `media:`, docs/MEDIA.md "When a join is fulfilled"): its
        /// audio session started (it sends) and the caller's first packet arrived; no packet within
        /// `media.one_way_after` fails the join `no_audio`. A call the media share does not carry joins at the
        /// answer.
        case media
    }

    /// `join_at`: `answer`, `ack` or `media`.
    public var joinAt: JoinAt
    /// `join_at: ack`.
    public var joinAtAck: Bool {
        get { joinAt == .ack }
        set { joinAt = newValue ? .ack : .answer }
    }
    /// `audio_session`: how long the app's audio session takes to start after the callee's answer (the system
    /// activates it once the call is answered, WWDC26 LiveCommunicationKit): its RTP starts that much after its
    /// 2xx goes. Drawn per call from the seed; the app's normal behaviour, not a fault. Nil: at once. Needs `media:`.
    public var audioSession: Distribution?
    /// `tls_resumption: true` (tls, wss): a device keeps the TLS session of its last connection and offers it on
    /// the next (a wake's), so the server may resume it instead of a full handshake (`sip.tls.resumed` vs
    /// `sip.tls.full`; what it saves shows in `wake.handshake`). Off: every connection is a full handshake.
    public var tlsResumption: Bool
    /// `reconnect`, `reconnect_base`, `reconnect_max` (tcp, tls, ws, wss): what an awake device does when its
    /// connection to the registrar breaks (docs/SIP.md, "A proxy restart").
    public var reconnect = Reconnect()

    public init(sleep: Bool = false, transport: Transport = .udp, wakeAfter: Distribution? = nil,
                joinAtAck: Bool = false, tlsResumption: Bool = false) {
        self.sleep = sleep
        self.transport = transport
        self.wakeAfter = wakeAfter
        self.joinAt = joinAtAck ? .ack : .answer
        self.tlsResumption = tlsResumption
    }

    /// Whether the device of run-wide `index` sleeps: every one with `sleep: true`, none with `false`, and with a
    /// share a draw keyed by the seed and the index alone (the same devices every run of one seed, whatever the
    /// worker layout).
    public func sleeps(index: Int, seed: UInt64) -> Bool {
        guard sleep else { return false }
        guard sleepShare < 1 else { return true }
        var random = SeededRandom(keys: seed, UInt64(truncatingIfNeeded: index), 0x736C_6565_70)  // "sleep"
        return random.nextUnit() < sleepShare
    }

    /// `sockets`: how the UDP devices of one worker reach the proxy. `device` (the default): each its own socket and
    /// port, as phones are; `shared`: one socket per worker for all of them, as SIPp's one socket per side, told
    /// apart by a `csdev` parameter in each device's Contact and Via (docs/SIP.md, "The shared-socket mode").
    public enum Sockets: String, Sendable, CaseIterable {
        case device, shared
    }

    /// `sockets`: `device` or `shared` (UDP, devices that do not sleep).
    public var sockets: Sockets = .device
    /// `coalesce` (with `sockets: shared`): after a read of the shared socket that carried few datagrams, how long
    /// the socket is left unwatched so the next read carries more (batches on purpose, docs/SIP.md); 0 turns it
    /// off. Timers keep firing meanwhile.
    public var coalesceNanos: UInt64 = 300_000

    /// RFC 5626 flow recovery as a phone does it. `none` (the default): the device reconnects and waits for its
    /// next REGISTER refresh, unknown to the proxy until then. `fixed`, `exponential`: it re-REGISTERs on the new
    /// connection at once; while the registrar refuses or resets connections it retries after `base` (`fixed`) or
    /// `min(max, base × 2^failures)` (`exponential`), each times a seeded random factor in [50 %, 100 %].
    /// RFC 5626's 30 s / 1,800 s suit a phone alone; a load run's outage lasts seconds, so the defaults are 1 s
    /// and 30 s: the first retries land while a restarted proxy is coming up, and no device sits out a run.
    public struct Reconnect: Sendable, Equatable {
        public enum Backoff: String, Sendable, CaseIterable {
            case none, fixed, exponential
        }

        public var backoff: Backoff = .none
        public var baseNanos: UInt64 = 1_000_000_000
        public var maxNanos: UInt64 = 30_000_000_000

        public init() {}
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
    /// `kamailio:`: callstorm starts the SIP server itself for the run (on a free loopback port, which becomes
    /// `host:port`) and stops it at the end; nil when `registrar` names a server already running.
    public var kamailio: KamailioLaunchSpec?
    /// `ca`: the CA certificates (PEM) TLS devices verify the registrar's certificate against, resolved against
    /// the scenario's directory. Nil: callstorm's local CA when the run starts Kamailio (which it issues the
    /// server's certificate), else the system's trust store.
    public var caFile: String?
    /// `rtpengine:`: callstorm starts a media relay (rtpengine) for the run, before the Kamailio it starts, and
    /// routes every call's RTP through it (docs/MEDIA.md, "The relay: rtpengine"); nil: no relay.
    public var rtpengine: RTPEngineLaunchSpec?

    public init(host: String, port: Int, domain: String? = nil, password: String = "callstorm", expires: Int = 600,
                kamailio: KamailioLaunchSpec? = nil, caFile: String? = nil) {
        self.host = host
        self.port = port
        self.domain = domain ?? host
        self.password = password
        self.expires = expires
        self.kamailio = kamailio
        self.caFile = caFile
    }

    /// For `callstorm validate`: the registrar, or the Kamailio the run starts and its push route; over TLS, the
    /// CA the devices trust.
    public func summary(devicesSleep: Bool, transport: SIPDeviceSpec.Transport = .udp) -> String {
        let trust = transport == .ws ? " over WebSocket (ws)" : !transport.isSecure ? ""
            : " over \(transport == .tls ? "TLS" : "WebSocket under TLS (wss)"), trusting "
            + (caFile ?? (kamailio != nil ? "callstorm's local CA" : "the system's CAs"))
        guard let kamailio else { return "\(host):\(port) (domain \(domain))" + trust }
        let push = kamailio.pushes(devicesSleep: devicesSleep)
            ? "push route on" + (kamailio.pushTimeoutNanos.map { ", push timeout \($0 / 1_000_000) ms" } ?? "")
            : "push route off"
        let fork = kamailio.fork.map {
            $0 == .noLate ? "; forking to every device (WITH_FORK), a device woken after the end not told (no_late)"
                : "; forking to every device (WITH_FORK)"
        } ?? ""
        let configuration = kamailio.configuration ?? "the shipped deploy/kamailio/kamailio.cfg"
        let set = [("shared_memory_mb", kamailio.sharedMemoryMB), ("private_memory_mb", kamailio.privateMemoryMB),
                   ("children", kamailio.children)].compactMap { key, value in value.map { "\(key) \($0)" } }
        let sizes = "sized from devices and peak rate" + (set.isEmpty ? "" : ", " + set.joined(separator: ", "))
        let relay = rtpengine.map {
            ", media through an rtpengine the run starts" + ($0.variant.map { " (variant \($0.rawValue))" } ?? "")
        } ?? ""
        return "a Kamailio the run starts on a free port (\(push)\(fork); \(configuration); \(sizes))\(relay)" + trust
    }

    /// The flow steps SIP carries (`start` is INVITE, `join` 200 OK, `decline` 486/603, `end` BYE or CANCEL,
    /// `pause`/`resume` re-INVITE); merge and unmerge need a conference focus, which a SIP proxy is not.
    public static let unsupportedSteps: Set<String> = ["merge", "unmerge"]
}

/// `target.sip.kamailio`: the Kamailio `callstorm run` starts for the run and stops by PID at its end
/// (docs/SIP.md, "Kamailio started by the run").
public struct KamailioLaunchSpec: Sendable, Equatable {
    /// The push wake-up route (`WITH_PUSH`, pushes to the run's gateway with a fresh provider token); nil turns it
    /// on exactly when the devices sleep.
    public var push: Bool?
    /// How long a parked INVITE waits for the woken device's answer (`PUSH_TIMEOUT`); nil keeps the
    /// configuration's own (10 s in the shipped one).
    public var pushTimeoutNanos: UInt64?
    /// The configuration file, resolved against the scenario's directory; nil is the shipped
    /// deploy/kamailio/kamailio.cfg (found under the current directory, else in callstorm's checkout).
    public var configuration: String?
    /// `shared_memory_mb`, `private_memory_mb`, `children`: Kamailio's `-m`, `-M` and `-n`/`-N` as the scenario
    /// sets them; nil keeps what callstorm sizes from the devices and the peak rate (`KamailioSizing`).
    public var sharedMemoryMB: Int?
    public var privateMemoryMB: Int?
    public var children: Int?
    /// `fork`: the forking routes (`WITH_FORK`, deploy/kamailio/fork.cfg: a binding per device, an INVITE to a
    /// user's address of record rings every device), with or without telling a device that wakes after the call
    /// ended (`no_late`: `WITH_FORK_NO_LATE`); nil: off.
    public var fork: KamailioFork?

    public init(push: Bool? = nil, pushTimeoutNanos: UInt64? = nil, configuration: String? = nil,
                sharedMemoryMB: Int? = nil, privateMemoryMB: Int? = nil, children: Int? = nil) {
        self.push = push
        self.pushTimeoutNanos = pushTimeoutNanos
        self.configuration = configuration
        self.sharedMemoryMB = sharedMemoryMB
        self.privateMemoryMB = privateMemoryMB
        self.children = children
    }

    /// Whether the push route is on for devices that do (`sleeping`) or do not sleep (the forking routes need it).
    public func pushes(devicesSleep sleeping: Bool) -> Bool { push ?? (sleeping || fork != nil) }
}

/// `target.sip.kamailio.fork`: `true` (`WITH_FORK`) or `no_late` (with `WITH_FORK_NO_LATE`: a device woken after
/// its call was answered or declined elsewhere is not told, and rings until its own timeout).
public enum KamailioFork: String, Sendable, CaseIterable {
    case tellsLateWake = "true"
    case noLate = "no_late"
}

/// `target.sip.rtpengine`: the media relay `callstorm run` starts for the run (Debian's rtpengine, userspace, on free
/// loopback ports), with the Kamailio it starts routing media through it (`-A WITH_RTPENGINE`); stopped by PID at
/// the run's end, after its per-call counts were read back and compared with callstorm's (docs/MEDIA.md).
public struct RTPEngineLaunchSpec: Sendable, Equatable {
    /// A deliberately broken Kamailio configuration, for tests that must find one-way audio blamed on the server.
    public enum Variant: String, Sendable, CaseIterable {
        /// `WITH_RTPENGINE_OFFER_ONLY`: offers rewritten, answers never (the caller's audio bypasses the relay).
        case offerOnly = "offer_only"
        /// `WITH_RTPENGINE_LOST_ANSWER`: the callee's answer reaches the relay with a wrong address, so the
        /// caller's audio is relayed nowhere (one-way audio, the server's fault).
        case lostAnswer = "lost_answer"
    }

    /// nil: the shipped configuration as it is meant to run.
    public var variant: Variant?

    public init(variant: Variant? = nil) {
        self.variant = variant
    }
}
