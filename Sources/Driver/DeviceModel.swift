import CallModel
import PushModel
import Scenario

/// A simulated device: its identity, its app's conversation manager, and the call (flow run) it takes part in.
/// Devices are state machines on a worker queue, not threads. What a device notes per conversation is kept by UUID
/// in `SmallStringMap`s (one or two entries; a dictionary hashed the UUID at every event).
struct Device {
    let identity: DeviceIdentity
    var manager: ConversationManager
    var registered = false
    var callID: Int?
    /// A second call the device took while in `callID` (LiveCommunicationKit's call waiting, SIP devices: its
    /// first call held, this one answered); it becomes the device's call when the first ends.
    var waitingCall: Int?
    /// When this device reported each incoming conversation (monotonic ns), for dial-to-ring.
    var reportedAt = SmallStringMap<UInt64>()
    /// The target's send time (epoch ms, its clock) of each reported conversation's VoIP push, when it said.
    var pushSentAt = SmallStringMap<Int>()
    /// The caller handle each reported conversation's VoIP push named (absent: it named none).
    var pushCaller = SmallStringMap<Handle>()
    var deadlineMisses = 0
    /// Acceptance instant of the newest push delivered so far, to count pushes that arrive after a later one.
    var lastDeliveredAccepted: UInt64 = 0
    /// Pushes a reorder fault holds back until the device's next push has been delivered.
    var held: [(serial: UInt64, push: APNsPush)] = []
    /// Conversations of the device's earlier calls, newest last (at most `DeviceModel.recentsKept`).
    var recents: [RecentConversation] = []
    /// VoIP pushes a push-path fault delayed, held or duplicated (apns-id → copies still to come), so a copy
    /// without a new call is not blamed on the server.
    var faultedPushes: [String: Int] = [:]
    /// Updates of this call's conversations that an injected fault kept from the device for good, the newest
    /// version lost of each: a push dropped after APNs accepted it (the server never sends it again), a join's
    /// answer a media-setup fault threw away. The view check does not wait for a push to bring a version already
    /// lost: none is coming. Emptied when the call releases the device.
    var lostVersions = SmallStringMap<Int>()
}

/// A worker's devices: each one's conversation manager and what it observed (pushes reported, views applied),
/// and the idle ones in the order calls take them. A value: tests drive it without a worker.
struct DeviceModel {
    private(set) var devices: [Device]
    private var idle: [Int] = []
    private var idleHead = 0
    /// Numbers the pushes reorder faults hold, so a release timer finds its own.
    private var nextHeldSerial: UInt64 = 0
    /// The caller handle value VoIP pushes named for each caller (worker-local index): a call's devices are
    /// all on one worker, so every push from a caller is compared here.
    var callerHandleSeen: [Int: String] = [:]

    /// Users with several devices (`users:`): each device's user's devices (worker-local, in index order), for
    /// devices whose user has more than one; the idle pool then holds users, by their first device.
    private(set) var userDevices: [Int: [Int]] = [:]

    init(identities: [DeviceIdentity], configuration: ConversationManager.Configuration) {
        devices = identities.map { identity in
            Device(identity: identity, manager: ConversationManager(
                configuration: configuration, localDevice: identity.id, localMember: identity.handle))
        }
        var byUser: [String: [Int]] = [:]
        for (local, identity) in identities.enumerated() {
            if let user = identity.user { byUser[user, default: []].append(local) }
        }
        for locals in byUser.values where locals.count > 1 {
            for local in locals { userDevices[local] = locals }
        }
    }

    /// The devices of `local`'s user (itself alone when its user has one device).
    func devicesOfUser(_ local: Int) -> [Int] { userDevices[local] ?? [local] }

    /// Whether `local` stands for its user in the idle pool: its user's first device (every device without users).
    func isUserLead(_ local: Int) -> Bool { userDevices[local].map { $0[0] == local } ?? true }

