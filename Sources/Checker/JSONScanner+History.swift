import CallModel

// MARK: - History shapes

/// The objects of the history format (docs/CHECKER.md); unknown keys are skipped, unknown words of known enums are
/// errors raised where the word ends.
extension JSONScanner {
    mutating func readEvent() throws -> LineFields {
        var f = LineFields()
        try object { s, key in
            switch key {
            case .t:
                let v = try s.integer()
                guard v >= 0 else { throw s.error("\"t\" is negative") }
                f.t = UInt64(v)
            case .type: f.type = try s.name(HistoryNames.types)
            case .op: f.op = try s.integer()
            case .device: f.device = try s.string()
            case .user: f.user = try s.optionalString()
            case .kind: f.kind = try s.name(HistoryNames.kinds)
            case .conversation: f.conversation = try s.optionalString()
            case .with: f.with = try s.optionalString()
            case .member: f.member = try s.optionalString()
            case .outcome: f.outcome = try s.name(HistoryNames.outcomes)
            case .reason: f.reason = try s.optionalString()
            case .event: f.event = try s.name(HistoryNames.pushEvents)
            case .into: f.into = try s.optionalString()
            case .view: f.view = try s.optionalView()
            case .split: f.split = try s.optionalView()
            case .server: f.server = try s.optionalView()
            case .local: f.local = try s.localView()
            case .call: f.call = try s.integer()
            case .step: f.step = try s.optionalString()
            case .race: f.race = try s.optionalString()
            case .offset: f.offset = try s.integer()
            case .sent: f.sent = try s.bool()
            case .message: f.message = try s.string()
            case .state: f.state = try s.name(HistoryNames.dialogStates)
            default: try s.skipValue()
            }
        }
        return f
    }

    mutating func optionalView() throws -> ConversationView? {
        if null() { return nil }
        var id: String?
        var version: Int?
        var ended = false
        var members: [ConversationView.Member] = []
        try object { s, key in
            switch key {
            case .id: id = try s.string()
            case .version: version = try s.integer()
            case .ended: ended = try s.bool()
            case .members:
                try s.array { s in
                    var device: String?
                    var state: MemberState?
                    try s.object { s, key in
                        switch key {
                        case .device: device = try s.string()
                        case .state: state = try s.memberState()
                        default: try s.skipValue()
                        }
                    }
                    guard let device, let state else { throw s.error("a member needs \"device\" and \"state\"") }
                    // One allocation for the usual handful of members rather than a regrowth per member.
                    if members.isEmpty { members.reserveCapacity(4) }
                    members.append(.init(device: device, state: state))
                }
            default: try s.skipValue()
            }
        }
        guard let id else { throw error("a view without \"id\"") }
        // A server whose views carry no version (a mapping without one) writes none.
        var view = ConversationView(uuid: id, version: version ?? 0, ended: ended, members: members)
        view.hasVersion = version != nil
        return view
    }

    mutating func memberState() throws -> MemberState {
        try name(HistoryNames.memberStates).value(self) {
            "unknown member state \"\($0)\" (ringing, joined, held, left)"
        }
    }

    mutating func localView() throws -> LocalView {
        var state: MemberState?
        var members: [String] = []
        var active: [String] = []
        try object { s, key in
            switch key {
            case .state: state = try s.memberState()
            case .members: try s.array { s in members.append(try s.string()) }
            case .active: try s.array { s in active.append(try s.string()) }
            default: try s.skipValue()
            }
        }
        guard let state else { throw error("\"local\" without \"state\"") }
        return LocalView(state: state, members: members, active: active)
    }
}
