/// One simulated app's conversation manager, as LiveCommunicationKit's `ConversationManager`: its configuration,
/// its conversations, and the rules an action must pass before the app performs it.
///
/// Every action goes through one path: `check` (the delegate's decision, synchronous: a missing capability or a
/// limit fails at once), then `begin` when it is performed, then `fulfilled` or `failed` once it finishes.
public struct ConversationManager: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var supportedCapabilities: Capabilities
        /// Conversations (each a group of one or more merged conversations) alive at once.
        public var maximumConversationGroups: Int
        /// Conversations merged into one group.
        public var maximumConversationsPerConversationGroup: Int
        public var supportsVideo: Bool

        public init(supportedCapabilities: Capabilities = [.pausing, .merging, .unmerging],
                    maximumConversationGroups: Int = 2, maximumConversationsPerConversationGroup: Int = 5,
                    supportsVideo: Bool = false) {
            self.supportedCapabilities = supportedCapabilities
            self.maximumConversationGroups = maximumConversationGroups
            self.maximumConversationsPerConversationGroup = maximumConversationsPerConversationGroup
            self.supportsVideo = supportsVideo
        }
    }

    /// Why an action fails before or instead of reaching the server. `reason` is the stable code reports count.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case missingCapability(ActionKind, Capabilities)
        case unknownConversation(String)
        case conversationEnded(String)
        case tooManyConversationGroups(limit: Int)
        case groupTooLarge(limit: Int)
        case illegalState(ActionKind, ConversationState)
        case mergeWithItself

        public var reason: String {
            switch self {
            case .missingCapability(_, let c): return "missing_capability:\(c.names.joined(separator: "+"))"
            case .unknownConversation: return "unknown_conversation"
            case .conversationEnded: return "conversation_ended"
            case .tooManyConversationGroups: return "limit:maximum_conversation_groups"
            case .groupTooLarge: return "limit:maximum_conversations_per_group"
            case .illegalState(_, let s): return "illegal_state:\(s.rawValue)"
            case .mergeWithItself: return "merge_with_itself"
            }
        }

        public var description: String {
            switch self {
            case .missingCapability(let k, let c): return "\(k.rawValue) needs the \(c.names.joined(separator: ", ")) capability"
            case .unknownConversation(let u): return "no conversation \(u) on this device"
            case .conversationEnded(let u): return "conversation \(u) has ended"
            case .tooManyConversationGroups(let l): return "more than \(l) conversation groups at once"
            case .groupTooLarge(let l): return "a group may hold at most \(l) conversations"
            case .illegalState(let k, let s): return "\(k.rawValue) is not possible while \(s.rawValue)"
            case .mergeWithItself: return "a conversation cannot be merged with itself"
            }
        }
    }

    public let configuration: Configuration
    /// The device id this manager belongs to (its own member entry on the server).
    public let localDevice: String
    public let localMember: Handle
    /// By UUID: a device holds one to three at once (`SmallStringMap`: no hashing of the UUID per event).
    public private(set) var conversations = SmallStringMap<Conversation>()
    /// How many conversations are merged into each (1 for one never merged).
    public private(set) var groupSizes = SmallStringMap<Int>()
    /// Conversations this device was told were merged away (ended on the server for good). Pushes reorder in
    /// flight, so a later-arriving older push must not bring one back.
    public private(set) var mergedAway: Set<String> = []
    /// LiveCommunicationKit's conversation events this manager reported, by name: `startedConnecting`,
    /// `connected`, `updated`, `ended.<reason>`, `capabilities.lost|gained.<name>`. Cumulative; the driver adds
    /// them to the run's counters (read at the run's end only).
    public var events: [String: Int] {
        var tally = ConversationEventTally()
        addEvents(to: &tally)
        return tally.byName
    }

    /// Adds this manager's events to `tally`: the common ones by index, the rare ones by name.
    public func addEvents(to tally: inout ConversationEventTally) {
        for (i, n) in commonEvents.enumerated() where n > 0 { tally.common[i] += n }
        tally.other.merge(otherEvents, uniquingKeysWith: +)
    }
    /// The events every call reports, counted by index (`commonEventNames`), not by a name made and hashed per
    /// event; `otherEvents` keeps the rare ones (capabilities) by name.
    private var commonEvents = [Int](repeating: 0, count: ConversationManager.commonEventNames.count)
    private var otherEvents: [String: Int] = [:]
    static let commonEventNames = ["startedConnecting", "connected", "updated"]
        + EndedReason.allCases.map { "ended.\($0.rawValue)" }
    private static let startedConnecting = 0, connected = 1, updated = 2
    /// Views of conversations this device did not have yet that list it connected: the newest of each, applied
    /// once a merge or split moves the device there (`adopt`). Cleared when the device goes back to idle.
    private var unknownViews = SmallStringMap<ConversationView>()

    private mutating func event(_ name: String) { otherEvents[name, default: 0] += 1 }
    private mutating func event(_ index: Int) { commonEvents[index] += 1 }
    private mutating func ended(_ reason: EndedReason) {
        commonEvents[3 + EndedReason.allCases.firstIndex(of: reason)!] += 1
    }

    /// Changes a conversation in place, reporting `connected` and `ended` when its state got there; false when
    /// there is none. The UUID is looked up once and the conversation never copied: a copy out and back (a lookup,
    /// the change, a store) retained and released its member arrays and cost a second hash (~15,000 instructions
    /// per SIP hold call, issue 33).
    @discardableResult
    private mutating func update(_ uuid: String, _ change: (inout Conversation) -> Void) -> Bool {
        guard let i = conversations.index(forKey: uuid) else { return false }
        update(at: i, change)
        return true
    }

    private mutating func update(at i: Int, _ change: (inout Conversation) -> Void) {
        // In place: a copy out and back retains and releases the member arrays.
        let (before, after, reason) = conversations.modify(at: i) { Self.changing(&$0, change) }
        if after == .joined, before == .joining { event(Self.connected) }
        if after == .left, before != .left, let reason { ended(reason) }
    }

    /// The version of a conversation read through `_modify` (no copy).
    private static func version(_ c: inout Conversation) -> Int { c.version }

    /// `change` applied to `c`, with the state before and after and the reason it ended (if it has).
    private static func changing(_ c: inout Conversation, _ change: (inout Conversation) -> Void)
        -> (ConversationState, ConversationState, EndedReason?) {
        let before = c.state
        change(&c)
        return (before, c.state, c.endedReason)
    }

    public init(configuration: Configuration, localDevice: String, localMember: Handle) {
        self.configuration = configuration
        self.localDevice = localDevice
        self.localMember = localMember
    }

    public var liveCount: Int {
        var n = 0
        for c in conversations.valueList where c.state != .left { n += 1 }
        return n
    }

    // MARK: - The delegate's decision

    /// Nil when the action may be performed now; otherwise why it fails at once.
    public func check(_ kind: ActionKind, conversation uuid: String?, with other: String? = nil) -> Refusal? {
        if kind == .start {
            return liveCount >= configuration.maximumConversationGroups
                ? .tooManyConversationGroups(limit: configuration.maximumConversationGroups) : nil
        }
        guard let uuid, let conversation = conversations[uuid] else {
            return .unknownConversation(uuid ?? "")
        }
        if conversation.state == .left { return .conversationEnded(uuid) }
        if let needed = kind.requiredCapability {
            let effective = conversation.capabilities.intersection(configuration.supportedCapabilities)
            if !effective.contains(needed) { return .missingCapability(kind, needed) }
        }
        switch kind {
        case .join where conversation.state != .idle: return .illegalState(kind, conversation.state)
        case .pause where conversation.state != .joined: return .illegalState(kind, conversation.state)
        case .resume where conversation.state != .paused: return .illegalState(kind, conversation.state)
        case .merge, .unmerge:
            guard conversation.state == .joined || conversation.state == .paused else {
                return .illegalState(kind, conversation.state)
            }
        default: break
        }
        if kind == .merge {
            guard let other else { return .unknownConversation("") }
            if other == uuid { return .mergeWithItself }
            guard let second = conversations[other] else { return .unknownConversation(other) }
            if second.state == .left { return .conversationEnded(other) }
            guard second.state == .joined || second.state == .paused else { return .illegalState(kind, second.state) }
            if !second.capabilities.intersection(configuration.supportedCapabilities).contains(.merging) {
                return .missingCapability(kind, .merging)
            }
            let size = (groupSizes[uuid] ?? 1) + (groupSizes[other] ?? 1)
            if size > configuration.maximumConversationsPerConversationGroup {
                return .groupTooLarge(limit: configuration.maximumConversationsPerConversationGroup)
            }
        }
        return nil
    }

    // MARK: - Reports and events

    /// An incoming conversation from a VoIP push. It is always reported (PushKit's rule); past the group limit
    /// it is refused and the app must end it.
    public mutating func reportIncoming(uuid: String, caller: Handle?, capabilities: Capabilities) -> Refusal? {
        let overLimit = liveCount >= configuration.maximumConversationGroups
        var conversation = Conversation(uuid: uuid, members: caller.map { [$0] } ?? [],
                                        capabilities: capabilities.intersection(effectiveSupported))
        conversation.localMember = localMember
        if overLimit { conversation.end(.failed) }
        conversations[uuid] = conversation
        groupSizes[uuid] = 1
        return overLimit ? .tooManyConversationGroups(limit: configuration.maximumConversationGroups) : nil
    }

    /// A conversation this device started, once the server created it (startedConnecting).
    public mutating func reportOutgoing(uuid: String, members: [Handle], video: Bool) {
        var capabilities = configuration.supportedCapabilities
        if video && configuration.supportsVideo { capabilities.insert(.video) } else { capabilities.remove(.video) }
        var conversation = Conversation(uuid: uuid, members: members, capabilities: capabilities)
        conversation.localMember = localMember
        try? conversation.move(to: .joining)
        conversations[uuid] = conversation
        groupSizes[uuid] = 1
        event(Self.startedConnecting)
    }

    private var effectiveSupported: Capabilities {
        var c = configuration.supportedCapabilities
        if !configuration.supportsVideo { c.remove(.video) }
        return c
    }

    /// The action is being performed: the states LiveCommunicationKit shows while it runs.
    public mutating func begin(_ kind: ActionKind, conversation uuid: String) {
        update(uuid) { c in
            switch kind {
            case .join: try? c.move(to: .joining)
            case .end: if c.state != .left && c.state != .leaving { try? c.move(to: .leaving) }
            default: break
            }
        }
    }

    /// The action finished well. For merge, `other` ends (its members now belong to `uuid`).
    public mutating func fulfilled(_ kind: ActionKind, conversation uuid: String, other: String? = nil) {
        if kind == .merge {
            guard conversations.index(forKey: uuid) != nil, let other, conversations.index(forKey: other) != nil
            else { return }
            // The merged-away one ends first, then the group's own change (the order the counts were made in).
            groupSizes[uuid] = (groupSizes[uuid] ?? 1) + (groupSizes[other] ?? 1)
            update(other) { $0.end(.joinedElsewhere) }
            update(uuid) { c in if c.state == .paused { try? c.move(to: .joined) } }
            return
        }
        update(uuid) { c in
            switch kind {
            case .join: if c.state == .joining { try? c.move(to: .joined) }
            case .pause: if c.state == .joined { try? c.move(to: .paused) }
            case .resume: if c.state == .paused { try? c.move(to: .joined) }
            case .end: c.end(.localEnded)
            case .merge, .start, .unmerge: break
            }
        }
    }

    /// The action failed: a join or end that failed leaves the conversation failed.
    public mutating func failed(_ kind: ActionKind, conversation uuid: String) {
        update(uuid) { c in
            switch kind {
            case .join, .end: c.end(.failed)
            default: break
            }
        }
    }

    /// A conversation split off by unmerge: this device holds it (the other one stays active).
    public mutating func addSplit(uuid: String, paused: Bool) {
        var conversation = Conversation(uuid: uuid, capabilities: conversations.values.first?.capabilities
                                        ?? configuration.supportedCapabilities)
        conversation.localMember = localMember
        try? conversation.move(to: .joining)
        try? conversation.move(to: .joined)
        if paused { try? conversation.move(to: .paused) }
        conversations[uuid] = conversation
        groupSizes[uuid] = 1
    }

    /// A remote member answered a conversation this device started (connected), told without a full view.
    public mutating func connected(_ uuid: String) {
        update(uuid) { c in if c.state == .joining { try? c.move(to: .joined) } }
    }

    /// A conversation this device was moved into by someone else's merge or unmerge, already connected.
    public mutating func adopt(_ view: ConversationView) {
        var conversation = Conversation(uuid: view.uuid, capabilities: effectiveSupported)
        conversation.localMember = localMember
        try? conversation.move(to: .joining)
        try? conversation.move(to: .joined)
        conversations[view.uuid] = conversation
        groupSizes[view.uuid] = 1
        apply(view)
        if let newer = unknownViews.removeValue(forKey: view.uuid), newer.version > view.version { apply(newer) }
    }

    /// A view of a conversation this device does not have (yet): kept when it lists the device connected and is
    /// newer than any kept before, for `adopt`.
    public mutating func noteUnknown(_ view: ConversationView) {
        let listed = view.members.contains { $0.device == localDevice }
        // Found by index: `conversations[uuid] == nil` copied the conversation out to compare it.
        guard conversations.index(forKey: view.uuid) == nil, listed,
              view.memberState(of: localDevice).isConnected || view.ended,
              unknownViews[view.uuid].map({ view.version > $0.version }) ?? true else { return }
        unknownViews[view.uuid] = view
    }

    /// Folds in the server's view if it is not older than what the device already saw (`updated` event).
    /// Returns false for a stale view.
    @discardableResult
    public mutating func apply(_ view: ConversationView) -> Bool {
        guard let i = conversations.index(forKey: view.uuid),
              conversations.modify(at: i, Self.version) <= view.version else { return false }
        let localDevice = localDevice
        event(Self.updated)
        update(at: i) { c in
            c.version = view.version
            c.members = view.remoteMembers(excluding: localDevice)
            c.activeRemoteMembers = view.members.filter { $0.device != localDevice && $0.isActive }
                .compactMap(\.handle)
            c.connectedRemoteMembers = view.connectedRemoteMembers(excluding: localDevice)
            let mine = view.memberState(of: localDevice)
            if c.state == .joining, !c.connectedRemoteMembers.isEmpty, mine == .joined {
                try? c.move(to: .joined)  // connected: a remote member answered our start
            }
            // The server holds or resumes this device's side (an unmerge that holds the group, say): the app
            // reports the conversation paused or joined. Only from versioned views, which cannot arrive stale
            // unnoticed.
            if view.hasVersion, c.state == .joined, mine == .held { try? c.move(to: .paused) }
            if view.hasVersion, c.state == .paused, mine == .joined { try? c.move(to: .joined) }
            if view.ended || view.state(of: localDevice) == "left" { c.end(.remoteEnded) }
        }
        if let capabilities = view.capabilities { updateCapabilities(view.uuid, capabilities) }
        return true
    }

    /// The server changed what a conversation can do (a `Conversation.Update` with new capabilities): the app
    /// keeps what it supports of them. Each capability lost or gained is an event
    /// (`capabilities.lost.<name>`, `capabilities.gained.<name>`); an action that needs a lost one fails as
    /// `missing_capability:<name>`.
    public mutating func updateCapabilities(_ uuid: String, _ capabilities: Capabilities) {
        guard var c = conversations[uuid], c.state != .left else { return }
        let next = capabilities.intersection(effectiveSupported)
        guard next != c.capabilities else { return }
        for name in c.capabilities.subtracting(next).names { event("capabilities.lost.\(name)") }
        for name in next.subtracting(c.capabilities).names { event("capabilities.gained.\(name)") }
        c.capabilities = next
        conversations[uuid] = c
    }

    /// The conversation ended on the server (ended event).
    public mutating func remoteEnded(_ uuid: String, reason: EndedReason) {
        update(uuid) { $0.end(reason) }
    }

    public mutating func forget(_ uuid: String) {
        conversations[uuid] = nil
        groupSizes[uuid] = nil
        if !mergedAway.isEmpty { mergedAway.remove(uuid) }
    }

    /// The server merged `uuid` into another conversation: it has ended, whether or not this device knew it yet.
    public mutating func markMergedAway(_ uuid: String) {
        mergedAway.insert(uuid)
    }

    /// Forgets every conversation and merge notice, when the device goes back to idle.
    public mutating func forgetAll() {
        conversations.removeAll()
        groupSizes.removeAll()
        if !mergedAway.isEmpty { mergedAway.removeAll() }
        unknownViews.removeAll()
    }

    /// Where this device's view of a conversation disagrees with the server's, or nil when they agree.
    public func disagreement(with view: ConversationView) -> String? {
        guard let c = conversations[view.uuid] else { return "device has no conversation \(view.uuid)" }
        let remote = Set(view.remoteMembers(excluding: localDevice).map(\.value))
        let active = Set(view.activeRemoteMembers(excluding: localDevice).map(\.value))
        let serverState = view.ended ? "left" : (view.state(of: localDevice) ?? "left")
        let expected: String
        switch c.state {
        case .idle: expected = "ringing"
        case .joining, .joined: expected = "joined"
        case .paused: expected = "held"
        case .leaving, .left: expected = "left"
        }
        if expected != serverState { return "state: device \(c.state.rawValue), server \(serverState)" }
        if serverState == "left" { return nil }  // members of an ended conversation do not matter
        if Set(c.members.map(\.value)) != remote { return "members differ" }
        if Set(c.activeRemoteMembers.map(\.value)) != active { return "activeRemoteMembers differ" }
        return nil
    }
}

/// Conversation events added up over several managers (the run's devices at stop): by index for the common ones,
/// named once at the end.
public struct ConversationEventTally {
    var common = [Int](repeating: 0, count: ConversationManager.commonEventNames.count)
    var other: [String: Int] = [:]

    public init() {}

    /// Every event counted, by name (`ConversationManager.events`' names).
    public var byName: [String: Int] {
        var all = other
        for (i, n) in common.enumerated() where n > 0 { all[ConversationManager.commonEventNames[i], default: 0] += n }
        return all
    }
}
