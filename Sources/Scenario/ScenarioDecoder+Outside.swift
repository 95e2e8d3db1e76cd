/// A flow's `outside:`: the roles played by parties callstorm does not simulate (`OutsideParty`), and the rules
/// that keep such a flow meaningful (docs/SIP.md, "Outside parties"; README, flows).
///
/// Two forms: a list of role names (`outside: [caller]`, parties that only call in), or a mapping from role name to
/// the party (`outside: { callee: { uri: "sip:echo@127.0.0.1:5070" } }`).
extension ScenarioDecoder {
    static let outsidePartyKeys = ["uri"]

    /// Whether a flow definition, as written, names its first role in `outside` (read before it is validated).
    static func startsOutside(_ node: YAMLNode) -> Bool {
        guard let roles = topLevelValue(node, "roles"), case .sequence(let items, _) = roles,
              let first = items.first?.scalarText, let outside = topLevelValue(node, "outside") else { return false }
        switch outside {
        case .sequence(let names, _): return names.contains { $0.scalarText == first }
        case .mapping(let pairs, _): return pairs.contains { $0.key.scalarText == first }
        case .scalar: return false
        }
    }

    /// The outside roles of flow `flow`; problems are reported and the readable entries returned.
    mutating func outside(_ node: YAMLNode, flow: String, roles: [String]?) -> [String: OutsideParty] {
        var parties: [String: OutsideParty] = [:]
        var entries: [(YAMLNode, YAMLNode?)] = []
        switch node {
        case .sequence(let items, _): entries = items.map { ($0, nil) }
        case .mapping(let pairs, _): entries = pairs.map { ($0.key, $0.value) }
        case .scalar:
            report(node.mark, "expected 'outside' of flow '\(flow)' to list roles, like [caller], or map them to "
                + "their party, like '{ callee: { uri: \"sip:echo@127.0.0.1:5070\" } }'")
            return [:]
        }
        for (key, value) in entries {
            guard let role = string(key, "outside") else { continue }
            if let roles, !roles.contains(role) {
                report(key.mark, "'outside' names '\(role)', which is not a role of flow '\(flow)'; its roles are "
                    + roles.joined(separator: ", "), suggestion: Suggestion.closest(to: role, among: roles))
                continue
            }
            if parties[role] != nil { report(key.mark, "'outside' names '\(role)' twice") }
            var party = OutsideParty()
            if let value, !value.isNull {
                guard let f = fields(of: value, in: "outside role '\(role)'", known: Self.outsidePartyKeys) else {
                    continue
                }
                if let n = f["uri"], let uri = string(n, "uri") {
                    if !uri.hasPrefix("sip:") || !uri.contains("@") {
                        report(n.mark, "'uri' is the SIP URI the devices call, like \"sip:echo@127.0.0.1:5070\"; "
                            + "got '\(uri)'")
                    } else if role == roles?.first {
                        report(n.mark, "'\(role)' is the first role, an outside caller: it calls the devices, so "
                            + "it takes no 'uri' (that is for a role the devices call)")
                    }
                    party.uri = uri
                }
            }
            parties[role] = party
        }
        if let roles, !roles.isEmpty, roles.allSatisfy({ parties[$0] != nil }) {
            report(node.mark, "every role of flow '\(flow)' is outside; at least one must be played by callstorm's "
                + "devices")
        }
        return parties
    }

    /// A step performed by an outside role, or by `hangup` in a flow with outside roles: reported at its role.
    mutating func checkOutsidePerformer(_ role: String, at node: YAMLNode, scope: FlowScope) {
        if role == Flow.hangupRole, !scope.outside.isEmpty {
            report(node.mark, "'role: hangup' picks a side by behavior.hangup, which may be the outside party in "
                + "flow '\(scope.flow)'; name the device role that ends the call, or let it 'await_end' the "
                + "outside party's hang-up")
        } else if scope.outside.contains(role) {
            report(node.mark, "role '\(role)' is played by an outside party (flow '\(scope.flow)' 'outside'), so "
                + "callstorm does no step for it; "
                + (role == scope.roles.first ? "its call arrives by itself as conversation 'main': begin with the "
                    + "callee's 'await_push'" : "the devices' steps only observe what it does"))
        }
    }

    /// A `to:` naming an outside role: it needs a `uri` and is called alone.
    mutating func checkOutsideCallee(_ callee: String, at node: YAMLNode, count: Int, scope: FlowScope) {
        guard let party = scope.outsideParties[callee] else { return }
        if callee == scope.roles.first {
            report(node.mark, "'\(callee)' is an outside caller; a device cannot call it")
        } else if party.uri == nil {
            report(node.mark, "'\(callee)' is an outside party with no 'uri' to call; write "
                + "'outside: { \(callee): { uri: \"sip:user@host:port\" } }'")
        } else if count > 1 {
            report(node.mark, "an outside party ('\(callee)') is called alone; 'to' names \(count) roles")
        }
    }

    /// Outside callees are reached by SIP URI: they need SIP devices.
    mutating func checkOutsideCallees(_ root: YAMLNode, _ scenario: Scenario) {
        guard scenario.device.sip == nil else { return }
        for entry in scenario.mix {
            guard let flow = scenario.flows[entry.flow],
                  let role = flow.roles.dropFirst().first(where: { flow.outside[$0]?.uri != nil }) else { continue }
            let mark = Self.topLevelValue(root, "mix")?.mark ?? Mark(line: 1, column: 1)
            report(mark, "flow '\(flow.name)' calls the outside party '\(role)' by its SIP URI, which needs SIP "
                + "devices ('device: { signaling: sip }'); an HTTP target's outside parties can only call in")
        }
    }
}
