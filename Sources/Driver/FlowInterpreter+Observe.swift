import CallModel

/// The observation seam: what a device learns about its conversations besides the answers to its own requests.
/// A background push (`deviceChanged`), a polled view (`observed`) and, later, a WebSocket event all end here:
/// the device's manager folds the news in, and a wait it satisfies is over. Flows wait on observations, never
/// on a channel.
extension FlowInterpreter {
    /// A device of this call observed the server's view of one of its conversations (a poll's answer; nil when
    /// the poll could not be read).
    mutating func observed(_ view: ConversationView?, on local: Int, now: UInt64,
                           _ ctx: inout FlowContext) -> [FlowEffect] {
        if let view, ctx.devices[local].manager.conversations.index(forKey: view.uuid) != nil {
            known.saw(view)
            ctx.devices[local].manager.apply(view)
        }
        return deviceChanged(local, now: now, &ctx)
    }

    /// While the flow waits on something only a poll can show (connected, a remote end, a member's arrival), it
    /// polls after a jittered interval (±50 %, the call's seeded stream, so a seed repeats its polls).
    mutating func armPoll(now: UInt64) {
        guard let poll = config.pollNanos else { return }
        let jitter = 0.5 + script.rng.nextUnit()
        emit(.arm(.poll(token: waitToken), at: now + UInt64(Double(poll) * jitter)))
    }

    /// A poll timer: polls if the wait it was armed for still holds, and arms the next.
    mutating func pollDue(token: UInt64, now: UInt64) {
        guard token == waitToken else { return }
        switch waiting {
        case .end(let local, let uuid), .connected(let local, let uuid), .member(let local, let uuid, _):
            emit(.poll(device: local, conversation: uuid))
            armPoll(now: now)
        default:
            break
        }
    }

    /// Polling devices read each conversation once more for its final view, as an app does when a call is over.
    mutating func finalPoll(_ view: ConversationView, _ ctx: inout FlowContext) {
        guard config.pollNanos != nil else { return }
        known.saw(view)
        for local in devices() where ctx.devices[local].manager.conversations.index(forKey: view.uuid) != nil {
            ctx.devices[local].manager.apply(view)
        }
    }
}
