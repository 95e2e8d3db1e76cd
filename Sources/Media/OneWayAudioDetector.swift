/// Finds one-way audio on one receiving direction of a call: no packet within `thresholdNanos` of the answer
/// (or of a resume), or packets that stop mid-call for longer than it. Knows hold: while this end's direction says
/// nothing should arrive (`sendonly`, `inactive`), silence is expected and never counted; packets that keep
/// arriving then are counted apart (a held member whose media keeps flowing is a finding of its own). Measures
/// answer → first packet and resume → first packet.
///
/// A value: events in (`answered`, `expect`, `packet`, `advance`), findings out; the owner asks `nextDeadline`
/// when to call `advance` next.
public struct OneWayAudioDetector: Sendable, Equatable {
    public static let defaultThresholdNanos: UInt64 = 1_000_000_000

    /// Why a direction was silent.
    public enum Cause: String, Sendable, Equatable {
        /// Nothing arrived within the threshold after the answer.
        case noAudioAfterAnswer = "no_audio_after_answer"
        /// Nothing arrived within the threshold after a resume.
        case noAudioAfterResume = "no_audio_after_resume"
        /// Packets had flowed, then stopped for longer than the threshold.
        case stoppedMidCall = "stopped_mid_call"
    }

    /// One stretch of one-way audio: silent from `since` (the answer, the resume or the last packet), found at
    /// `foundAt` (since + threshold), over at `endedAt` (a packet, a hold, or the stream's stop) if it ended.
    public struct Episode: Sendable, Equatable {
        public var cause: Cause
        public var since: UInt64
        public var foundAt: UInt64
        public var endedAt: UInt64?

        public init(cause: Cause, since: UInt64, foundAt: UInt64, endedAt: UInt64? = nil) {
            self.cause = cause
            self.since = since
            self.foundAt = foundAt
            self.endedAt = endedAt
        }
    }

    /// What a step found.
    public enum Finding: Sendable, Equatable {
        case firstAudio(afterAnswerNanos: UInt64)
        case resumedAudio(afterResumeNanos: UInt64)
        case oneWayBegan(Episode)
        case oneWayEnded(Episode)
        /// A packet arrived more than the threshold after this end stopped expecting any (it holds): the held
        /// member still sends. Once per hold, at the first such packet; `packetsWhileNotExpected` counts them all.
        case heardWhileNotExpected(sinceHoldNanos: UInt64)
    }

    private enum Phase: Sendable, Equatable {
        case beforeAnswer
        /// Audio expected; none since `since` (the answer or a resume).
        case awaiting(since: UInt64, resume: Bool)
        case flowing(last: UInt64)
        /// An episode is open (its index in `episodes`).
        case silent(episode: Int)
        /// Nothing expected since `since` (this end is on hold or inactive).
        case notExpected(since: UInt64)
        case stopped
    }

    public let thresholdNanos: UInt64
    private var phase = Phase.beforeAnswer
    public private(set) var answerToAudioNanos: UInt64?
    /// Resume → first packet, one per resume that saw audio.
    public private(set) var resumeToAudioNanos: [UInt64] = []
    public private(set) var episodes: [Episode] = []
    /// Packets that arrived more than the threshold after this end stopped expecting any (hold).
    public private(set) var packetsWhileNotExpected = 0
    /// The hold (its `since`) already reported by `heardWhileNotExpected`.
    private var reportedHold: UInt64?
    /// This end's offer in flight receives (a resume re-INVITE sent, its answer not yet here): `offered`.
    private var offerReceives = false

    public init(thresholdNanos: UInt64 = OneWayAudioDetector.defaultThresholdNanos) {
        self.thresholdNanos = max(1, thresholdNanos)
    }

    /// Whether a one-way episode is open now.
    public var isOneWay: Bool {
        if case .silent = phase { return true }
        return false
    }