    var count: Int { devices.count }
    var idleCount: Int { idle.count - idleHead }

    /// Read in place: a field read such as `devices[local].manager.check(…)` through a copying getter copied the
    /// whole device, its conversation manager's tables retained and released, at several reads per event.
    ///
    /// A debug build reads by address (`unsafeAddress`: the element in `devices`' storage, which nothing can change
    /// during the read access), not by a `_read` coroutine: at -Onone (Swift 6.3) the coroutine yielded a copy of
    /// the device in its heap frame, and code reading a large field of it (`.manager`) went on using the yielded
    /// address after the coroutine had ended and freed that frame: reads of freed memory (ASan) and a release of
    /// whatever the heap had put there since, the websocket scenario's signal 11 in `outlined destroy of
    /// ConversationManager` under `judgeVoIP` (docs/ARCHITECTURE.md, known issues, 2026-12-07). A release build
    /// keeps `_read` (optimized, it yields the element in place; 0 crashes in 15 runs, and none with jemalloc's
    /// `junk:free`): there `unsafeAddress` crashed the compiler (its ownership verifier, in
    /// `FlowInterpreter.endedAlready`), and release code stays as measured.
    #if DEBUG
    subscript(local: Int) -> Device {
        unsafeAddress {
            precondition(local >= 0 && local < devices.count, "device \(local) of \(devices.count)")
            return devices.withUnsafeBufferPointer { UnsafePointer($0.baseAddress! + local) }
        }
        _modify { yield &devices[local] }
    }
    #else
    subscript(local: Int) -> Device {
        _read { yield devices[local] }
        _modify { yield &devices[local] }
    }
    #endif

    // MARK: - Idle devices

    /// A device registered; a user goes idle once all its devices have (by its first device).
    mutating func registered(_ local: Int) {
        devices[local].registered = true
        guard let mine = userDevices[local] else { return idle.append(local) }
        if mine.allSatisfy({ devices[$0].registered }) { idle.append(mine[0]) }
    }

    /// Calls take idle devices in index order, not in the order registrations finished, so the same seed puts
    /// the same calls on the same devices.
    mutating func sortIdle() { idle.sort() }

    /// The longest-idle device (a FIFO, so load spreads over every device). Call only when one is idle.
    mutating func takeIdle() -> Int {
        let local = idle[idleHead]
        idleHead += 1
        if idleHead > 4096, idleHead * 2 > idle.count {
            idle.removeFirst(idleHead)
            idleHead = 0
        }
        return local
    }

    /// Takes `local` out of the idle pool (a redial after a drop keeps the dropped call's devices for itself).
    mutating func reserve(_ local: Int) {
        guard let i = idle[idleHead...].lastIndex(of: local) else { return }
        idle.remove(at: i)
    }

    /// Whether `local` is free for a new call it was not given by the idle pool (a redial keeping the dropped
    /// call's devices): in no call, its own or a waiting one.
    func isFree(_ local: Int) -> Bool {
        devices[local].callID == nil && devices[local].waitingCall == nil
    }

    /// The device's call is over: it forgets the call's conversations and waits for the next one. `remote`: the
    /// other side as the call itself knew it, listed in Recents for a conversation whose view names nobody (a
    /// view of an ended call lists no member, yet Recents shows whom it was with).
    mutating func release(_ local: Int, remote: Handle? = nil) {
        devices[local].callID = nil
        endCall(local, conversations: nil, remote: remote)
        // A user's other devices go back with it (their call released them too): only its first stands idle.
        if isUserLead(local) { idle.append(local) }
    }

    /// Call `ending` is over on `local`, which takes part in another call too (`Device.waitingCall`): the device
    /// forgets `ending`'s conversations (as `release` does: to Recents, notes dropped) and stays in the other
    /// call, which is now its call. False when the device is in no other call (then it is released).
    mutating func handOver(_ local: Int, ending: Int, conversations: [String], remote: Handle? = nil) -> Bool {
        guard let waiting = devices[local].waitingCall else { return false }
        if devices[local].callID == ending { devices[local].callID = waiting }
        devices[local].waitingCall = nil
        endCall(local, conversations: Set(conversations), remote: remote)
        return true
    }

