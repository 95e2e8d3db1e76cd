import Faults
import Quantities

/// The flow language's steps: one step's keys and forms, its roles and conversations, branches, races and
/// repetitions; default step names; and the `device:` section.
extension ScenarioDecoder {
    // MARK: - Steps

    /// One step. An unnamed step gets the empty name here; `nameUnnamedSteps` fills it in once the whole flow
    /// is read, so explicit names anywhere in the flow win over defaults.
    mutating func step(_ node: YAMLNode, scope: inout FlowScope, roles: [String]?) -> FlowStep? {
        let context = "a step of flow '\(scope.flow)'"
        let errorsBefore = errors.count
        guard let fields = fields(of: node, in: context, known: Self.stepKeys) else { return nil }
        let forms = Self.stepForms.filter { fields[$0] != nil }
        guard forms.count == 1, let form = forms.first else {
            if forms.count > 1 {
                report(fields.mark, "a step takes exactly one of 'do', 'wait', 'branch' and 'repeat', got "
                    + forms.map { "'\($0)'" }.joined(separator: " and "))
            } else if errors.count == errorsBefore {
                report(fields.mark, "a step needs 'do' (an action), 'wait', 'branch' or 'repeat', "
                    + "like '{ role: caller, do: start, to: [callee] }' or '{ wait: talk }'")
            }
            return nil
        }

        let name = fields["name"].map { stepName($0, scope: &scope) } ?? ""

        var action: String?
        var allowed: Set<String> = ["name", form]
        switch form {
        case "do":
            action = fields["do"].flatMap { self.word($0, "do", among: Self.stepActions) }
            guard let action else {
                // Still check the role, so one pass reports a misspelt action and a misspelt role together, and
                // take the step as creating what it names: a misspelt `start` must not make every later use of
                // its conversation an error too.
                if let node = fields["role"] { _ = self.role(node, scope: scope, roles: roles, allowHangup: true) }
                for key in ["conversation", "into"] {
                    if let name = fields[key]?.scalarText { scope.created.insert(name) }
                }
                if fields["conversation"] == nil { scope.created.insert(Self.defaultConversation) }
                return nil
            }
            allowed.formUnion(Self.actionKeys(action))
        case "repeat":
            allowed.insert("steps")
        case "together":
            allowed.insert("offset")
        default:
            break
        }
        for pair in fields.pairs {
            guard let key = pair.key.scalarText, !allowed.contains(key) else { continue }
            let what = action.map { "a '\($0)' step" } ?? "a '\(form)' step"
            let keys = allowed.subtracting(["name", form]).sorted()
            let hint = keys.isEmpty ? "" : " (it takes \(keys.map { "'\($0)'" }.joined(separator: ", ")))"
            report(pair.key.mark, "'\(key)' does not apply to \(what)\(hint)")
        }

        let kind: FlowStep.Kind?
        var role: String?
        if let action {
            if let node = fields["role"] {
                role = self.role(node, scope: scope, roles: roles, allowHangup: true)
            } else {
                report(fields.mark, "a '\(action)' step needs 'role', the role whose device does it")
            }
            kind = self.action(action, fields: fields, role: role, scope: &scope, roles: roles)
        } else if form == "wait" {
            kind = fields["wait"].flatMap { self.wait($0) }
        } else if form == "together" {
            kind = self.together(fields, scope: &scope, roles: roles)
        } else if form == "branch" {
            let key = fields.pairs.first { $0.key.scalarText == "branch" }?.key.mark ?? fields.mark
            kind = fields["branch"].flatMap { self.branch($0, at: key, scope: &scope, roles: roles) }
        } else {
            kind = self.repetition(fields, scope: &scope, roles: roles)
        }
        guard errors.count == errorsBefore, let kind else { return nil }
        return FlowStep(name: name, role: role, kind: kind)
    }

    /// A step's explicit name: an identifier, unique in its flow (it names per-step metrics); "" when it is not.
    mutating func stepName(_ node: YAMLNode, scope: inout FlowScope) -> String {
        guard let text = string(node, "name") else { return "" }
        if !Self.isIdentifier(text) {
            report(node.mark, "step name '\(text)' may only use letters, digits, '-' and '_'")
        } else if let first = scope.names[text] {
            report(node.mark, "step name '\(text)' is used twice in flow '\(scope.flow)' (first at \(first)); "
                + "step names must be unique because they name per-step metrics")
        } else {
            scope.names[text] = node.mark
            return text
        }
        return ""
    }

