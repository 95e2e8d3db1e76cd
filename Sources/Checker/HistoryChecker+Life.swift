import CallModel

/// `life-event-takes-effect` (issue 37, docs/CHECKER.md): the actions the phone's life made a device send (the
/// history's step `life.<event>`) take effect at the server. An end the server fulfilled whose answer still shows
/// the device in the conversation (joined, held or ringing) kept it in; a hold fulfilled with the device still
/// `joined` kept it active. What the server answered is its own: a device fault never excuses it.
extension CheckState {
    mutating func checkLifeEvent(_ c: Complete, _ rec: OpRecord, at i: Int) {
        // The view first: a SIP call's answers carry none, and return before the invoke is copied.
        guard let view = c.view, !view.ended, let step = rec.invoke.step, step.hasPrefix("life.") else { return }
        let inv = rec.invoke
        let state = view.memberState(of: inv.device)
        let event = step.dropFirst("life.".count)
        switch inv.kind {
        case .end where state != .left:
            report(.lifeEventTakesEffect, conversations: [view.id], ops: [inv.op], devices: [inv.device],
                   "\(inv.device) ended \(view.id) because of its phone's life (\(event), op \(inv.op)); the server "
                   + "fulfilled the end but still shows it \(state.rawValue) (line \(line(i)))",
                   events: [rec.invokeIndex, i])
        case .pause where state == .joined:
            report(.lifeEventTakesEffect, conversations: [view.id], ops: [inv.op], devices: [inv.device],
                   "\(inv.device) was interrupted and held \(view.id) (op \(inv.op)); the server fulfilled the hold "
                   + "but still shows it joined, active (line \(line(i)))", events: [rec.invokeIndex, i])
        default:
            break
        }
    }
}
