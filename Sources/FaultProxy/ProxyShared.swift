import Locking
import struct Synchronization.Atomic

/// What the public `FaultProxy` and its loop thread share: the toxic list (with a generation the loop polls
/// cheaply), and the statistics and decision log the loop publishes.
final class ProxyShared: Sendable {
    private struct State {
        var toxics: [BuiltToxic] = []
        var stats = ProxyStats()
        var decisions: [ToxicDecisionRecord] = []
    }

    private let state = Mutex(State())
    /// Bumped on every `setToxics`; the loop compares it with the one it applied.
    let generation = Atomic<UInt64>(0)
    let decisionLogLimit: Int

    init(decisionLogLimit: Int) { self.decisionLogLimit = decisionLogLimit }

    func setToxics(_ toxics: [BuiltToxic]) {
        state.withLock { $0.toxics = toxics }
        generation.add(1, ordering: .releasing)
    }

    func toxics() -> (generation: UInt64, toxics: [BuiltToxic]) {
        state.withLock { (generation.load(ordering: .acquiring), $0.toxics) }
    }

    func publish(_ stats: ProxyStats, decisions: [ToxicDecisionRecord]) {
        state.withLock { s in
            s.stats = stats
            let room = decisionLogLimit - s.decisions.count
            if room > 0 { s.decisions += decisions.prefix(room) }
        }
    }

    var stats: ProxyStats { state.withLock { $0.stats } }
    var decisions: [ToxicDecisionRecord] { state.withLock { $0.decisions } }
}