    /// The keys an action takes besides `name`, `do` and `role`.
    static func actionKeys(_ action: String) -> Set<String> {
        switch action {
        case "start": return ["role", "to", "conversation", "video"]
        case "end": return ["role", "conversation", "reason"]
        case "merge": return ["role", "conversation", "with"]
        case "unmerge": return ["role", "conversation", "member", "into"]
        case "interrupted": return ["role", "conversation", "then"]
        default: return ["role", "conversation"]
        }
    }

    /// A role reference: a declared role, or `hangup` (→ `Flow.hangupRole`) where `allowHangup`.
    mutating func role(_ node: YAMLNode, scope: FlowScope, roles: [String]?, allowHangup: Bool) -> String? {
        guard let text = string(node, "role") else { return nil }
        if text == Self.hangupWord {
            if allowHangup {
                checkOutsidePerformer(Flow.hangupRole, at: node, scope: scope)
                return Flow.hangupRole
            }
            report(node.mark, "'hangup' (the side behavior.hangup picks) can only perform a step; "
                + "name a declared role here")
            return nil
        }
        guard let roles else { return text }
        guard roles.contains(text) else {
            let candidates = roles + (allowHangup ? [Self.hangupWord] : [])
            report(node.mark, "undefined role '\(text)' in flow '\(scope.flow)'; its roles are "
                + roles.joined(separator: ", "), suggestion: Suggestion.closest(to: text, among: candidates))
            return nil
        }
        // A performer (the only place `hangup` is allowed) must be one of the devices.
        if allowHangup { checkOutsidePerformer(text, at: node, scope: scope) }
        return text
    }

    /// A conversation that must already exist. `written` is nil when the step relies on the default (`main`);
    /// the problem is then reported at `fallback`.
    mutating func existingConversation(_ written: YAMLNode?, key: String, at fallback: Mark, scope: FlowScope)
        -> String?
    {
        guard let name = conversationName(written, key: key) else { return nil }
        guard scope.created.contains(name) else {
            let defaulted = written == nil ? " (the default)" : ""
            report(written?.mark ?? fallback, "conversation '\(name)'\(defaulted) is used before any step "
                + "creates it (a 'start' creates its 'conversation', an 'unmerge' its 'into')",
                suggestion: Suggestion.closest(to: name, among: scope.created.sorted()))
            return nil
        }
        return name
    }

    /// A conversation name as written, or `main` when `written` is nil.
    mutating func conversationName(_ written: YAMLNode?, key: String) -> String? {
        guard let written else { return Self.defaultConversation }
        guard let name = string(written, key) else { return nil }
        guard Self.isIdentifier(name) else {
            report(written.mark, "conversation name '\(name)' may only use letters, digits, '-' and '_'")
            return nil
        }
        return name
    }

