import Faults
import Quantities

/// The `faults:` section: windows of faults on the push path, in devices and on the network.
extension ScenarioDecoder {
    mutating func faults(_ node: YAMLNode, arrivalWindow: UInt64?, flows: [String] = []) -> [FaultWindow]? {
        guard case .sequence(let items, _) = node else {
            report(node.mark, "expected 'faults' to be a list of windows like "
                + "'- { at: 1m, for: 30s, push: { drop: 2% } }', got \(node.kindDescription)")
            return nil
        }
        var windows: [FaultWindow] = []
        let errorsBefore = errors.count
        for (i, item) in items.enumerated() {
            if let w = window(item, index: i, arrivalWindow: arrivalWindow, flows: flows) { windows.append(w) }
        }
        return errors.count == errorsBefore ? windows : nil
    }

    private mutating func window(_ node: YAMLNode, index: Int, arrivalWindow: UInt64?,
                                 flows: [String]) -> FaultWindow? {
        guard let f = fields(of: node, in: "a fault window",
                             known: ["name", "at", "for", "devices", "ramp", "flows", "push", "device", "network",
                                     "target", "sip"],
                             required: ["at", "for"]) else { return nil }
        let errorsBefore = errors.count
        let at = f["at"].flatMap { duration($0, "at", allowZero: true) }
        let length = f["for"].flatMap { duration($0, "for") }
        if let at, let arrivalWindow, at >= arrivalWindow, let node = f["at"] {
            report(node.mark, "the window starts at \(Quantity.format(nanos: at)), after the arrivals end at "
                + "\(Quantity.format(nanos: arrivalWindow)); nothing would run inside it")
        }
        var window = FaultWindow(name: f["name"].flatMap { string($0, "name") } ?? "fault-\(index + 1)",
                                 atNanos: at ?? 0, forNanos: length ?? 1)
        if let n = f["devices"], let share = fraction(n, "devices") { window.devices = share }
        if let n = f["ramp"], let ramp = duration(n, "ramp", allowZero: true) {
            if ramp > (length ?? 0) {
                report(n.mark, "'ramp' (\(Quantity.format(nanos: ramp))) is longer than the window "
                    + "(\(Quantity.format(nanos: length ?? 0)))")
            }
            window.rampNanos = ramp
        }
        if let n = f["flows"] {
            let items: [YAMLNode]
            if case .sequence(let list, _) = n { items = list } else { items = [n] }
            for item in items {
                guard let name = string(item, "flows") else { continue }
                if flows.contains(name) {
                    window.flows.append(name)
                } else {
                    report(item.mark, "flow '\(name)' is not in the mix (\(flows.joined(separator: ", ")))",
                           suggestion: Suggestion.closest(to: name, among: flows))
                }
            }
        }
        if let n = f["push"] { window.push = pushFaults(n) }
        if let n = f["device"] { window.device = deviceFaults(n) }
        if let n = f["network"] { window.network = networkFaults(n) }
        if let n = f["target"] { window.target = targetFaults(n, window: length ?? 1) }
        if let n = f["sip"] { window.sip = sipFaults(n) }
        if f["push"] == nil, f["device"] == nil, f["network"] == nil, f["target"] == nil, f["sip"] == nil {
            report(f.mark, "a fault window needs at least one of 'push', 'device', 'network', 'target' or 'sip'")
        }
        return errors.count == errorsBefore ? window : nil
    }

    private mutating func pushFaults(_ node: YAMLNode) -> PushFaults? {
        guard let f = fields(of: node, in: "'push' faults", known: FaultWindow.pushKinds + FaultWindow.pushOptions)
        else { return nil }
        var p = PushFaults()
        if let n = f["reorder"], let v = fraction(n, "reorder") { p.reorder = v }
        if let n = f["reorder_hold"], let hold = duration(n, "reorder_hold") {
            if f["reorder"] == nil {
                report(n.mark, "'reorder_hold' bounds how long 'reorder' holds a push back; add 'reorder'")
            }
            p.reorderHoldNanos = hold
        }
        if let n = f["brownout"],
           let mode = word(n, "brownout", among: PushFaults.Brownout.allCases.map(\.rawValue)) {
            p.brownout = PushFaults.Brownout(rawValue: mode)
        }
        if let n = f["goaway"], let v = fraction(n, "goaway") { p.goaway = v }
        if let n = f["delay"] { p.delay = distribution(n, "delay") }
        if let n = f["drop"], let v = fraction(n, "drop") { p.drop = v }
        if let n = f["duplicate"], let v = fraction(n, "duplicate") { p.duplicate = v }
        if let n = f["error"],
           let e = fields(of: n, in: "'push.error'", known: ["status", "rate"], required: ["status", "rate"]) {
            if let s = e["status"], let status = integer(s, "status", atLeast: 400) {
                if [410, 429, 500, 503].contains(status) {
                    p.errorStatus = status
                } else {
                    report(s.mark, "'status' is one of the APNs answers 410, 429, 500, 503, got \(status)")
                }
            }
            if let r = e["rate"], let v = fraction(r, "rate") { p.errorRate = v }
        }
        return p
    }

