/// `device.signaling`, `device.sleep`, `device.transport` and `target.sip`: SIP devices and the SIP server they
/// register at (docs/SIP.md).
extension ScenarioDecoder {
    static let sipDeviceKeys = ["signaling", "sleep", "transport", "wake_after", "join_at", "tls_resumption",
                                "audio_session", "sockets", "coalesce"] + reconnectKeys
    static let reconnectKeys = ["reconnect", "reconnect_base", "reconnect_max"]
    static let sipTargetKeys = ["registrar", "domain", "password", "expires", "kamailio", "ca", "rtpengine"]
    static let signalingWords = ["http", "sip"]

    /// The SIP keys of the `device:` section.
    mutating func deviceSIP(_ fields: Fields, into profile: inout DeviceProfile) {
        var spec = SIPDeviceSpec()
        var sip = false
        if let node = fields["signaling"], let word = word(node, "signaling", among: Self.signalingWords) {
            sip = word == "sip"
        }
        if let node = fields["sleep"] { sleep(node, into: &spec) }
        if let node = fields["transport"],
           let word = word(node, "transport", among: SIPDeviceSpec.Transport.allCases.map(\.rawValue)) {
            spec.transport = SIPDeviceSpec.Transport(rawValue: word) ?? .udp
        }
        if let node = fields["wake_after"] {
            spec.wakeAfter = distribution(node, "wake_after")
            if sip, !spec.sleep {
                report(node.mark, "'device.wake_after' is how long a woken app takes before its wake REGISTER; "
                    + "it applies to sleeping devices: add 'sleep: true' beside it")
            }
        }
        if let node = fields["join_at"],
           let word = word(node, "join_at", among: SIPDeviceSpec.JoinAt.allCases.map(\.rawValue)) {
            spec.joinAt = SIPDeviceSpec.JoinAt(rawValue: word) ?? .answer
        }
        if let node = fields["audio_session"] { spec.audioSession = distribution(node, "audio_session") }
        if let node = fields["tls_resumption"], let value = bool(node, "tls_resumption") {
            spec.tlsResumption = value
            if sip, value, !spec.transport.isSecure {
                report(node.mark, "'device.tls_resumption' resumes TLS sessions; it applies with 'transport: tls' "
                    + "or 'wss' (the devices use \(spec.transport.rawValue))")
            }
        }
        deviceReconnect(fields, into: &spec, sip: sip)
        if let node = fields["sockets"] { sockets(node, into: &spec, sip: sip) }
        if let node = fields["coalesce"] { coalesce(node, into: &spec, sip: sip) }
        for key in ["sleep", "transport", "wake_after", "join_at", "tls_resumption", "audio_session", "sockets",
                    "coalesce"]
        where !sip && fields[key] != nil {
            report(fields[key]!.mark, "'device.\(key)' applies to SIP devices; add 'signaling: sip' beside it")
        }
        if sip { profile.sip = spec }
    }

    /// `device.sleep`: true, false, or the share of devices that sleep (`50%`, `0.5`), each device drawn from the
    /// seed, so one user's devices can differ (issue 36).
    private mutating func sleep(_ node: YAMLNode, into spec: inout SIPDeviceSpec) {
        if let text = node.scalarText?.trimmingSpaces, text.hasSuffix("%") || Double(text) != nil {
            let percent = text.hasSuffix("%")
            let value = Double(percent ? String(text.dropLast()).trimmingSpaces : text).map { percent ? $0 / 100 : $0 }
            guard let share = value, share.isFinite, share > 0, share <= 1 else {
                return report(node.mark, "'device.sleep' takes true, false or the share of devices that sleep, "
                    + "more than 0% and at most 100% (50% or 0.5), got '\(text)'")
            }
            spec.sleep = true
            spec.sleepShare = share
            return
        }
        if let value = bool(node, "sleep") { spec.sleep = value }
    }

