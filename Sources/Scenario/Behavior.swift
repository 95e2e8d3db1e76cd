import Quantities

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
    /// `redial_after_drop`: callers of calls an outage dropped redial from Recents (a redial storm); nil: nobody.
    public var redialAfterDrop: RedialAfterDrop?

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

/// `behavior.redial_after_drop: { delay: <distribution>, share: 80% }`: after a call drops (it failed once its
/// conversation existed, as when the target is killed mid-call), `share` of its callers redial the callee from
/// Recents after a seeded `delay`, as a new call of the same two devices (the built-in flow `redial-from-recents`).
public struct RedialAfterDrop: Sendable, Equatable {
    public var delay: Distribution
    /// The fraction of dropped calls whose caller redials, 0...1.
    public var share: Double

    public init(delay: Distribution, share: Double = 1) {
        self.delay = delay
        self.share = share
    }
}
