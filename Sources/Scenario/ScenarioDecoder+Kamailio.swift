#if canImport(Glibc)
import Glibc
#endif

/// `target.sip.kamailio`: a Kamailio `callstorm run` starts for the run instead of a `registrar` already running
/// (docs/SIP.md). `kamailio: true`, or `{ push: true, push_timeout: 10s, config: path/to/kamailio.cfg,
/// shared_memory_mb: 512, private_memory_mb: 8, children: 4, fork: true | no_late }`.
extension ScenarioDecoder {
    static let kamailioKeys = ["push", "push_timeout", "config", "shared_memory_mb", "private_memory_mb", "children",
                               "fork"]

    /// The bounds of Kamailio's sizes: what it starts with at least, and beyond what no loopback run goes.
    static let kamailioSizeBounds: [(key: String, range: ClosedRange<Int>)] = [
        ("shared_memory_mb", 4...65_536), ("private_memory_mb", 1...1024), ("children", 1...64),
    ]

    static func isFalse(_ node: YAMLNode) -> Bool {
        ["false", "False", "FALSE"].contains(node.scalarText ?? "")
    }

    /// `target.sip` without `registrar`: it must start Kamailio; the registrar becomes the port it gets.
    mutating func launchedKamailio(_ f: Fields) -> SIPTargetSpec? {
        guard let node = f["kamailio"], !Self.isFalse(node) else {
            report(f.mark, "'target.sip' needs 'registrar' (a running SIP server's \"host:port\") or "
                + "'kamailio: true' (callstorm starts Kamailio for the run)")
            return nil
        }
        guard let launch = kamailioLaunch(node) else { return nil }
        var spec = SIPTargetSpec(host: "127.0.0.1", port: 0, kamailio: launch)
        if let n = f["domain"], let domain = string(n, "domain") { spec.domain = domain }
        if let n = f["password"], let password = string(n, "password") { spec.password = password }
        if let n = f["expires"], let expires = integer(n, "expires", atLeast: 60) { spec.expires = expires }
        if let n = f["ca"] { spec.caFile = caFile(n) }
        if let n = f["rtpengine"] { spec.rtpengine = rtpengineLaunch(n) }
        return spec
    }

    /// `target.sip.rtpengine`: `true`, or `{ variant: lost_answer | offer_only }` (a broken Kamailio
    /// configuration for tests of one-way audio blamed on the server).
    private mutating func rtpengineLaunch(_ node: YAMLNode) -> RTPEngineLaunchSpec? {
        if node.scalarText != nil {
            return bool(node, "rtpengine").flatMap { $0 ? RTPEngineLaunchSpec() : nil }
        }
        guard let f = fields(of: node, in: "'target.sip.rtpengine'", known: ["variant"]) else { return nil }
        var launch = RTPEngineLaunchSpec()
        if let n = f["variant"],
           let word = word(n, "variant", among: RTPEngineLaunchSpec.Variant.allCases.map(\.rawValue)) {
            launch.variant = RTPEngineLaunchSpec.Variant(rawValue: word)
        }
        return launch
    }

    private mutating func kamailioLaunch(_ node: YAMLNode) -> KamailioLaunchSpec? {
        if node.scalarText != nil { return bool(node, "kamailio").map { _ in KamailioLaunchSpec() } }
        guard let f = fields(of: node, in: "'target.sip.kamailio'", known: Self.kamailioKeys) else { return nil }
        var launch = KamailioLaunchSpec()
        if let n = f["push"] { launch.push = bool(n, "push") }
        if let n = f["push_timeout"] { launch.pushTimeoutNanos = duration(n, "push_timeout") }
        if let n = f["fork"], !Self.isFalse(n),
           let word = word(n, "fork", among: KamailioFork.allCases.map(\.rawValue)) {
            launch.fork = KamailioFork(rawValue: word)
        }
        var sizes: [String: Int] = [:]
        for (key, range) in Self.kamailioSizeBounds {
            guard let n = f[key], let value = integer(n, key, atLeast: range.lowerBound) else { continue }
            if value > range.upperBound {
                report(n.mark, "'\(key)' must be at most \(range.upperBound), got \(value)")
            } else {
                sizes[key] = value
            }
        }
        launch.sharedMemoryMB = sizes["shared_memory_mb"]
        launch.privateMemoryMB = sizes["private_memory_mb"]
        launch.children = sizes["children"]
        if let n = f["config"], let text = string(n, "config") {
            let path = Self.resolve(text, besideScenario: file)
            if access(path, R_OK) == 0 {
                launch.configuration = path
            } else {
                report(n.mark, "cannot read the Kamailio configuration '\(path)': \(String(cString: strerror(errno)))")
            }
        }
        return launch
    }

    /// What the launched Kamailio needs from the rest of the scenario: its push route for sleeping devices, and
    /// a cleartext gateway for that route (Kamailio's http_client posts plain HTTP to it).
    mutating func checkKamailio(_ root: YAMLNode, _ scenario: Scenario) {
        guard let launch = scenario.sip?.kamailio, let device = scenario.device.sip,
              let node = Self.topLevelValue(root, "target").flatMap({ Self.topLevelValue($0, "sip") })
                .flatMap({ Self.topLevelValue($0, "kamailio") }) else { return }
        let pushNode = Self.topLevelValue(node, "push") ?? node
        if launch.push == false, device.sleep {
            report(pushNode.mark, "sleeping devices ('sleep: true') are reached only through Kamailio's push route; "
                + "remove 'push: false'")
        }
        if launch.pushTimeoutNanos != nil, !launch.pushes(devicesSleep: device.sleep) {
            report(Self.topLevelValue(node, "push_timeout")?.mark ?? node.mark,
                   "'push_timeout' applies to the push route, which is off here: add 'push: true' or remove it")
        }
        if launch.pushes(devicesSleep: device.sleep), scenario.push.tls {
            report(pushNode.mark, "Kamailio's push route posts to the gateway over cleartext HTTP (http_client); "
                + "set 'push: { tls: false }'")
        }
    }
}
