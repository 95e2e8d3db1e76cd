/// How simulated people behave once a call rings: the think times a flow samples per call.
public struct Behavior: Sendable, Equatable {
    /// Which side ends an answered call.
    public enum Hangup: String, Sendable, Equatable, CaseIterable {
        case caller, callee, random
    }

    /// Time from ringing to answering.
    public var answerAfter: Distribution
    /// Time from answered to hang-up.
    public var talk: Distribution
    /// Who hangs up.
    public var hangup: Hangup

    public init(
        answerAfter: Distribution = .constant(1_000_000_000),
        talk: Distribution = .constant(5_000_000_000),
        hangup: Hangup = .random
    ) {
        self.answerAfter = answerAfter
        self.talk = talk
        self.hangup = hangup
    }
}