    /// `device.sockets`: `device` or `shared`. A shared socket carries UDP datagrams only, and only for devices that
    /// do not sleep: a sleeping device closes its own socket so the proxy's request fails and its push wakes it.
    private mutating func sockets(_ node: YAMLNode, into spec: inout SIPDeviceSpec, sip: Bool) {
        guard let word = word(node, "sockets", among: SIPDeviceSpec.Sockets.allCases.map(\.rawValue)) else { return }
        spec.sockets = SIPDeviceSpec.Sockets(rawValue: word) ?? .device
        guard sip, spec.sockets == .shared else { return }
        if spec.transport != .udp {
            report(node.mark, "'device.sockets: shared' puts every device of a worker on one UDP socket; it applies "
                + "with 'transport: udp' (the devices use \(spec.transport.rawValue))")
        }
        if spec.sleep {
            report(node.mark, "'device.sockets: shared' cannot carry sleeping devices: a sleeping device closes its own "
                + "socket so the proxy's request fails and its push wakes it; use 'sockets: device' or 'sleep: false'")
        }
    }

    /// `device.coalesce`: the shared socket's wait after a short read (`300us`, `0` off), at most 10 ms: a longer
    /// wait delays every answer the devices send by as much, and past ~1 ms the reads grow little (docs/SIP.md).
    private mutating func coalesce(_ node: YAMLNode, into spec: inout SIPDeviceSpec, sip: Bool) {
        let off = node.scalarText?.trimmingSpaces == "0"
        guard let nanos = off ? 0 : duration(node, "coalesce", allowZero: true) else { return }
        guard nanos <= Self.coalesceMaxNanos else {
            return report(node.mark, "'device.coalesce' is how long the shared socket waits to read a bigger batch; "
                + "it delays every answer by up to as much, so it is at most 10ms (300us is the default, 0 "
                + "turns it off), got '\(node.scalarText ?? "")'")
        }
        spec.coalesceNanos = nanos
        if sip, spec.sockets != .shared {
            report(node.mark, "'device.coalesce' batches the reads of the shared socket; it applies with "
                + "'sockets: shared' (these devices have a socket each)")
        }
    }

    static let coalesceMaxNanos: UInt64 = 10_000_000

    /// `device.reconnect`, `reconnect_base`, `reconnect_max`: flow recovery on connection-oriented transports.
    private mutating func deviceReconnect(_ fields: Fields, into spec: inout SIPDeviceSpec, sip: Bool) {
        let words = SIPDeviceSpec.Reconnect.Backoff.allCases.map(\.rawValue)
        if let node = fields["reconnect"], let word = word(node, "reconnect", among: words) {
            spec.reconnect.backoff = SIPDeviceSpec.Reconnect.Backoff(rawValue: word) ?? .none
        }
        if let node = fields["reconnect_base"], let nanos = duration(node, "reconnect_base") {
            spec.reconnect.baseNanos = nanos
        }
        if let node = fields["reconnect_max"], let nanos = duration(node, "reconnect_max") {
            spec.reconnect.maxNanos = nanos
        }
        for key in Self.reconnectKeys where fields[key] != nil {
            if !sip {
                report(fields[key]!.mark, "'device.\(key)' applies to SIP devices; add 'signaling: sip' beside it")
            } else if !spec.transport.isConnection {
                report(fields[key]!.mark, "'device.\(key)' recovers a lost connection; it applies with 'transport: "
                    + "tcp', 'tls', 'ws' or 'wss' (UDP devices hold none and register again at their refresh)")
            }
        }
        if sip, spec.reconnect.maxNanos < spec.reconnect.baseNanos, let node = fields["reconnect_max"] {
            report(node.mark, "'device.reconnect_max' is the longest back-off; make it at least 'reconnect_base'")
        }
    }