    private mutating func deviceFaults(_ node: YAMLNode) -> DeviceFaultSettings? {
        guard let f = fields(of: node, in: "'device' faults",
                             known: FaultWindow.deviceKinds + FaultWindow.deviceOptions)
        else { return nil }
        var d = DeviceFaultSettings()
        if let n = f["report_delay"] { d.reportDelay = distribution(n, "report_delay") }
        if let n = f["offline"], let v = fraction(n, "offline") { d.offline = v }
        if let n = f["join_delay"] { d.joinDelay = distribution(n, "join_delay") }
        if let n = f["join_failure"], let v = fraction(n, "join_failure") { d.joinFailure = v }
        if let n = f["clock_skew"], let skew = duration(n, "clock_skew") { d.clockSkewNanos = skew }
        if let n = f["socket_drop"] { d.socketDrop = socketDrop(n) }
        if let n = f["socket_stall"] { d.socketStall = socketStall(n) }
        d.life = lifeFaults(f)
        return d
    }

    private mutating func networkFaults(_ node: YAMLNode) -> NetworkFaults? {
        let errorsBefore = errors.count
        guard let f = fields(of: node, in: "'network' faults",
                             known: FaultWindow.networkKinds + FaultWindow.networkOptions + ["netem"])
        else { return nil }
        var toxics: [String: [String: Double]] = [:]
        var faults = NetworkFaults()
        for (key, value) in f.values {
            switch key {
            case "netem":
                // Asked for often enough to deserve its own answer rather than "unknown key".
                report(value.mark, "'netem' (Linux network emulation in a namespace) is not offered: it needs the "
                    + "kernel's sch_netem qdisc, which was missing where callstorm is built and tested ('tc qdisc add "
                    + "... netem' answered 'Specified qdisc kind is unknown'), and callstorm ships no fault path it "
                    + "could not test; use the fault proxy's latency, jitter, bandwidth, reset, timeout or slicer")
                return nil
            case "direction":
                if let d = word(value, "direction", among: ["downstream", "upstream", "both"]) { faults.direction = d }
            case "probability":
                if let v = fraction(value, key) { faults.probability = v }
            case "connections":
                if let c = word(value, "connections", among: ["fresh", "pooled"]) {
                    faults.freshConnections = c == "fresh"
                }
            case "latency", "jitter", "timeout", "slow_close":
                if let ns = duration(value, key, allowZero: true) { toxics[key] = ["ms": Double(ns) / 1e6] }
            case "reset":
                if let v = fraction(value, key) { toxics[key] = ["toxicity": v] }
            case "bandwidth":
                if let text = string(value, key), let kb = Double(text.trimmingSpaces.replacingKBs), kb > 0 {
                    toxics[key] = ["rate_kbps": kb]
                } else {
                    report(value.mark, "'bandwidth' is a rate in KB/s like 64KB/s")
                }
            case "slicer", "limit_data":
                if let bytes = integer(value, key, atLeast: 1) { toxics[key] = ["bytes": Double(bytes)] }
            default:
                break
            }
        }
        if toxics.isEmpty, errors.count == errorsBefore {
            report(f.mark, "a 'network' section needs at least one of "
                + FaultWindow.networkKinds.joined(separator: ", "))
        }
        faults.toxics = toxics
        return faults
    }

    private mutating func targetFaults(_ node: YAMLNode, window: UInt64) -> TargetFaults? {
        guard let f = fields(of: node, in: "'target' faults",
                             known: FaultWindow.targetKinds + FaultWindow.targetOptions) else { return nil }
        var t = TargetFaults()
        if let n = f["socket_storm"] {
            t.socketStorm = socketStorm(n)
            t.kill = false
        }
        guard let killNode = f["kill"] else {
            if f["socket_storm"] == nil {
                report(f.mark, "a 'target' section needs 'kill: true' or 'socket_storm'")
            }
            for key in FaultWindow.targetOptions {
                if let n = f[key] { report(n.mark, "'\(key)' applies to 'kill'; add 'kill: true' or remove it") }
            }
            return t
        }
        if let kill = bool(killNode, "kill") {
            t.kill = kill
            if !kill { report(killNode.mark, "'kill: false' does nothing; leave it out instead") }
        }
        if let n = f["restart_after"], let after = duration(n, "restart_after") {
            if after > window {
                report(n.mark, "'restart_after' (\(Quantity.format(nanos: after))) is longer than the window "
                    + "(\(Quantity.format(nanos: window))); the target restarts inside the window")
            }
            t.restartAfterNanos = after
        }
        if let n = f["signal"], let s = word(n, "signal", among: ["KILL", "TERM"]) { t.signal = s }
        // The reference target as a child process, or the Kamailio a SIP run starts (`target.sip.kamailio`).
        if !targetProcess, sip?.kamailio == nil {
            report(f.mark, "target faults kill and restart a target callstorm runs itself; set "
                + "'target: { embedded: true, process: true }', or 'target.sip.kamailio' for SIP devices")
        }
        return t
    }

    /// A share: `5%` or `0.05`, from 0 to 1.
    mutating func fraction(_ node: YAMLNode, _ what: String) -> Double? {
        guard let text = string(node, what)?.trimmingSpaces else { return nil }
        let percent = text.hasSuffix("%")
        guard let value = Double(percent ? String(text.dropLast()).trimmingSpaces : text), value.isFinite else {
            report(node.mark, "expected '\(what)' as a percentage like 5% or a fraction like 0.05, got '\(text)'")
            return nil
        }
        let share = percent ? value / 100 : value
        guard share >= 0, share <= 1 else {
            report(node.mark, "'\(what)' is a probability from 0 to 1 (0% to 100%), got '\(text)'",
                   suggestion: !percent && value > 1 && value <= 100 ? "\(text)%" : nil)
            return nil
        }
        return share
    }
}

private extension String {
    /// `64KB/s` → `64`.
    var replacingKBs: String {
        var s = self
        for suffix in ["KB/s", "kB/s", "kb/s"] where s.hasSuffix(suffix) { s = String(s.dropLast(suffix.count)) }
        return s
    }
}