    mutating func action(
        _ action: String, fields: Fields, role: String?, scope: inout FlowScope, roles: [String]?
    ) -> FlowStep.Kind? {
        let doMark = fields["do"]?.mark ?? fields.mark
        if action == "start" {
            let conversation = conversationName(fields["conversation"], key: "conversation")
            let video = fields["video"].map { self.bool($0, "video") } ?? false
            var to: [String]?
            if let node = fields["to"] {
                to = callees(node, performer: role, scope: scope, roles: roles)
            } else {
                report(fields.mark, "a 'start' step needs 'to', the roles it calls, like 'to: [callee]'")
            }
            if let conversation { scope.created.insert(conversation) }
            guard let conversation, let video, let to else { return nil }
            return .start(to: to, conversation: conversation, video: video)
        }
        if action == "redial" {
            // Creates its conversation like a start; whom it calls comes from the device's Recents at run time.
            let conversation = conversationName(fields["conversation"], key: "conversation")
            if let conversation { scope.created.insert(conversation) }
            return conversation.map { .redial(conversation: $0) }
        }
        let conversation = existingConversation(fields["conversation"], key: "conversation", at: doMark,
                                                scope: scope)
        switch action {
        case "await_push": return conversation.map { .awaitPush(conversation: $0) }
        case "join": return conversation.map { .join(conversation: $0) }
        case "decline": return conversation.map { .decline(conversation: $0) }
        case "pause": return conversation.map { .pause(conversation: $0) }
        case "resume": return conversation.map { .resume(conversation: $0) }
        case "await_end": return conversation.map { .awaitEnd(conversation: $0) }
        case "await_answer": return conversation.map { .awaitAnswer(conversation: $0) }
        case _ where LifeEventKind(rawValue: action) != nil:
            return conversation.flatMap { lifeStep(action, fields: fields, conversation: $0) }
        case "end":
            let reason = fields["reason"].map { self.word($0, "reason", among: Self.endReasons) }
            guard let conversation, reason != .some(nil) else { return nil }
            return .end(conversation: conversation, reason: reason ?? nil)
        case "merge":
            guard let node = fields["with"] else {
                report(fields.mark, "a 'merge' step needs 'with', the conversation merged into this one")
                return nil
            }
            guard let other = existingConversation(node, key: "with", at: doMark, scope: scope) else { return nil }
            guard let conversation else { return nil }
            if other == conversation {
                report(node.mark, "a conversation cannot be merged with itself ('\(other)')")
                return nil
            }
            return .merge(conversation: conversation, with: other)
        default:  // unmerge
            var member: String?
            if let node = fields["member"] {
                member = self.role(node, scope: scope, roles: roles, allowHangup: false)
                if let member, scope.outside.contains(member) {
                    report(node.mark, "'member' names '\(member)', an outside party; callstorm can only move its "
                        + "own devices between conversations")
                } else if let member, member == role {
                    report(node.mark, "'member' must be another role than the one doing the unmerge ('\(member)')")
                }
            } else {
                report(fields.mark, "an 'unmerge' step needs 'member', the role moved out of the conversation")
            }
            var into: String?
            if let node = fields["into"] {
                into = conversationName(node, key: "into")
                if let into, into == conversation {
                    report(node.mark, "'into' must name a new conversation, not '\(into)' itself")
                }
            } else {
                report(fields.mark, "an 'unmerge' step needs 'into', the name of the conversation it creates")
            }
            if let into { scope.created.insert(into) }
            guard let conversation, let member, let into else { return nil }
            return .unmerge(conversation: conversation, member: member, into: into)
        }
    }

    /// The `to` of a start: one role or a list, none of them the performer, none twice.
    mutating func callees(_ node: YAMLNode, performer: String?, scope: FlowScope, roles: [String]?) -> [String]? {
        let items: [YAMLNode]
        if case .sequence(let list, _) = node { items = list } else if node.scalarText != nil { items = [node] } else {
            report(node.mark, "expected 'to' to be a list of roles like [callee], got \(node.kindDescription)")
            return nil
        }
        guard !items.isEmpty else {
            report(node.mark, "'to' needs at least one role to call")
            return nil
        }
        var result: [String] = []
        let errorsBefore = errors.count
        for item in items {
            guard let callee = role(item, scope: scope, roles: roles, allowHangup: false) else { continue }
            checkOutsideCallee(callee, at: item, count: items.count, scope: scope)
            if callee == performer {
                report(item.mark, "'to' names '\(callee)', the role doing the start; a role cannot call itself")
            } else if result.contains(callee) {
                report(item.mark, "'to' names '\(callee)' twice")
            }
            result.append(callee)
        }
        return errors.count == errorsBefore ? result : nil
    }

    /// `wait: talk` (a behaviour) or `wait: <distribution>`.
    mutating func wait(_ node: YAMLNode) -> FlowStep.Kind? {
        if let text = node.scalarText, let first = text.first, first.isLetter || first == "_" {
            guard Self.behaviorReferences.contains(text) else {
                report(node.mark, "unknown behaviour '\(text)' in 'wait'; write 'answer_after', 'talk' or a "
                    + "distribution like 2s or { uniform: [1s, 2s] }",
                    suggestion: Suggestion.closest(to: text, among: Self.behaviorReferences))
                return nil
            }
            return .waitBehavior(text)
        }
        return distribution(node, "wait").map { .wait($0) }
    }

