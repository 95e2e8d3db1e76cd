/// `target.api.view` and `target.api.push`: where a server's JSON holds conversation views and push fields.
extension ScenarioDecoder {
    mutating func viewMapping(_ node: YAMLNode) -> ViewMapping? {
        let context = "'target.api.view'"
        let known = ["id", "state", "version", "ended", "ended_reason", "members", "member", "states",
                     "member_states", "response", "split", "required", "capabilities", "capability_words"]
        guard let f = fields(of: node, in: context, known: known, required: ["id", "members", "member"]),
              let id = f["id"].flatMap({ jsonPath($0, "id") }),
              let members = f["members"].flatMap({ jsonPath($0, "members") }),
              let memberNode = f["member"],
              let m = fields(of: memberNode, in: "'target.api.view.member'", known: ["id", "status", "handle"],
                             required: ["id", "status"]),
              let memberID = m["id"].flatMap({ jsonPath($0, "id") }),
              let memberStatus = m["status"].flatMap({ jsonPath($0, "status") }) else { return nil }
        var view = ViewMapping(id: id, state: nil, members: members, memberID: memberID, memberStatus: memberStatus)
        view.memberHandle = m["handle"].flatMap { jsonPath($0, "handle") }
        view.state = f["state"].flatMap { jsonPath($0, "state") }
        view.version = f["version"].flatMap { jsonPath($0, "version") }
        view.ended = f["ended"].flatMap { jsonPath($0, "ended") }
        view.endedReason = f["ended_reason"].flatMap { jsonPath($0, "ended_reason") }
        view.split = f["split"].flatMap { jsonPath($0, "split") }
        if let n = f["response"], let path = jsonPath(n, "response") { view.response = path }
        if let n = f["required"], let required = bool(n, "required") { view.required = required }
        if let n = f["states"], let states = stateWords(n, "states") {
            view.states = states
            view.memberStates = states
        }
        if let n = f["member_states"], let states = stateWords(n, "member_states") { view.memberStates = states }
        view.capabilities = f["capabilities"].flatMap { jsonPath($0, "capabilities") }
        if let n = f["capability_words"], let words = capabilityWords(n, "view") { view.capabilityWords = words }
        return view
    }

    /// `{ idle: [ringing, invited], joined: [active], paused: [held], left: [ended] }`.
    private mutating func stateWords(_ node: YAMLNode, _ what: String) -> [String: [String]]? {
        guard let f = fields(of: node, in: "'target.api.view.\(what)'", known: ViewMapping.states) else { return nil }
        var words: [String: [String]] = [:]
        for state in ViewMapping.states {
            if let n = f[state], let list = stringList(n, state) { words[state] = list }
        }
        return words
    }

    /// `{ pausing: [hold], merging: [merge] }`: LCK capability name → the server's words.
    private mutating func capabilityWords(_ node: YAMLNode, _ what: String) -> [String: [String]]? {
        guard let f = fields(of: node, in: "'target.api.\(what).capability_words'", known: CapabilityWords.names)
        else { return nil }
        var words: [String: [String]] = [:]
        for name in CapabilityWords.names {
            if let n = f[name], let list = stringList(n, name) { words[name] = list }
        }
        return words
    }

    mutating func pushFields(_ node: YAMLNode, context: String = "'target.api.push'") -> APIMapping.PushFields? {
        let known = ["conversation", "event", "joined", "ended", "merged", "split", "view", "capabilities", "handle",
                     "reason", "into", "version", "sent_at", "capability_words"]
        guard let p = fields(of: node, in: context, known: known) else { return nil }
        var push = APIMapping.PushFields()
        if let n = p["conversation"], let path = jsonPath(n, "conversation") { push.conversation = path }
        if let n = p["event"], let path = jsonPath(n, "event") { push.event = path }
        if let n = p["joined"], let list = stringList(n, "joined") { push.joined = list }
        if let n = p["ended"], let list = stringList(n, "ended") { push.ended = list }
        if let n = p["merged"], let list = stringList(n, "merged") { push.merged = list }
        if let n = p["split"], let list = stringList(n, "split") { push.split = list }
        push.view = p["view"].flatMap { jsonPath($0, "view") }
        push.capabilities = p["capabilities"].flatMap { jsonPath($0, "capabilities") }
        if let n = p["capability_words"], let words = capabilityWords(n, "push") { push.capabilityWords = words }
        push.handle = p["handle"].flatMap { jsonPath($0, "handle") }
        push.reason = p["reason"].flatMap { jsonPath($0, "reason") }
        push.into = p["into"].flatMap { jsonPath($0, "into") }
        push.version = p["version"].flatMap { jsonPath($0, "version") }
        push.sentAt = p["sent_at"].flatMap { jsonPath($0, "sent_at") }
        return push
    }
}
