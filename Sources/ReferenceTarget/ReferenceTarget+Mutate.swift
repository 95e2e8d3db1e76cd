import Foundation
import HTTPServer
import TextEscaping

/// The reference target's conversation changes, made under its one lock: a member action (`mutate`), merge and
/// unmerge, and the pushes each change owes the other members.
extension ReferenceTarget {
    /// One push to send once the lock is released: who, which conversation it speaks of, what happened.
    struct Notice {
        let token: String
        /// The push's JSON, as bytes: the push client sends bytes, so no String is made of it on the way.
        let payload: [UInt8]
        /// The same change as the event channel tells it.
        let event: EventChannel.Event
        /// Sent as a VoIP push (only the `elsewhere-voip-cancel` bug does, for a user's other devices).
        var voip = false
    }

    /// `view`: `conversation.json()` when the caller already has it (one change tells every member the same
    /// view: built once per change, not once per member, ~10,000 instructions each).
    func notice(_ token: String?, to recipient: String, uuid: String, event: String, by device: String,
                about conversation: ServerConversation, reason: String? = nil, into: String? = nil,
                view given: [UInt8]? = nil) -> Notice? {
        guard let token else { return nil }
        let view = given ?? conversation.jsonBytes()
        // Written into memory sized first (`ViewWriter`): appended to an array piece by piece it cost ~2,000
        // instructions a notice beyond the view (issue 33); the String interpolations before that ~7,000.
        var bound = 160 &+ ViewWriter.bound(uuid) &+ event.utf8.count &+ ViewWriter.bound(device) &+ view.count
        if let reason { bound &+= ViewWriter.bound(reason) }
        if let into { bound &+= ViewWriter.bound(into) }
        let payload = [UInt8](unsafeUninitializedCapacity: bound) { buffer, written in
            var w = ViewWriter(buffer.baseAddress!)
            w.raw("{\"aps\":{\"content-available\":1},\"uuid\":")
            w.quoted(uuid)
            w.raw(",\"event\":\"")
            w.verbatim(event)
            w.raw("\",\"device\":")
            w.quoted(device)
            w.raw(",\"version\":")
            w.integer(conversation.version)
            w.raw(conversation.ended ? ",\"ended\":true," : ",\"ended\":false,")
            if let reason {
                w.raw("\"reason\":")
                w.quoted(reason)
                w.raw(",")
            }
            if let into {
                w.raw("\"into\":")
                w.quoted(into)
                w.raw(",")
            }
            w.raw("\"conversation\":")
            w.verbatim(view)
            w.raw("}")
            written = w.count
        }
        return Notice(token: token, payload: payload,
                      event: EventChannel.Event(device: recipient, event: event, uuid: uuid, into: into, view: view,
                                                reason: reason.flatMap { $0.hasSuffix("Elsewhere") ? $0 : nil }))
    }

    /// One member action under the lock: the change, its version bump and the pushes it owes the others.
    func mutate(_ s: inout State, _ id: String, _ body: MemberBody, _ action: String)
        -> Result<([UInt8], [Notice]), Refusal> {
        guard var conversation = s.conversations[id] else {
            return .failure(refusal(404, "unknown conversation \(id)"))
        }
        let ignoresEnded = action == "merge" && bugs.contains(.mergeIgnoresEnded)
        if conversation.ended && !ignoresEnded {
            return .failure(refusal(409, "conversation \(id) has ended", code: "ended"))
        }
        if conversation.ended {
            // The bug: the ended conversation comes back to life with the requester in it.
            conversation.ended = false
            conversation.endedReason = nil
        }
        guard let index = conversation.index(of: body.device) else {
            return .failure(refusal(403, "device \(body.device) is not a member of \(id)"))
        }
        let before = conversation.members
        let mine = conversation.members[index].state
        var notices: [Notice] = []
        var elsewhere: [String] = []
        switch action {
        case "join":
            guard mine == .ringing else { return .failure(refusal(409, "member is \(mine.rawValue)", code: "state")) }
            conversation.members[index].state = .joined
            elsewhere = stopOtherDevices(&conversation, of: index)
        case "end":
            guard mine != .left else { return .failure(refusal(409, "member already left", code: "state")) }
            if bugs.contains(.interruptedStaysJoined), body.reason == "interrupted" { break }  // the bug
            conversation.members[index].state = .left
            // A decline (an end while ringing) stops the user's other devices: declinedElsewhere.
            if mine == .ringing { elsewhere = stopOtherDevices(&conversation, of: index) }
            // A conversation lives while two parties are in it (joined, held or still ringing).
            if conversation.parties < 2 { conversation.finish(body.reason ?? "remoteEnded") }
        case "pause":
            guard mine == .joined else { return .failure(refusal(409, "member is \(mine.rawValue)", code: "state")) }
            conversation.members[index].state = .held
        case "resume":
            guard mine == .held else { return .failure(refusal(409, "member is \(mine.rawValue)", code: "state")) }
            conversation.members[index].state = .joined
        case "merge":
            return merge(&s, &conversation, id, body, at: index, ignoresEnded: ignoresEnded)
        case "unmerge":
            return unmerge(&s, &conversation, id, body, at: index)
        default:
            return .failure(refusal(404, "no such conversation action: \(action)"))
        }
        if !(bugs.contains(.versionNotBumped) && (action == "pause" || action == "resume")) {
            conversation.version += 1
        }
        s.conversations[id] = conversation
        let event = conversation.ended ? "ended" : (action == "join" ? "joined" : "updated")
        let reason = conversation.ended ? conversation.endedReason : nil
        let view = conversation.jsonBytes()  // once: the answer and every notice carry the same view
        // Tell every other member who was still in the conversation before this change.
        for member in before where member.device != body.device && member.state != .left
        && !elsewhere.contains(member.device) {
            if let n = notice(s.devices[member.device]?.apnsToken, to: member.device, uuid: id, event: event,
                              by: body.device,
                              about: conversation, reason: reason, view: view) { notices.append(n) }
        }
        notices += elsewhereNotices(s, elsewhere, conversation, by: body.device, joined: action == "join", view: view)
        return .success((view, notices))
    }

