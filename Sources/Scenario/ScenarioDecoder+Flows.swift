import Faults
/// The flow language: the `flows:` and `device:` sections, and resolving the names in `mix` against user-written
/// and built-in flows.
///
/// A flow is checked as a whole before it is accepted: roles, step keys, every name a step refers to, and the
/// order in which conversations come to exist (walking the steps as written; see `FlowScope`).
extension ScenarioDecoder {
    static let flowKeys = ["roles", "steps", "outside", "expect"]
    static let flowRequiredKeys = ["roles", "steps"]
    static let stepKeys = [
        "name", "role", "do", "to", "conversation", "video", "reason", "with", "member", "into", "wait", "branch",
        "repeat", "steps", "together", "offset", "then",
    ]
    /// The keys that say what a step is; a step has exactly one.
    static let stepForms = ["do", "wait", "branch", "repeat", "together"]
    static let stepActions = [
        "start", "await_push", "join", "decline", "end", "pause", "resume", "merge", "unmerge", "await_end",
        "await_answer", "redial",
    ] + LifeEventKind.allCases.map(\.rawValue)
    /// The `behavior` entries a `wait:` may name instead of giving a distribution.
    static let behaviorReferences = ["answer_after", "talk"]
    /// LiveCommunicationKit's reasons a conversation ends for the others.
    static let endReasons = ["failed", "remoteEnded", "unanswered", "joinedElsewhere", "declinedElsewhere"]
    static let deviceKeys = ["capabilities", "max_conversation_groups", "max_conversations_per_group", "video",
                             "socket", "socket_reconnect", "socket_linger", "on_voip_without_call",
                             "handles", "supported_handles", "includes_in_recents"] + sipDeviceKeys + lifeDeviceKeys
    static let capabilityNames = ["pausing", "merging", "unmerging", "video", "playingTones"]
    /// How a step writes `Flow.hangupRole`.
    static let hangupWord = "hangup"
    static let defaultConversation = "main"
    static let maximumRepeatCount = 1000

    /// What `flows:` defined: every name written (even of flows with errors, so `mix` does not report them as
    /// unknown too) and the flows that were valid.
    struct FlowDefinitions {
        var names: [String] = []
        var flows: [String: Flow] = [:]
        /// Flows whose first role is written as outside, valid or not (so a mistake elsewhere in such a flow
        /// does not also report a missing 'load').
        var startOutside: Set<String> = []
    }

    /// What one flow's checks need while walking its steps.
    struct FlowScope {
        let flow: String
        /// Declared roles, valid or not, so a step's role is checked against what the author wrote.
        let roles: [String]
        /// Explicit step names seen so far, with where they were first written.
        var names: [String: Mark] = [:]
        /// Conversations some earlier step created. After a branch, those created in any of its branches count.
        var created: Set<String> = []
        /// Roles played by outside parties (`outside:`).
        var outsideParties: [String: OutsideParty] = [:]

        var outside: Set<String> { Set(outsideParties.keys) }
    }

    // MARK: - The document

    /// Decodes the whole document, flows and device included; nil when anything was wrong (see `errors`).
    mutating func scenario(_ root: YAMLNode) -> Scenario? {
        let errorsBefore = errors.count
        let definitions = Self.topLevelValue(root, "flows").map { self.flowDefinitions($0) } ?? FlowDefinitions()
        let device = Self.topLevelValue(root, "device").map { self.device($0) } ?? DeviceProfile()
        let known = definitions.names + BuiltinFlows.names.filter { !definitions.names.contains($0) }
        let mixed = Self.topLevelValue(root, "mix").flatMap { node -> [String]? in
            guard case .mapping(let pairs, _) = node else { return nil }
            return pairs.compactMap(\.key.scalarText)
        } ?? Scenario.defaultMix.map(\.flow)
        let mixedFlows = mixed.compactMap { definitions.flows[$0] ?? BuiltinFlows.flow(named: $0) }
        let onlyOutside = !mixed.isEmpty && mixed.allSatisfy(definitions.startOutside.contains)
        guard var scenario = scenario(root, knownFlows: Set(known), onlyOutside: onlyOutside),
              errors.count == errorsBefore, let device
        else {
            // Mapping mistakes are reported with everything else, so one validation lists them all.
            checkMappedOperations(root, mixedFlows)
            return nil
        }
        for entry in scenario.mix {
            guard let flow = definitions.flows[entry.flow] ?? BuiltinFlows.flow(named: entry.flow) else { continue }
            if flow.deviceRoles.count > scenario.devices {
                let mark = Self.topLevelValue(root, "devices")?.mark ?? Mark(line: 1, column: 1)
                report(mark, "flow '\(flow.name)' needs \(flow.deviceRoles.count) devices (one per role), "
                    + "but 'devices' is \(scenario.devices)")
            }
            scenario.flows[entry.flow] = flow
        }
        scenario.device = device
        scenario.targetBugs = targetBugs
        scenario.targetProcess = targetProcess
        scenario.targetCA = targetCA
        scenario.targetClient = targetClient
        scenario.targetPolicy = targetPolicy
        scenario.sip = sip
        if let node = Self.topLevelValue(root, "replay") {
            guard let replay = self.replay(node) else { return nil }
            scenario.replay = replay
        }
        if let node = Self.topLevelValue(root, "users") {
            guard let users = self.users(node) else { return nil }
            scenario.users = users
        }
        if let node = Self.topLevelValue(root, "media") {
            guard let media = self.media(node, scenario) else { return nil }
            scenario.media = media
        }
        if let api {
            checkMappedOperations(root, scenario.flows.values.sorted(by: { $0.name < $1.name }))
            scenario.api = api
        }
        checkSocketMapped(root, scenario)
        checkSocketFaults(scenario)
        checkSIP(root, scenario)
        checkOutsideCallees(root, scenario)
        checkSIPFaults(root, scenario)
        return errors.count == errorsBefore ? scenario : nil
    }