    /// What the end of a call does to its device, whether it goes idle (`release`) or stays in its other call
    /// (`handOver`): the call's conversations go to Recents, then the device forgets them and what it noted of
    /// them (report times, push fields, lost versions). `conversations` nil: every one (the device is in no
    /// other call).
    private mutating func endCall(_ local: Int, conversations: Set<String>?, remote: Handle?) {
        remember(local, only: conversations, remote: remote)
        guard let conversations else {
            devices[local].manager.forgetAll()
            devices[local].reportedAt.removeAll()
            devices[local].pushSentAt.removeAll()
            devices[local].pushCaller.removeAll()
            devices[local].lostVersions.removeAll()
            return
        }
        for uuid in conversations {
            devices[local].manager.forget(uuid)
            devices[local].reportedAt[uuid] = nil
            devices[local].pushSentAt[uuid] = nil
            devices[local].pushCaller[uuid] = nil
            devices[local].lostVersions[uuid] = nil
        }
    }

    /// An injected fault kept `version` of conversation `uuid` from `local` for good (`Device.lostVersions`).
    mutating func lost(_ uuid: String, version: Int, on local: Int) {
        devices[local].lostVersions[uuid] = max(version, devices[local].lostVersions[uuid] ?? version)
    }

    /// How many conversations of earlier calls a device remembers (Recents).
    static let recentsKept = 16

    /// The device's conversations (those in `only`, when given) go to its Recents, as LiveCommunicationKit lists
    /// them after they end.
    private mutating func remember(_ local: Int, only: Set<String>?, remote: Handle?) {
        // A call's device holds one conversation nearly always: it is read where it lies, not sorted into a new
        // array (and not copied: a `let` of the manager retained every table of it, `conversations.first` every
        // field of the conversation, issue 33).
        if devices[local].manager.conversations.count == 1 {
            let i = 0
            let uuid = devices[local].manager.conversations.keys[i]
            if only?.contains(uuid) ?? true {
                let first = devices[local].manager.conversations.values[i].members.first
                devices[local].recents.append(RecentConversation(uuid: uuid, remote: first ?? remote))
            }
        } else {
            let manager = devices[local].manager
            for (uuid, conversation) in manager.conversations.sorted(by: { $0.key < $1.key })
            where only?.contains(uuid) ?? true {
                devices[local].recents.append(
                    RecentConversation(uuid: uuid, remote: conversation.members.first ?? remote))
            }
        }
        if !devices[local].manager.mergedAway.isEmpty {
            let manager = devices[local].manager
            for uuid in manager.mergedAway.sorted()
            where manager.conversations.index(forKey: uuid) == nil && only?.contains(uuid) ?? true {
                devices[local].recents.append(RecentConversation(uuid: uuid, remote: nil))
            }
        }
        let excess = devices[local].recents.count - Self.recentsKept
        if excess > 0 { devices[local].recents.removeFirst(excess) }
    }

    // MARK: - Pushes a reorder fault holds

    mutating func hold(_ push: APNsPush, for local: Int) -> UInt64 {
        nextHeldSerial += 1
        devices[local].held.append((nextHeldSerial, push))
        return nextHeldSerial
    }

    mutating func takeAllHeld(_ local: Int) -> [APNsPush] {
        let held = devices[local].held.map(\.push)
        devices[local].held.removeAll()
        return held
    }

    mutating func takeHeld(_ local: Int, serial: UInt64) -> APNsPush? {
        guard let i = devices[local].held.firstIndex(where: { $0.serial == serial }) else { return nil }
        return devices[local].held.remove(at: i).push
    }

    // MARK: - Observations