    mutating func branch(_ node: YAMLNode, at key: Mark, scope: inout FlowScope, roles: [String]?)
        -> FlowStep.Kind?
    {
        guard case .sequence(let items, _) = node, !items.isEmpty else {
            report(node.mark, "expected 'branch' to be a list like '[ { p: 50%, steps: [...] }, ... ]', "
                + "got \(node.kindDescription)")
            return nil
        }
        let errorsBefore = errors.count
        let before = scope.created
        var after = before
        var branches: [FlowBranch] = []
        var probabilities: [Double] = []
        for item in items {
            scope.created = before
            guard let fields = fields(of: item, in: "a branch", known: ["p", "steps"], required: ["p", "steps"])
            else { continue }
            let probability = fields["p"].flatMap { self.probability($0) }
            let steps = fields["steps"].flatMap { self.steps($0, in: "a branch", scope: &scope, roles: roles) }
            after.formUnion(scope.created)
            if let probability { probabilities.append(probability) }
            if let probability, let steps { branches.append(FlowBranch(probability: probability, steps: steps)) }
        }
        scope.created = after
        let total = probabilities.reduce(0, +)
        if probabilities.count == items.count, total > 1 + 1e-9 {
            report(key, "the probabilities in 'branch' add up to \(Quantity.decimal(total * 100))%, more than "
                + "100%; lower them (what is left below 100% does nothing)")
        }
        return errors.count == errorsBefore ? .branch(branches) : nil
    }

    /// `50%` or a fraction such as `0.5`; greater than 0 and at most 100 %.
    mutating func probability(_ node: YAMLNode) -> Double? {
        guard let text = string(node, "p")?.trimmingSpaces else { return nil }
        let percent = text.hasSuffix("%")
        let number = percent ? String(text.dropLast()).trimmingSpaces : text
        guard let value = Double(number), value.isFinite else {
            report(node.mark, "expected 'p' as a percentage like 50% or a fraction like 0.5, got '\(text)'")
            return nil
        }
        let fraction = percent ? value / 100 : value
        guard fraction > 0 else {
            report(node.mark, "'p' must be greater than 0, got '\(text)'")
            return nil
        }
        guard fraction <= 1 else {
            if percent {
                report(node.mark, "'p' cannot be more than 100%, got '\(text)'")
            } else {
                report(node.mark, "'p' without '%' is a fraction from 0 to 1, got '\(text)'",
                       suggestion: value <= 100 ? "\(text)%" : nil)
            }
            return nil
        }
        return fraction
    }

    /// `together: [actions], offset: 2ms` or `offset: { sweep: [-20ms, 20ms, 1ms] }`: a race from one barrier.
    mutating func together(_ fields: Fields, scope: inout FlowScope, roles: [String]?) -> FlowStep.Kind? {
        guard let node = fields["together"] else { return nil }
        guard let steps = self.steps(node, in: "a together step", scope: &scope, roles: roles) else { return nil }
        if steps.count < 2 { report(node.mark, "'together' needs at least two actions to race") }
        let waits = ["await_push", "await_end", "await_answer"]
        for step in steps where !step.kind.isAction || waits.contains(step.kind.word) {
            report(node.mark, "'together' takes device actions only (join, end, pause, resume, merge, unmerge, "
                + "start, decline), got '\(step.kind.word)' in step '\(step.name)'")
        }
        var offset = RaceOffset.fixed(0)
        if let o = fields["offset"] {
            if let text = o.scalarText {
                if let v = signedDuration(o, text) { offset = .fixed(v) }
            } else if let f = self.fields(of: o, in: "'offset'", known: ["sweep"], required: ["sweep"]),
                      let sweep = f["sweep"] {
                guard case .sequence(let items, _) = sweep, items.count == 3,
                      let a = items[0].scalarText.flatMap({ signedDuration(items[0], $0) }),
                      let b = items[1].scalarText.flatMap({ signedDuration(items[1], $0) }),
                      let c = items[2].scalarText.flatMap({ signedDuration(items[2], $0) }) else {
                    report(sweep.mark, "'sweep' is [from, to, step], like [-20ms, 20ms, 1ms]")
                    return nil
                }
                if c <= 0 || b < a {
                    report(sweep.mark, "'sweep' needs from ≤ to and a positive step, got [\(a), \(b), \(c)] ns")
                    return nil
                }
                if (b - a) / c > 10_000 { report(sweep.mark, "'sweep' may have at most 10,001 offsets") }
                offset = .sweep(from: a, to: b, step: c)
            }
        }
        return .together(steps: steps, offset: offset)
    }

