/// `users: { devices: { 1: 60%, 2: 30%, 3: 10% }, on_decline: declined_elsewhere, ringing_grace: 2s }`, or
/// `users: { devices: 2 }`: how many devices each user owns (docs/SCENARIOS.md, "Users with several devices").
extension ScenarioDecoder {
    mutating func users(_ node: YAMLNode) -> UsersSpec? {
        guard let f = fields(of: node, in: "'users'", known: UsersSpec.keys, required: ["devices"]),
              let devices = f["devices"], let (counts, shares) = userDeviceShares(devices) else { return nil }
        var spec = UsersSpec(counts: counts, shares: shares)
        if let n = f["on_decline"] {
            guard let word = word(n, "on_decline", among: DeclineElsewhere.allCases.map(\.rawValue)) else {
                return nil
            }
            spec.onDecline = DeclineElsewhere(rawValue: word) ?? .declinedElsewhere
        }
        if let n = f["ringing_grace"] {
            guard let grace = duration(n, "ringing_grace") else { return nil }
            spec.graceNanos = grace
        }
        return spec
    }

    /// `2` (every user has two devices) or `{ 1: 60%, 2: 30%, 3: 10% }` (shares of users by device count, summing
    /// to 100%).
    private mutating func userDeviceShares(_ node: YAMLNode) -> ([Int], [Double])? {
        if node.scalarText != nil {
            guard let n = integer(node, "users.devices", atLeast: 1) else { return nil }
            return ([n], [1])
        }
        guard case .mapping(let pairs, let mark) = node, !pairs.isEmpty else {
            report(node.mark, "expected 'users.devices' to be a number of devices (2) or shares of users by "
                + "device count ({ 1: 60%, 2: 30%, 3: 10% }), got \(node.kindDescription)")
            return nil
        }
        var counts: [Int] = []
        var shares: [Double] = []
        for pair in pairs {
            guard let key = pair.key.scalarText, let n = Int(key.trimmingSpaces), n >= 1 else {
                report(pair.key.mark, "keys of 'users.devices' are numbers of devices (1, 2, 3, …), got '"
                    + (pair.key.scalarText ?? pair.key.kindDescription) + "'")
                return nil
            }
            if counts.contains(n) {
                report(pair.key.mark, "'users.devices' names \(n) devices twice")
                return nil
            }
            guard let share = fraction(pair.value, "users.devices.\(n)") else { return nil }
            counts.append(n)
            shares.append(share)
        }
        let total = shares.reduce(0, +)
        guard abs(total - 1) < 1e-9 else {
            report(mark, "'users.devices' shares must add up to 100%, got \(Int((total * 100).rounded()))%")
            return nil
        }
        return (counts, shares)
    }
}
