/// The `device:` keys that say how the simulated app answers what a server sends it (docs/LCK.md).
extension ScenarioDecoder {
    /// `on_voip_without_call: report_and_end | terminate`.
    mutating func deviceApp(_ fields: Fields, into profile: inout DeviceProfile) {
        if let node = fields["on_voip_without_call"],
           let word = word(node, "on_voip_without_call", among: VoIPWithoutCall.allCases.map(\.rawValue)) {
            profile.onVoIPWithoutCall = VoIPWithoutCall(rawValue: word) ?? .reportAndEnd
        }
        if let node = fields["handles"], let shares = handleShares(node) { profile.handles.shares = shares }
        if let node = fields["includes_in_recents"], let value = bool(node, "includes_in_recents") {
            profile.includesInRecents = value
        }
        if let node = fields["supported_handles"] {
            guard case .sequence(let items, _) = node, !items.isEmpty else {
                return report(node.mark, "expected 'supported_handles' to be a list like [phone, email], "
                    + "got \(node.kindDescription)")
            }
            profile.handles.supported = items.compactMap { word($0, "supported_handles", among: HandleMix.kinds) }
        }
    }

    /// `{ phone: 70%, email: 20%, generic: 10% }`: shares of devices by handle kind, summing to 100%.
    private mutating func handleShares(_ node: YAMLNode) -> [Double]? {
        guard let f = fields(of: node, in: "'device.handles'", known: HandleMix.kinds) else { return nil }
        var shares = [Double](repeating: 0, count: HandleMix.kinds.count)
        for (i, kind) in HandleMix.kinds.enumerated() {
            guard let n = f[kind] else { continue }
            guard let share = fraction(n, kind) else { return nil }
            shares[i] = share
        }
        guard abs(shares.reduce(0, +) - 1) < 1e-9 else {
            report(f.mark, "'device.handles' shares must add up to 100%, got "
                + "\(Int((shares.reduce(0, +) * 100).rounded()))%")
            return nil
        }
        return shares
    }
}
