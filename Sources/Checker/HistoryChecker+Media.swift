/// The media rules (issue 34, docs/CHECKER.md), judged on `media` lines against the devices' SIP dialogs at that
/// point of the history. The seed's `activeRemoteMembers` "includes only those with media actively flowing":
///
/// - `joined-member-sends-media`: a device whose dialog is confirmed (not held by it), its peer's not held nor
///   ended, heard nothing from the peer for the one-way threshold (`silent`): its conversation shows a member
///   joined from whom no audio arrives.
/// - `held-member-sends-no-media`: a device that put the call on hold (its dialog `held`, `a=sendonly`) kept
///   hearing the peer past the threshold (`flowing_while_held`): the held member goes on sending.
///
/// A finding on a call an injected media fault touched is reported apart (`FaultAttribution`, by the line's call).
extension CheckState {
    mutating func media(_ m: MediaLine, at i: Int) {
        guard let call = sipCall(m.conversation),
              let own = call.parties.first(where: { $0.device == m.device }) else { return }
        let peers = call.parties.filter { $0.device != m.device }
        switch m.finding {
        case .silent:
            guard own.state == .confirmed,
                  !peers.contains(where: { $0.state == .held || $0.state == .terminated }) else { return }
            let who = peers.map(\.device).joined(separator: ", ")
            report(.joinedMemberSendsMedia, conversations: [m.conversation], ops: [],
                   devices: [m.device] + peers.map(\.device),
                   "\(m.device)'s call \(m.conversation) is connected (dialog confirmed, line \(line(own.index))) "
                   + "with \(who.isEmpty ? "its peer" : who) joined, but no audio arrived from it within the one-way "
                   + "threshold (line \(line(i)))", events: [own.index, i])
        case .flowingWhileHeld:
            guard own.state == .held else { return }
            report(.heldMemberSendsNoMedia, conversations: [m.conversation], ops: [],
                   devices: [m.device] + peers.map(\.device),
                   "\(m.device) put call \(m.conversation) on hold (line \(line(own.index))) but audio from the held "
                   + "member kept arriving past the one-way threshold (line \(line(i)))", events: [own.index, i])
        }
    }
}