    mutating func signedOffset(_ node: YAMLNode, _ text: String) -> Int64? { signedDuration(node, text) }

    private mutating func signedDuration(_ node: YAMLNode, _ text: String) -> Int64? {
        let negative = text.hasPrefix("-")
        do {
            let nanos = try Quantity.duration(negative ? String(text.dropFirst()) : text)
            guard nanos < UInt64(Int64.max) else { throw Quantity.ParseError(message: "too large", suggestion: nil) }
            return negative ? -Int64(nanos) : Int64(nanos)
        } catch {
            report(node.mark, "expected an offset like 2ms or -5ms, got '\(text)'")
            return nil
        }
    }

    mutating func repetition(_ fields: Fields, scope: inout FlowScope, roles: [String]?) -> FlowStep.Kind? {
        var count: Int?
        if let node = fields["repeat"], let value = integer(node, "repeat", atLeast: 1) {
            if value > Self.maximumRepeatCount {
                report(node.mark, "'repeat' can be at most \(Self.maximumRepeatCount), got \(value)")
            } else {
                count = value
            }
        }
        guard let node = fields["steps"] else {
            report(fields.mark, "a 'repeat' step needs 'steps', the steps to repeat")
            return nil
        }
        let steps = self.steps(node, in: "a repeat", scope: &scope, roles: roles)
        guard let count, let steps else { return nil }
        return .repeatSteps(count: count, steps: steps)
    }

    // MARK: - Names

    /// Names unnamed steps `<kind>`, or `<kind>-2`, `<kind>-3`… when that is taken, in file order, depth first.
    static func nameUnnamedSteps(_ steps: inout [FlowStep], taken: inout Set<String>) {
        for index in steps.indices {
            if steps[index].name.isEmpty {
                let base = steps[index].kind.word
                var name = base
                var counter = 2
                while taken.contains(name) {
                    name = "\(base)-\(counter)"
                    counter += 1
                }
                taken.insert(name)
                steps[index].name = name
            }
            switch steps[index].kind {
            case .branch(var branches):
                for branch in branches.indices { nameUnnamedSteps(&branches[branch].steps, taken: &taken) }
                steps[index].kind = .branch(branches)
            case .repeatSteps(let count, var nested):
                nameUnnamedSteps(&nested, taken: &taken)
                steps[index].kind = .repeatSteps(count: count, steps: nested)
            case .together(var nested, let offset):
                nameUnnamedSteps(&nested, taken: &taken)
                steps[index].kind = .together(steps: nested, offset: offset)
            default:
                break
            }
        }
    }

    /// Names that end up in metric keys (`<kind>.fulfillment@<flow>/<name>`) and CSV columns: ASCII letters,
    /// digits, `-`, `_`.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
        }
    }

    // MARK: - Device

    mutating func device(_ node: YAMLNode) -> DeviceProfile? {
        guard let fields = fields(of: node, in: "'device'", known: Self.deviceKeys) else { return nil }
        let errorsBefore = errors.count
        var profile = DeviceProfile()
        if let node = fields["capabilities"] {
            if case .sequence(let items, _) = node {
                var capabilities: [String] = []
                for item in items {
                    guard let name = word(item, "capabilities", among: Self.capabilityNames) else { continue }
                    if capabilities.contains(name) {
                        report(item.mark, "capability '\(name)' is listed twice")
                    }
                    capabilities.append(name)
                }
                profile.capabilities = capabilities
            } else {
                report(node.mark, "expected 'capabilities' to be a list like [pausing, merging, unmerging], "
                    + "got \(node.kindDescription)")
            }
        }
        if let node = fields["max_conversation_groups"],
           let value = integer(node, "max_conversation_groups", atLeast: 1) {
            profile.maximumConversationGroups = value
        }
        if let node = fields["max_conversations_per_group"],
           let value = integer(node, "max_conversations_per_group", atLeast: 1) {
            profile.maximumConversationsPerConversationGroup = value
        }
        if let node = fields["video"], let value = bool(node, "video") { profile.supportsVideo = value }
        deviceSocket(fields, into: &profile)
        deviceApp(fields, into: &profile)
        deviceSIP(fields, into: &profile)
        deviceLife(fields, into: &profile)
        return errors.count == errorsBefore ? profile : nil
    }
}