    /// `merge`: the other conversation's members move into this one, which the device joins; the other ends.
    private func merge(_ s: inout State, _ conversation: inout ServerConversation, _ id: String, _ body: MemberBody,
                       at index: Int, ignoresEnded: Bool) -> Result<([UInt8], [Notice]), Refusal> {
        let mine = conversation.members[index].state
        let before = conversation.members
        var notices: [Notice] = []
        guard let otherID = body.with, otherID != id, var other = s.conversations[otherID] else {
            return .failure(refusal(400, "merge needs \"with\": another conversation's id"))
        }
        if other.ended && !ignoresEnded {
            return .failure(refusal(409, "conversation \(otherID) has ended", code: "ended"))
        }
        guard ignoresEnded || mine.isConnected, let otherIndex = other.index(of: body.device),
              ignoresEnded || other.members[otherIndex].state.isConnected
        else { return .failure(refusal(409, "merging needs the device connected to both", code: "state")) }
        let moving = other.members.filter { $0.device != body.device && $0.state != .left }
        if conversation.present + moving.count > maxMembers {
            return .failure(refusal(409, "a conversation holds at most \(maxMembers) members", code: "limit"))
        }
        for member in moving where conversation.index(of: member.device) == nil {
            conversation.members.append(member)
        }
        conversation.members[index].state = .joined
        let otherBefore = other.members
        other.finish("merged")
        other.version += 1
        s.conversations[otherID] = other
        conversation.version += 1
        s.conversations[id] = conversation
        let view = conversation.jsonBytes()
        for (member, token) in tokens(s, of: otherBefore, except: body.device) {
            notices.append(notice(token, to: member, uuid: otherID, event: "merged", by: body.device,
                                  about: conversation,
                                  into: id, view: view)!)
        }
        let moved = Set(moving.map(\.device))
        for (member, token) in tokens(s, of: before.filter { !moved.contains($0.device) }, except: body.device) {
            notices.append(notice(token, to: member, uuid: id, event: "updated", by: body.device,
                                  about: conversation, view: view)!)
        }
        return .success((view, notices))
    }

    /// `unmerge`: a member leaves for a conversation of its own with the device; which side the device holds (or
    /// whether it leaves the group) is `unmergePolicy`.
    private func unmerge(_ s: inout State, _ conversation: inout ServerConversation, _ id: String, _ body: MemberBody,
                         at index: Int) -> Result<([UInt8], [Notice]), Refusal> {
        let mine = conversation.members[index].state
        var notices: [Notice] = []
        var extra = ""
        guard let memberID = body.member, memberID != body.device,
              let memberIndex = conversation.index(of: memberID),
              conversation.members[memberIndex].state.isConnected, mine.isConnected else {
            return .failure(refusal(409, "unmerge needs \"member\": another connected member", code: "state"))
        }
        let moved = conversation.members[memberIndex]
        let me = conversation.members[index]
        conversation.members[memberIndex].state = .left
        // Where the device stands afterwards is this server's policy (ServerPolicy.Unmerge).
        switch unmergePolicy {
        case .holdSplit: break
        case .holdGroup: conversation.members[index].state = .held
        case .leaveGroup: conversation.members[index].state = .left
        }
        if conversation.parties < 2 { conversation.finish("remoteEnded") }
        conversation.version += 1
        // The member goes back to a conversation of their own with the device.
        var split = ServerConversation(
            id: UUID().lowercaseText,
            members: [ServerMember(device: me.device, handle: me.handle,
                                   state: unmergePolicy == .holdSplit ? .held : .joined),
                      ServerMember(device: moved.device, handle: moved.handle, state: .joined)],
            video: conversation.video)
        split.capabilities = conversation.capabilities
        s.conversations[split.id] = split
        s.conversations[id] = conversation
        notices += [notice(s.devices[moved.device]?.apnsToken, to: moved.device, uuid: id, event: "split",
                           by: body.device,
                           about: split, into: split.id)].compactMap { $0 }
        let view = conversation.jsonBytes()
        for (member, token) in tokens(s, of: conversation.members, except: body.device) {
            notices.append(notice(token, to: member, uuid: id, event: "updated", by: body.device,
                                  about: conversation, view: view)!)
        }
        extra = ",\"split\":" + split.json()
        return .success((conversation.jsonBytes(extra: extra), notices))
    }

    /// The devices (and their push tokens) still in `members`, but `device`.
    private func tokens(_ s: State, of members: [ServerMember], except device: String)
        -> [(device: String, token: String)] {
        members.filter { $0.device != device && $0.state != .left }
            .compactMap { m in s.devices[m.device].map { (m.device, $0.apnsToken) } }
    }
}
