import CallModel
import Metrics
import Scenario

/// PushKit's rule on the device side: which VoIP pushes carry a new call (`VoIPPushJudge`), and what the app
/// does with one that must be reported but carries none (`device.on_voip_without_call`).
extension DeviceModel {
    /// What the app did with a VoIP push that carried no new call.
    struct VoIPAnswer: Equatable {
        /// Counters to add, in order.
        var counters: [Metric] = []
        /// The system terminated the app (its call, if any, fails as `app_terminated`).
        var terminated = false
    }

    /// A push-path fault delayed, held or duplicated a VoIP push on its way to `local`: each of its `copies`
    /// is the fault's doing, not the server's, if it carries no new call.
    mutating func markFaulted(_ apnsID: String, copies: Int, on local: Int) {
        self[local].faultedPushes[apnsID, default: 0] += max(1, copies)
    }

    /// Judges a VoIP push the app is handling now (`ageNanos` since APNs accepted it; `foreground` when the app
    /// has its UI up). Takes the push's fault mark.
    mutating func judgeVoIP(_ payload: PushPayload?, apnsID: String, on local: Int, ageNanos: UInt64,
                            foreground: Bool, judge: VoIPPushJudge) -> VoIPPushJudge.Outcome {
        var faulted = false
        if let copies = self[local].faultedPushes[apnsID] {
            faulted = true
            self[local].faultedPushes[apnsID] = copies > 1 ? copies - 1 : nil
        }
        // Each part read in place: `let device = self[local]` copied and destroyed the whole device (~1,500
        // instructions a VoIP push, callgrind of the wake call).
        return judge.judge(payload, manager: self[local].manager, recents: self[local].recents,
                           at: .init(foreground: foreground, ageNanos: ageNanos, faulted: faulted))
    }

    /// The app's answer to a push judged without a new call: nothing when it need not report; otherwise it
    /// reports and ends a conversation at once, or returns without reporting and is terminated (counted toward
    /// `blockAfter` like a missed deadline).
    mutating func answerWithoutCall(_ outcome: VoIPPushJudge.Outcome, on local: Int, policy: VoIPWithoutCall,
                                    blockAfter: Int) -> VoIPAnswer {
        var answer = VoIPAnswer(counters: VoIPPushJudge.counters(outcome))
        guard case .withoutCall = outcome else { return answer }
        switch policy {
        case .reportAndEnd:
            answer.counters.append(.pushesVoIPReportedAndEnded)
        case .terminate:
            answer.terminated = true
            // The system ends a terminated app's conversations (a ringing one disappears from the screen).
            for (uuid, c) in self[local].manager.conversations where c.state != .left {
                self[local].manager.remoteEnded(uuid, reason: .failed)
            }
            answer.counters.append(.devicesTerminatedVoIPWithoutCall)
            if missedDeadline(local, blockAfter: blockAfter) { answer.counters.append(.devicesVoIPBlocked) }
        }
        return answer
    }
}