    /// Notes a delivered push; false when a push the gateway accepted later was delivered first.
    mutating func delivered(acceptedNanos: UInt64, to local: Int) -> Bool {
        if acceptedNanos < devices[local].lastDeliveredAccepted { return false }
        devices[local].lastDeliveredAccepted = acceptedNanos
        return true
    }

    /// A VoIP push reported after the deadline. Returns true when this miss is the one after which the device
    /// gets no more VoIP pushes.
    mutating func missedDeadline(_ local: Int, blockAfter: Int) -> Bool {
        devices[local].deadlineMisses += 1
        return devices[local].deadlineMisses == blockAfter
    }

    /// The app reports an incoming conversation from a VoIP push (PushKit's rule: always). Returns the refusal
    /// when it is over the device's limits.
    /// The conversation's capabilities are the push's when it names them, else the device's own (an LCK app
    /// sets them in its `Conversation.Update`): never an empty set by accident.
    mutating func reportIncoming(_ local: Int, payload: PushPayload, uuid: String, now: UInt64)
        -> ConversationManager.Refusal? {
        let capabilities = payload.capabilities.map(Capabilities.init(names:))
            ?? devices[local].manager.configuration.supportedCapabilities
        let refusal = devices[local].manager.reportIncoming(
            uuid: uuid, caller: payload.caller, capabilities: capabilities)
        if let view = payload.view { devices[local].manager.apply(view) }
        devices[local].reportedAt[uuid] = now
        if let sent = payload.sentAt { devices[local].pushSentAt[uuid] = sent }
        if let caller = payload.caller { devices[local].pushCaller[uuid] = caller }
        return refusal
    }

    /// The INVITE of another call `uuid` reaching `local` in a call (call waiting): reported now unless a push
    /// reported it already (`reported`), and whether the report was refused over the device's limits. For an
    /// earlier report the refusal is read off the conversation, which a refusal ends at once: the manager's live
    /// count cannot tell it again (the refused conversation is not in it), and a conversation already ended is
    /// one the device cannot take either.
    mutating func reportWaiting(_ local: Int, payload: PushPayload, uuid: String, now: UInt64)
        -> (reported: Bool, refused: Bool) {
        guard devices[local].reportedAt[uuid] != nil else {
            return (true, reportIncoming(local, payload: payload, uuid: uuid, now: now) != nil)
        }
        return (false, (devices[local].manager.conversations[uuid]?.state ?? .left) == .left)
    }

    /// What a background push did to a device.
    enum BackgroundOutcome: Equatable {
        case badPayload
        /// The merge of a conversation the device had not heard of yet (the push that moved it is in flight).
        case mergedBeforeKnown
        /// About a conversation the device does not have, or the device is in no call.
        case stale
        /// Applied; `outOfOrder` when its view was older than the device's.
        case applied(outOfOrder: Bool)
    }

