import Quantities

extension Scenario {
    /// The flow a mix entry names: `flows` when the loader resolved it, else the built-in flow of that name.
    ///
    /// Scenarios built in code (tests, benchmarks) usually leave `flows` empty and rely on the built-ins.
    public func flow(named name: String) -> Flow? {
        flows[name] ?? BuiltinFlows.flow(named: name)
    }

    /// `describe()`'s lines for the device profile and each flow of the mix, one line per step.
    func describeFlows() -> [String] {
        let capabilities = device.capabilities.isEmpty ? "none" : device.capabilities.joined(separator: ", ")
        var lines = ["  device: capabilities \(capabilities); at most \(device.maximumConversationGroups) "
            + "conversation groups of \(device.maximumConversationsPerConversationGroup); "
            + "video \(device.supportsVideo ? "on" : "off")"]
        if device.socket != .none {
            let r = device.socketReconnect
            lines.append("  device socket: \(device.socket.rawValue); "
                + "linger \(device.socketLingerNanos / 1_000_000) ms; reconnect \(r.baseNanos / 1_000_000) ms ×2 "
                + "up to \(r.maxNanos / 1_000_000) ms, jitter \(r.jitter)")
        }
        for entry in mix {
            guard let flow = flow(named: entry.flow) else {
                lines.append("  flow \(entry.flow): not defined")
                continue
            }
            let builtin = BuiltinFlows.flow(named: entry.flow)
            let origin = builtin != nil && (flows[entry.flow] ?? builtin) == builtin ? "built in" : "from the file"
            let outside = flow.roles.filter { flow.outside[$0] != nil }.map { role in
                "\(role) (outside\(flow.outside[role]?.uri.map { ", \($0)" } ?? ""))"
            }
            let roles = flow.roles.map { role in outside.first { $0.hasPrefix(role + " (") } ?? role }
            lines.append("  flow \(flow.name) (\(origin)), roles \(roles.joined(separator: ", "))"
                + (flow.startsOutside ? "; started by the outside party, not planned" : "") + ":")
            if let expect = flow.expect {
                let ways = expect.unanswered.map(\.rawValue).joined(separator: ", ")
                let codes = expect.statuses.map(String.init).joined(separator: ", ")
                lines.append("    expects calls unanswered as: \(ways)" + (codes.isEmpty ? "" : " (status \(codes))")
                    + "; a refusal it does not list fails the call")
            }
            appendSteps(flow.steps, indent: "    ", to: &lines)
        }
        return lines
    }

    private func appendSteps(_ steps: [FlowStep], indent: String, to lines: inout [String]) {
        for step in steps {
            switch step.kind {
            case .branch(let branches):
                lines.append("\(indent)\(step.name): branch")
                for branch in branches {
                    lines.append("\(indent)  \(Quantity.decimal(branch.probability * 100))%:")
                    appendSteps(branch.steps, indent: indent + "    ", to: &lines)
                }
            case .repeatSteps(let count, let nested):
                lines.append("\(indent)\(step.name): repeat \(count)x")
                appendSteps(nested, indent: indent + "  ", to: &lines)
            case .together(let nested, _):
                lines.append(indent + step.description)
                appendSteps(nested, indent: indent + "  ", to: &lines)
            default:
                lines.append(indent + step.description)
            }
        }
    }
}
