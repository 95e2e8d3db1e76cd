import Determinism
import Media
import Metrics

/// A callee waiting for media both ways: its answer, when its audio session is up (its first packet goes), and
/// whether that and the caller's first packet have come.
struct MediaJoin {
    let answered: UInt64
    var sessionStarted: Bool
    var heard = false
}

/// `device.join_at: media` and `device.audio_session` (docs/MEDIA.md, "When a join is fulfilled"), in the talk's
/// order for an answer (WWDC26 LiveCommunicationKit): the callee reports connecting (its 2xx goes), the system
/// activates the app's audio session, media is set up, then it reports connected and fulfils the join. So the
/// join is fulfilled when media flows both ways from the callee's point of view: its audio session started (it
/// sends) and the caller's first packet arrived, whichever comes last (`media.answer_to_talking`). The two parts
/// are measured apart: the app's (`media.audio_session_start`, the drawn start-up) and the server's (the caller's
/// audio reaching the callee, `media.answer_to_audio.callee`).
///
/// No packet from the caller within `media.one_way_after` fails the join `no_audio` (`media.join_no_audio`): an
/// app that hears nothing once its audio session is up tells its user the call did not connect rather than showing
/// a connected call in silence. The dialog stays up; the flow decides what a failed join does. A call the media
/// share does not carry (or whose stream could not start) joins at the answer, as `join_at: answer`.
///
/// Only the caller-to-callee side waits: the caller's audio session started when it dialled (the system activates
/// it for an outgoing call before the answer), so its stream sends as soon as its 2xx arrives.
extension SIPSignaling {
    /// `device.audio_session` drawn for `call` (seeded by the run's seed and the call, so a replay repeats it) and
    /// recorded; 0 without the option.
    func audioSessionDelay(call: Int) -> UInt64 {
        guard let distribution = spec.audioSession else { return 0 }
        var rng = SeededRandom(keys: settings.seed, UInt64(truncatingIfNeeded: call), Self.audioSessionStream)
        let nanos = distribution.sample(using: &rng)
        books.record(.audioSessionStart, micros: Int64(nanos / 1000), at: now)
        return nanos
    }

    /// Keys `audio_session`'s draws apart from every other stream of the seed ("audio").
    static let audioSessionStream: UInt64 = 0x6175_6469_6F

    /// The callee answered `key` now, its stream sending `sendAfter` later (nil: the call carries no media here).
    /// Without `join_at: media` or `audio_session` nothing is followed (a run without them is unchanged).
    func joinOnMedia(_ key: LegKey, sendAfter: UInt64?) {
        let joinsOnMedia = spec.joinAt == .media
        guard let sendAfter else {
            if joinsOnMedia { fulfil(key, .join) }
            return
        }
        guard joinsOnMedia || spec.audioSession != nil else { return }
        media.joins[key] = MediaJoin(answered: now, sessionStarted: sendAfter == 0)
        if sendAfter > 0 { schedule(.audioSession(local: key.local, callID: key.callID), at: now &+ sendAfter) }
    }

    /// The callee's audio session is up: its first packet goes now.
    func audioSessionUp(_ key: LegKey) {
        guard media.joins[key] != nil else { return }
        media.joins[key]!.sessionStarted = true
        joinIfTalking(key)
    }

    /// The callee heard the caller's first packet.
    func calleeHeardAudio(_ key: LegKey) {
        guard media.joins[key] != nil else { return }
        media.joins[key]!.heard = true
        joinIfTalking(key)
    }

    /// No packet from the caller within the one-way threshold after the callee's answer.
    func calleeHeardNothing(_ key: LegKey) {
        guard media.joins.removeValue(forKey: key) != nil, spec.joinAt == .media,
              pending.read(key, { $0.request.op }) == .join, let p = settle(key) else { return }
        books.count(.mediaJoinNoAudio, at: now)
        answer(p.request, .failed(reason: "no_audio"))
    }

    private func joinIfTalking(_ key: LegKey) {
        guard let join = media.joins[key], join.heard, join.sessionStarted else { return }
        media.joins[key] = nil
        books.record(.answerToTalking, micros: Int64((now &- join.answered) / 1000), at: now)
        if spec.joinAt == .media { fulfil(key, .join) }
    }
}