    /// A background push carries the server's view of a conversation after someone else's action.
    mutating func observeBackground(_ payload: PushPayload?, on local: Int, inCall: Bool)
        -> BackgroundOutcome {
        guard let payload, let uuid = payload.uuid, let event = payload.event else { return .badPayload }
        if event == "merged", inCall, devices[local].manager.conversations.index(forKey: uuid) == nil {
            // The merge of a conversation this device has not heard of yet: an earlier push (the one that moved
            // it there) is still in flight. It is gone for good; the device is connected in `into`.
            devices[local].manager.markMergedAway(uuid)
            let mine = payload.view?.state(of: devices[local].identity.id)
            if let view = payload.view, mine == "joined" || mine == "held",
               devices[local].manager.conversations.index(forKey: view.uuid) == nil,
               !devices[local].manager.mergedAway.contains(view.uuid) {
                devices[local].manager.adopt(view)
            }
            return .mergedBeforeKnown
        }
        // Found by index: `conversations[uuid] != nil` copied the conversation out to compare it.
        guard inCall, devices[local].manager.conversations.index(forKey: uuid) != nil else {
            // Maybe a conversation a merge moves this device into, told before the push that moves it (pushes
            // reorder in flight): kept, so the later, older view it adopts does not hide this change.
            if inCall, let view = payload.view, view.uuid == uuid { devices[local].manager.noteUnknown(view) }
            return .stale
        }
        var outOfOrder = false
        let view = payload.view
        switch event {
        case "merged":
            // Someone merged our conversation into `into`: this one ended, and we are connected in the other.
            devices[local].manager.remoteEnded(uuid, reason: .joinedElsewhere)
            devices[local].manager.markMergedAway(uuid)
            // A view of a conversation already merged away is an older push arriving late: it stays ended.
            if let view, !devices[local].manager.mergedAway.contains(view.uuid) { adoptOrApply(view, on: local) }
        case "split":
            // We were unmerged out of `uuid` into a conversation of our own with the one who did it.
            devices[local].manager.remoteEnded(uuid, reason: .joinedElsewhere)
            if let view { adoptOrApply(view, on: local) }
        default:
            // Another device of the user answered or declined (`users:`): ended so before the view, which shows
            // this device left, would end it as `remoteEnded`.
            if let elsewhere = Self.elsewhereReason(payload.reason) {
                devices[local].manager.remoteEnded(uuid, reason: elsewhere)
            }
            if let view, !devices[local].manager.apply(view) { outOfOrder = true }
            if let names = payload.capabilities {
                devices[local].manager.updateCapabilities(uuid, Capabilities(names: names))
            }
            if event == "joined" && view == nil { devices[local].manager.connected(uuid) }
            if event == "ended" || view?.ended == true {
                devices[local].manager.remoteEnded(uuid, reason: Self.endedReason(payload.reason))
            }
        }
        return .applied(outOfOrder: outOfOrder)
    }

    /// The ended reason a server's word names. Unanswered and failed are LiveCommunicationKit's words for a call
    /// that never connected (a SIP refusal is one of them, never `remoteEnded`); joined and declined elsewhere end
    /// a user's other devices (`users:`); any other reason is the other side's end.
    static func endedReason(_ word: String?) -> EndedReason {
        if let elsewhere = elsewhereReason(word) { return elsewhere }
        return word == "unanswered" ? .unanswered : word == "failed" ? .failed : .remoteEnded
    }

    /// `joinedElsewhere` / `declinedElsewhere` in LiveCommunicationKit's spelling or the scenario's.
    static func elsewhereReason(_ word: String?) -> EndedReason? {
        switch word {
        case "joinedElsewhere", "joined_elsewhere", "answeredElsewhere": return .joinedElsewhere
        case "declinedElsewhere", "declined_elsewhere": return .declinedElsewhere
        default: return nil
        }
    }

    private mutating func adoptOrApply(_ view: ConversationView, on local: Int) {
        if devices[local].manager.conversations.index(forKey: view.uuid) == nil {
            devices[local].manager.adopt(view)
        } else {
            devices[local].manager.apply(view)
        }
    }
}

/// What a flow step reads and changes outside its own call: the worker's devices and its action numbering.
struct FlowContext {
    var devices: DeviceModel
    var actionIDs: ActionIDs

    /// `local`'s app decides on an action (`ConversationManager.check`) where its manager is, reached through
    /// `_modify`: read out of the devices array for the call, the manager was copied whole (its eight tables and
    /// strings retained and released) at every action of every call (issue 33).
    mutating func check(_ local: Int, _ kind: ActionKind, conversation uuid: String?,
                        with other: String? = nil) -> ConversationManager.Refusal? {
        Self.check(&devices[local].manager, kind, uuid, other)
    }

    private static func check(_ manager: inout ConversationManager, _ kind: ActionKind, _ uuid: String?,
                              _ other: String?) -> ConversationManager.Refusal? {
        manager.check(kind, conversation: uuid, with: other)
    }
}
