import Faults
import SIPClient

/// The phone's life over SIP (issue 37). Interruptions, resets and filters need nothing of their own: they are the
/// flow's actions (a re-INVITE holding the media, a BYE, a decline); a filtered INVITE is answered with the app's
/// `device.filtered_status`. A relaunch loses the SIP stack's calls with its process: the device forgets them
/// (their dialog lines end `relaunch`), REGISTERs again, and its agent answers in-dialog requests for them 481.
extension SIPSignaling {
    /// A decline's final status: the app's `filtered_status` (486 or 603) for a filtered call, else 603.
    func declineStatus(_ request: ActionRequest) -> Int {
        request.reason == LifeEvent.filtered.word ? settings.scenario.device.life.filteredStatus : 603
    }

    /// The app on `local` was relaunched: its calls are forgotten and it registers again.
    func relaunched(_ local: Int) {
        guard let agent = agents.agent[local] else { return }
        for (key, _) in legs.entries(of: local) {
            guard let leg = legs.removeValue(forKey: key) else { continue }
            dialogEnded(local, key.callID, leg: leg, reason: "relaunch")
            if let p = settle(key) {
                var answer = ActionAnswer(outcome: .failed(reason: FlowInterpreter.alreadyEnded))
                answer.alreadyEnded = p.request.kind == .end
                tell(p.request, answer)
            }
        }
        agents.registering[local] = Registering(started: now, initial: false, then: nil)
        pool.perform(agent) { agent, now in
            agent.forgetCalls()
            agent.register(now: now)
        }
    }
}
