import Faults

/// Socket faults in a window's `device:` and `target:` sections (docs/WEBSOCKET.md, "Faults").
extension ScenarioDecoder {
    /// `socket_drop: 20%`, or `{ probability: 20%, code: 1001, roles: [callee] }`.
    mutating func socketDrop(_ node: YAMLNode) -> SocketDropFaults? {
        socketFaultMarks.append((node.mark, "socket_drop"))
        if node.scalarText != nil { return fraction(node, "socket_drop").map { SocketDropFaults(probability: $0) } }
        guard let f = fields(of: node, in: "'socket_drop'", known: ["probability", "code", "roles"],
                             required: ["probability"]) else { return nil }
        let errorsBefore = errors.count
        var drop = SocketDropFaults(probability: f["probability"].flatMap { fraction($0, "probability") } ?? 0)
        if let n = f["code"] { drop.code = closeCode(n, "code") }
        if let n = f["roles"] { drop.roles = socketFaultRoles(n) }
        return errors.count == errorsBefore ? drop : nil
    }

    /// `socket_stall: 3s` (every device of the window), or `{ for: <distribution>, probability: 20%, roles: […] }`.
    mutating func socketStall(_ node: YAMLNode) -> SocketStallFaults? {
        socketFaultMarks.append((node.mark, "socket_stall"))
        if node.scalarText != nil {
            return duration(node, "socket_stall").map { SocketStallFaults(duration: .constant($0)) }
        }
        guard let f = fields(of: node, in: "'socket_stall'", known: ["for", "probability", "roles"],
                             required: ["for"]) else { return nil }
        let errorsBefore = errors.count
        let length = f["for"].flatMap { distribution($0, "for") }
        var stall = SocketStallFaults(duration: length ?? .constant(0))
        if let n = f["probability"], let p = fraction(n, "probability") { stall.probability = p }
        if let n = f["roles"] { stall.roles = socketFaultRoles(n) }
        return errors.count == errorsBefore && length != nil ? stall : nil
    }

    /// `socket_storm: true` (abrupt), or `{ code: 1001 }`. Only the embedded target, in callstorm's own process,
    /// can be told to drop its sockets; `kind` says why another target cannot.
    mutating func socketStorm(_ node: YAMLNode) -> SocketStormFaults? {
        socketFaultMarks.append((node.mark, "socket_storm"))
        let errorsBefore = errors.count
        var storm = SocketStormFaults()
        if node.scalarText != nil {
            if let on = bool(node, "socket_storm"), !on {
                report(node.mark, "'socket_storm: false' does nothing; leave it out instead")
            }
        } else if let f = fields(of: node, in: "'socket_storm'", known: ["code"]), let n = f["code"] {
            storm.code = closeCode(n, "code")
        }
        if targetIsURL {
            report(node.mark, "'socket_storm' has callstorm's embedded reference target drop every event socket "
                + "at once; a 'url' target is a server callstorm cannot tell to drop its sockets. To end many "
                + "devices' sockets there, use 'device: { socket_drop: 100% }'")
        } else if targetProcess {
            report(node.mark, "'socket_storm' drops the sockets of the embedded target running inside callstorm; "
                + "with 'process: true' it runs in a child process of its own. Remove 'process: true' (target "
                + "'kill' windows need it: put the storm in a scenario of its own)")
        }
        return errors.count == errorsBefore ? storm : nil
    }

    /// `roles: [callee]` or `roles: callee`; each name is checked against the flows' roles once they are known.
    private mutating func socketFaultRoles(_ node: YAMLNode) -> [String] {
        let items: [YAMLNode]
        if case .sequence(let list, _) = node { items = list } else { items = [node] }
        return items.compactMap { item in
            guard let name = string(item, "roles") else { return nil }
            socketFaultRoleMarks.append((item.mark, name))
            return name
        }
    }

    /// Socket faults need devices that hold a socket: each one written is an error, at its position, otherwise.
    /// A role they name must be a role of a flow in the mix.
    mutating func checkSocketFaults(_ scenario: Scenario) {
        if scenario.device.socket == .none {
            for (mark, name) in socketFaultMarks {
                report(mark, "'\(name)' acts on the devices' signaling sockets, and these devices hold none; set "
                    + "'device: { socket: always }' (or on_push, foreground)")
            }
        }
        var known: [String] = []
        for flow in scenario.flows.values.sorted(by: { $0.name < $1.name }) {
            for role in flow.roles where !known.contains(role) { known.append(role) }
        }
        for (mark, role) in socketFaultRoleMarks where !known.contains(role) {
            report(mark, "role '\(role)' is in no flow of the mix (roles: \(known.joined(separator: ", ")))",
                   suggestion: Suggestion.closest(to: role, among: known))
        }
    }

    /// A close code a close frame may carry.
    private mutating func closeCode(_ node: YAMLNode, _ what: String) -> UInt16? {
        guard let value = integer(node, what, atLeast: 1000) else { return nil }
        guard SocketStormFaults.isSendable(value) else {
            report(node.mark, "'\(what)' \(value) cannot be sent in a close frame (RFC 6455 §7.4): use 1000–1003, "
                + "1007–1014 or an application code 3000–4999; leave '\(what)' out for an abrupt end")
            return nil
        }
        return UInt16(value)
    }
}
