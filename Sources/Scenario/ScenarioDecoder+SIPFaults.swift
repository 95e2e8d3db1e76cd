import Faults
import Quantities

/// A fault window's `sip:` section (docs/SIP.md, "Chaos"), and the checks that need the whole scenario: SIP faults
/// act on SIP devices only, message loss and delay (and a lost REGISTER) on UDP only, the wake-up faults on
/// sleeping devices only.
extension ScenarioDecoder {
    /// `sip: { loss: 10%, delay: <distribution>, direction: both, messages: [INVITE, 200], late_wake: {…},
    /// lost_register: 20% }`.
    mutating func sipFaults(_ node: YAMLNode) -> SIPFaults? {
        guard let f = fields(of: node, in: "'sip' faults", known: FaultWindow.sipKinds + FaultWindow.sipOptions)
        else { return nil }
        let errorsBefore = errors.count
        var s = SIPFaults()
        if let n = f["loss"], let v = fraction(n, "loss") { s.loss = v }
        if let n = f["delay"] { s.delay = distribution(n, "delay") }
        if let n = f["direction"],
           let d = word(n, "direction", among: SIPFaults.Direction.allCases.map(\.rawValue)) {
            s.direction = SIPFaults.Direction(rawValue: d) ?? .both
        }
        if let n = f["messages"] { s.messages = sipMessageFilter(n) }
        for key in ["direction", "messages"] where f[key] != nil && f["loss"] == nil && f["delay"] == nil {
            report(f[key]!.mark, "'\(key)' narrows 'loss' and 'delay'; add one of them or remove it")
        }
        mediaFaults(f, into: &s)
        if let n = f["late_wake"] { s.lateWake = lateWake(n) }
        if let n = f["lost_register"], let v = fraction(n, "lost_register") { s.lostRegister = v }
        if f.values.isEmpty {
            report(f.mark, "a 'sip' section needs at least one of " + FaultWindow.sipKinds.joined(separator: ", "))
        }
        return errors.count == errorsBefore ? s : nil
    }

    /// `media_loss: 5%`, `media_delay: <distribution>`, `media_direction: callee_to_caller`, `media_one_way:
    /// callee_to_caller` (docs/MEDIA.md "Chaos").
    private mutating func mediaFaults(_ f: Fields, into s: inout SIPFaults) {
        let directions = MediaFaultDirection.allCases.map(\.rawValue)
        if let n = f["media_loss"], let v = fraction(n, "media_loss") { s.mediaLoss = v }
        if let n = f["media_delay"] { s.mediaDelay = distribution(n, "media_delay") }
        if let n = f["media_direction"], let d = word(n, "media_direction", among: directions) {
            s.mediaDirection = MediaFaultDirection(rawValue: d) ?? .both
            if f["media_loss"] == nil && f["media_delay"] == nil {
                report(n.mark, "'media_direction' narrows 'media_loss' and 'media_delay'; add one of them or remove it")
            }
        }
        if let n = f["media_one_way"], let d = word(n, "media_one_way", among: directions) {
            s.mediaOneWay = MediaFaultDirection(rawValue: d)
        }
    }

    /// `messages: [INVITE, ACK, 200]` or `messages: INVITE`: methods, or status codes 100 to 699.
    private mutating func sipMessageFilter(_ node: YAMLNode) -> [String] {
        let items: [YAMLNode]
        if case .sequence(let list, _) = node { items = list } else { items = [node] }
        var out: [String] = []
        for item in items {
            guard let text = string(item, "messages")?.trimmingSpaces else { continue }
            if let code = Int(text), (100...699).contains(code) {
                out.append(String(code))
            } else if SIPFaults.methods.contains(text.uppercased()) {
                out.append(text.uppercased())
            } else {
                report(item.mark, "'messages' lists SIP methods (\(SIPFaults.methods.joined(separator: ", "))) or "
                    + "status codes from 100 to 699, got '\(text)'",
                       suggestion: Suggestion.closest(to: text.uppercased(), among: SIPFaults.methods))
            }
        }
        return out
    }

    /// `late_wake: { probability: 50%, after: 12s }` (`probability` defaults to every wake).
    private mutating func lateWake(_ node: YAMLNode) -> LateWakeFaults? {
        guard let f = fields(of: node, in: "'late_wake'", known: ["probability", "after"], required: ["after"])
        else { return nil }
        let errorsBefore = errors.count
        let after = f["after"].flatMap { distribution($0, "after") }
        var late = LateWakeFaults(after: after ?? .constant(0))
        if let n = f["probability"], let p = fraction(n, "probability") { late.probability = p }
        return errors.count == errorsBefore && after != nil ? late : nil
    }

    /// Every window's `sip:` section against the devices: SIP devices, UDP for `loss`/`delay`, sleeping devices
    /// for `late_wake`/`lost_register`. Each problem is reported at the key that asks for what cannot happen.
    mutating func checkSIPFaults(_ root: YAMLNode, _ scenario: Scenario) {
        guard case .sequence(let windows, _)? = Self.topLevelValue(root, "faults") else { return }
        let device = scenario.device.sip
        for window in windows {
            guard let section = Self.topLevelValue(window, "sip"), case .mapping(let pairs, _) = section else {
                continue
            }
            guard let device else {
                report(section.mark, "'sip' faults act on SIP devices; add 'device: { signaling: sip }' (and "
                    + "'target.sip')")
                continue
            }
            for pair in pairs {
                guard let key = pair.key.scalarText else { continue }
                if key.hasPrefix("media_"), scenario.media == nil {
                    report(pair.key.mark, "'sip.\(key)' acts on the RTP of calls with media; add a 'media:' "
                        + "section (e.g. 'media: { share: 100% }')")
                }
                if ["loss", "delay"].contains(key), device.transport.isConnection {
                    report(pair.key.mark, "'sip.\(key)' acts on UDP datagrams, which SIP's timers retransmit; over "
                        + "TCP the kernel retransmits and no message is lost. Use 'device.transport: udp', or a "
                        + "'network' window for TCP")
                }
                if key == "lost_register", device.transport.isConnection {
                    report(pair.key.mark, "'sip.lost_register' drops the wake REGISTER's UDP datagrams; over TCP "
                        + "the kernel delivers or the connection fails. Use 'device.transport: udp', or 'late_wake'")
                }
                if ["late_wake", "lost_register"].contains(key), !device.sleep {
                    report(pair.key.mark, "'sip.\(key)' acts on the push wake-up path of sleeping devices; add "
                        + "'sleep: true' to 'device'")
                }
            }
        }
    }
}