    /// The call was answered at `now`; `expecting` is whether this end's direction receives.
    public mutating func answered(at now: UInt64, expecting: Bool) {
        guard phase == .beforeAnswer else { return }
        phase = expecting ? .awaiting(since: now, resume: false) : .notExpected(since: now)
    }

    /// This end's direction changed at `now` (a re-INVITE for hold or resume); returns an episode a hold ended.
    public mutating func expect(_ expecting: Bool, at now: UInt64) -> Finding? {
        offerReceives = false
        switch phase {
        case .beforeAnswer, .stopped:
            return nil
        case .notExpected:
            if expecting { phase = .awaiting(since: now, resume: true) }
            return nil
        case .awaiting, .flowing:
            if !expecting { phase = .notExpected(since: now) }
            return nil
        case .silent(let index):
            guard !expecting else { return nil }
            phase = .notExpected(since: now)
            return close(index, at: now)
        }
    }

    /// This end sent an offer (a re-INVITE) whose direction `receiving`: RFC 3264 §5.1 has the offerer ready to
    /// receive what its offer asks for once it is sent, and the answerer may send with its 2xx. Through a proxy that
    /// audio can overtake the 2xx, so until the answer (`expect`) packets after a hold are the resume's, not a held
    /// member's; the resume's audio is still measured from the answer.
    public mutating func offered(receiving: Bool) {
        offerReceives = receiving
    }

    /// A packet arrived at `now`.
    public mutating func packet(at now: UInt64) -> Finding? {
        switch phase {
        case .beforeAnswer, .stopped:
            return nil
        case .awaiting(let since, let resume):
            phase = .flowing(last: now)
            if resume {
                resumeToAudioNanos.append(now &- since)
                return .resumedAudio(afterResumeNanos: now &- since)
            }
            answerToAudioNanos = now &- since
            return .firstAudio(afterAnswerNanos: now &- since)
        case .flowing:
            phase = .flowing(last: now)
            return nil
        case .silent(let index):
            let cause = episodes[index].cause
            phase = .flowing(last: now)
            let ended = close(index, at: now)
            if cause == .noAudioAfterAnswer { answerToAudioNanos = now &- episodes[index].since }
            if cause == .noAudioAfterResume { resumeToAudioNanos.append(now &- episodes[index].since) }
            return ended
        case .notExpected(let since):
            guard !offerReceives, now &- since > thresholdNanos else { return nil }
            packetsWhileNotExpected += 1
            guard reportedHold != since else { return nil }
            reportedHold = since
            return .heardWhileNotExpected(sinceHoldNanos: now &- since)
        }
    }

    /// When `advance` may find something: the threshold after the answer, the resume or the last packet.
    public var nextDeadline: UInt64? {
        switch phase {
        case .awaiting(let since, _): return since &+ thresholdNanos
        case .flowing(let last): return last &+ thresholdNanos
        default: return nil
        }
    }

    /// Time passed to `now`: opens an episode when the silence has lasted longer than the threshold.
    public mutating func advance(to now: UInt64) -> Finding? {
        guard let due = nextDeadline, now >= due else { return nil }
        let episode: Episode
        switch phase {
        case .awaiting(let since, let resume):
            episode = Episode(cause: resume ? .noAudioAfterResume : .noAudioAfterAnswer, since: since, foundAt: due)
        case .flowing(let last):
            episode = Episode(cause: .stoppedMidCall, since: last, foundAt: due)
        default:
            return nil
        }
        episodes.append(episode)
        phase = .silent(episode: episodes.count - 1)
        return .oneWayBegan(episode)
    }

    /// The stream stopped (the call ended) at `now`: an open episode ends there; nothing is found after.
    public mutating func stop(at now: UInt64) -> Finding? {
        defer { phase = .stopped }
        if case .silent(let index) = phase { return close(index, at: now) }
        return nil
    }

    private mutating func close(_ index: Int, at now: UInt64) -> Finding {
        episodes[index].endedAt = now
        return .oneWayEnded(episodes[index])
    }
}