    static func operation(of kind: FlowStep.Kind) -> String? {
        switch kind {
        case .start, .redial: return "start"
        case .join: return "join"
        case .decline: return "decline"
        case .end: return "end"
        case .pause: return "pause"
        case .resume: return "resume"
        case .merge: return "merge"
        case .unmerge: return "unmerge"
        default: return nil
        }
    }

    /// The value of a top-level key, read before the main pass so `mix` can be checked against `flows:`.
    static func topLevelValue(_ root: YAMLNode, _ key: String) -> YAMLNode? {
        guard case .mapping(let pairs, _) = root,
              let value = pairs.first(where: { $0.key.scalarText == key })?.value, !value.isNull
        else { return nil }
        return value
    }

    // MARK: - Flows

    mutating func flowDefinitions(_ node: YAMLNode) -> FlowDefinitions {
        var definitions = FlowDefinitions()
        guard case .mapping(let pairs, _) = node else {
            report(node.mark, "expected 'flows' to map flow names to '{ roles: [...], steps: [...] }', "
                + "got \(node.kindDescription)")
            return definitions
        }
        for pair in pairs {
            guard let name = pair.key.scalarText else {
                report(pair.key.mark, "flow names in 'flows' must be plain words, got \(pair.key.kindDescription)")
                continue
            }
            definitions.names.append(name)
            if Self.startsOutside(pair.value) { definitions.startOutside.insert(name) }
            guard Self.isIdentifier(name) else {
                report(pair.key.mark, "flow name '\(name)' may only use letters, digits, '-' and '_'")
                continue
            }
            if let flow = flow(named: name, pair.value) { definitions.flows[name] = flow }
        }
        return definitions
    }

    /// One flow, named `name`, from its `{ roles, steps }` mapping. Also used for the built-in flows' text.
    mutating func flow(named name: String, _ node: YAMLNode) -> Flow? {
        let errorsBefore = errors.count
        guard let fields = fields(of: node, in: "flow '\(name)'", known: Self.flowKeys,
                                  required: Self.flowRequiredKeys)
        else { return nil }
        let roles = fields["roles"].flatMap { self.roles($0, flow: name) }
        let outside = fields["outside"].map { self.outside($0, flow: name, roles: roles) } ?? [:]
        let expect = fields["expect"].flatMap { self.expect($0, flow: name) }
        var scope = FlowScope(flow: name, roles: roles ?? [], outsideParties: outside)
        // An outside caller's call is the conversation the flow begins with.
        if let first = roles?.first, outside[first] != nil { scope.created.insert(Flow.outsideConversation) }
        // Without readable roles every role reference would be reported as undefined: check the rest only.
        let steps = fields["steps"].flatMap { self.steps($0, in: "flow '\(name)'", scope: &scope, roles: roles) }
        guard errors.count == errorsBefore, let roles, var steps else { return nil }
        var taken = Set(scope.names.keys)
        Self.nameUnnamedSteps(&steps, taken: &taken)
        return Flow(name: name, roles: roles, steps: steps, outside: outside, expect: expect)
    }

    /// The declared roles, in order. Problems are reported; the names are returned anyway unless unreadable.
    mutating func roles(_ node: YAMLNode, flow: String) -> [String]? {
        guard case .sequence(let items, let mark) = node else {
            report(node.mark, "expected 'roles' of flow '\(flow)' to be a list like [caller, callee], "
                + "got \(node.kindDescription)")
            return nil
        }
        var roles: [String] = []
        for item in items {
            guard let role = string(item, "roles") else { continue }
            if role == Self.hangupWord {
                report(item.mark, "'hangup' cannot be a role name: in a step, 'role: hangup' means the side "
                    + "behavior.hangup picks; call the role something else")
            } else if !Self.isIdentifier(role) {
                report(item.mark, "role name '\(role)' may only use letters, digits, '-' and '_'")
            } else if roles.contains(role) {
                report(item.mark, "role '\(role)' is declared twice in flow '\(flow)'")
            }
            roles.append(role)
        }
        if items.count < 2 {
            report(mark, "flow '\(flow)' needs at least two roles (the caller side first, then the callee side), "
                + "like [caller, callee]")
        }
        return roles
    }

    /// A non-empty list of steps. `roles` is nil when the flow's roles could not be read.
    mutating func steps(_ node: YAMLNode, in context: String, scope: inout FlowScope, roles: [String]?)
        -> [FlowStep]?
    {
        guard case .sequence(let items, let mark) = node else {
            report(node.mark, "expected the steps of \(context) to be a list like "
                + "'- { role: caller, do: start, to: [callee] }', got \(node.kindDescription)")
            return nil
        }
        guard !items.isEmpty else {
            report(mark, "the steps of \(context) must not be empty")
            return nil
        }
        var result: [FlowStep] = []
        for item in items {
            if let step = step(item, scope: &scope, roles: roles) { result.append(step) }
        }
        return result.count == items.count ? result : nil
    }
}