    /// `target.sip`.
    mutating func sipTarget(_ node: YAMLNode) -> SIPTargetSpec? {
        guard let f = fields(of: node, in: "'target.sip'", known: Self.sipTargetKeys) else { return nil }
        guard let registrarNode = f["registrar"] else { return launchedKamailio(f) }
        if let kamailioNode = f["kamailio"], !Self.isFalse(kamailioNode) {
            report(kamailioNode.mark, "'kamailio' starts a SIP server for the run, 'registrar' names one already "
                + "running: keep one of them")
        }
        guard let registrar = string(registrarNode, "registrar") else { return nil }
        let parts = registrar.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65_535).contains(port),
              parts[0].split(separator: ".").count == 4 else {
            report(registrarNode.mark, "'registrar' is the SIP server's IPv4 'host:port', "
                + "like \"127.0.0.1:5060\"; got '\(registrar)'")
            return nil
        }
        var spec = SIPTargetSpec(host: String(parts[0]), port: port)
        if let n = f["rtpengine"], !Self.isFalse(n) {
            report(n.mark, "'rtpengine' starts a media relay for the Kamailio the run starts ('kamailio: true'); "
                + "a 'registrar' already running routes its media itself: remove 'rtpengine' or use 'kamailio: true'")
        }
        if let n = f["domain"], let domain = string(n, "domain") { spec.domain = domain }
        if let n = f["password"], let password = string(n, "password") { spec.password = password }
        if let n = f["expires"], let expires = integer(n, "expires", atLeast: 60) { spec.expires = expires }
        if let n = f["ca"] { spec.caFile = caFile(n) }
        return spec
    }

    /// SIP devices need `target.sip` and the other way round; their flows may not merge or unmerge (a proxy is
    /// no conference focus): each such step is reported where it is written, or at the mix entry of a built-in
    /// flow that has one.
    mutating func checkSIP(_ root: YAMLNode, _ scenario: Scenario) {
        checkKamailio(root, scenario)
        checkAudioSession(root, scenario)
        let device = Self.topLevelValue(root, "device")
        let target = Self.topLevelValue(root, "target")
        if scenario.device.sip != nil, scenario.sip == nil {
            let mark = device.flatMap { Self.topLevelValue($0, "signaling") }?.mark ?? Mark(line: 1, column: 1)
            report(mark, "'signaling: sip' needs 'target.sip' (the registrar the devices register at, "
                + "like 'target: { sip: { registrar: \"127.0.0.1:5060\" } }')")
        }
        if scenario.sip != nil, scenario.device.sip == nil {
            let mark = target.flatMap { Self.topLevelValue($0, "sip") }?.mark ?? Mark(line: 1, column: 1)
            report(mark, "'target.sip' is driven by SIP devices; add 'device: { signaling: sip }'")
        }
        if let ca = target.flatMap({ Self.topLevelValue($0, "sip") }).flatMap({ Self.topLevelValue($0, "ca") }),
           let device = scenario.device.sip, !device.transport.isSecure {
            report(ca.mark, "'target.sip.ca' is the CA SIP devices verify the registrar's TLS certificate against; "
                + "it applies with 'device.transport: tls' or 'wss' (the devices use \(device.transport.rawValue))")
        }
        guard scenario.device.sip != nil else { return }
        var written = Set<String>()
        if let flows = Self.topLevelValue(root, "flows"), case .mapping(let pairs, _) = flows {
            for pair in pairs {
                if let name = pair.key.scalarText { written.insert(name) }
                reportUnsupportedSIPSteps(pair.value)
            }
        }
        let mix = Self.topLevelValue(root, "mix")
        for entry in scenario.mix where !written.contains(entry.flow) {
            guard let flow = scenario.flows[entry.flow] else { continue }
            let steps = flow.allSteps.filter { Self.operation(of: $0.kind).map(SIPTargetSpec.unsupportedSteps.contains)
                ?? false }
            guard let step = steps.first, let op = Self.operation(of: step.kind) else { continue }
            var mark = mix?.mark ?? Mark(line: 1, column: 1)
            if case .mapping(let pairs, _)? = mix, let pair = pairs.first(where: { $0.key.scalarText == entry.flow }) {
                mark = pair.key.mark
            }
            report(mark, "flow '\(flow.name)' step '\(step.name)' does '\(op)', which SIP devices cannot do "
                + "(merging and unmerging need a conference focus); use a flow without it")
        }
    }

    /// Every `do: merge` / `do: unmerge` under `node` (a flow definition, its branches and repeats included).
    private mutating func reportUnsupportedSIPSteps(_ node: YAMLNode) {
        switch node {
        case .mapping(let pairs, _):
            for pair in pairs {
                if pair.key.scalarText == "do", let op = pair.value.scalarText,
                   SIPTargetSpec.unsupportedSteps.contains(op) {
                    report(pair.value.mark, "'do: \(op)' cannot run on SIP devices (merging and unmerging need a "
                        + "conference focus, which a SIP proxy is not)")
                } else {
                    reportUnsupportedSIPSteps(pair.value)
                }
            }
        case .sequence(let items, _): items.forEach { reportUnsupportedSIPSteps($0) }
        case .scalar: break
        }
    }
}
