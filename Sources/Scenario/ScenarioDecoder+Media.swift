import Quantities

/// `media: { share: 10%, one_way_after: 1s, ports: 20000-29999 }`: RTP on SIP calls (docs/MEDIA.md).
extension ScenarioDecoder {
    static let mediaKeys = ["share", "one_way_after", "ports"]

    /// The `media:` section; nil after reporting what is wrong. Media rides SIP calls: SIP devices are required.
    mutating func media(_ node: YAMLNode, _ scenario: Scenario) -> MediaSpec? {
        guard let f = fields(of: node, in: "'media'", known: Self.mediaKeys) else { return nil }
        let errorsBefore = errors.count
        var spec = MediaSpec()
        if let n = f["share"], let share = fraction(n, "media.share") { spec.share = share }
        if let n = f["one_way_after"], let nanos = duration(n, "media.one_way_after") { spec.oneWayAfterNanos = nanos }
        if let n = f["ports"] { spec.ports = mediaPorts(n) }
        if scenario.device.sip == nil {
            report(f.mark, "'media' sends RTP on SIP calls; it needs SIP devices: add 'device: { signaling: sip }' "
                + "and 'target.sip'")
        }
        return errors.count == errorsBefore ? spec : nil
    }

    /// `ports: 20000-29999`: an inclusive range of UDP ports holding at least one even port (RTP's).
    private mutating func mediaPorts(_ node: YAMLNode) -> ClosedRange<Int>? {
        let example = "like 20000-29999"
        guard let text = string(node, "media.ports") else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .map { Int(String($0).trimmingSpaces) }
        guard parts.count == 2, let low = parts[0], let high = parts[1] else {
            report(node.mark, "expected 'media.ports' as a range of UDP ports, \(example); got '\(text)'")
            return nil
        }
        guard (1024...65535).contains(low), (1024...65535).contains(high), low < high else {
            report(node.mark, "'media.ports' must be two ports from 1024 to 65535, the first below the second, "
                + "\(example); got '\(text)'")
            return nil
        }
        return low...high
    }
}
