import Determinism

// MARK: - Stages

/// A checked toxic ready to be put on connections: its spec and the configured value.
struct BuiltToxic: Sendable {
    var spec: ToxicSpec
    var toxic: any Toxic

    /// `decided`: the connection's decision for this toxic, when the loop made it (a ramped toxicity); nil
    /// decides from the seed at the spec's toxicity.
    func makeStage(flow: ToxicDirection, connection: UInt64, seed: UInt64, now: UInt64,
                   decided: Bool? = nil) -> any PipelineStage {
        let active = decided ?? ToxicDecision.applies(
            seed: seed, connection: connection, toxic: spec.name, toxicity: spec.toxicity)
        let random = SeededRandom(keys: seed, connection, SeededRandom.stableHash(spec.name),
                                  flow == .upstream ? 0x75 : 0x64)
        return Self.stage(toxic, spec: spec, active: active, flow: flow, connection: connection,
                          random: random, now: now)
    }

    private static func stage<T: Toxic>(
        _ toxic: T, spec: ToxicSpec, active: Bool, flow: ToxicDirection, connection: UInt64,
        random: SeededRandom, now: UInt64
    ) -> any PipelineStage {
        ToxicStage(toxic: toxic, spec: spec, active: active, flow: flow, connection: connection,
                   random: random, now: now)
    }
}

/// One toxic on one direction of one connection, with the items it has let through but not yet released.
protocol PipelineStage: AnyObject {
    var spec: ToxicSpec { get }
    var active: Bool { get }
    var pendingBytes: Int { get }
    var resetRequested: Bool { get }
    /// The earliest time something in this stage is due (an output or a wake-up).
    var nextDeadline: UInt64? { get }
    func receive(_ event: ToxicEvent, now: UInt64)
    /// Queues a close from an earlier stage behind what this stage holds, without the toxic seeing it.
    func passClose(at time: UInt64)
    func fireWakeIfDue(now: UInt64)
    func popDue(now: UInt64) -> (at: UInt64, emission: Emission)?
    /// Whether it holds released-but-undelivered items (wake-ups do not count).
    var isHoldingOutput: Bool { get }
    /// Everything not yet released, for flushing a stage that `setToxics` removed.
    func drain() -> [(at: UInt64, emission: Emission)]
    /// Counter changes since the last call: bytes dropped, closes.
    func harvest() -> (dropped: Int, closes: Int)
}

final class ToxicStage<T: Toxic>: PipelineStage {
    let toxic: T
    let spec: ToxicSpec
    let active: Bool
    var stub: ToxicStub<T.State>

    init(toxic: T, spec: ToxicSpec, active: Bool, flow: ToxicDirection, connection: UInt64,
         random: SeededRandom, now: UInt64) {
        self.toxic = toxic
        self.spec = spec
        self.active = active
        stub = ToxicStub(state: toxic.makeState(), now: now, random: random, flow: flow, connection: connection)
        receive(.start, now: now)
    }

    var pendingBytes: Int { stub.pendingBytes }
    var isHoldingOutput: Bool { !stub.outputs.isEmpty }
    var resetRequested: Bool { stub.resetRequested }

    var nextDeadline: UInt64? {
        switch (stub.outputs.first?.at, stub.wakeAt) {
        case let (a?, b?): return min(a, b)
        case let (a, b): return a ?? b
        }
    }

    func receive(_ event: ToxicEvent, now: UInt64) {
        stub.now = max(stub.now, now)
        if active { toxic.pipe(event, stub: &stub) } else { stub.pass(event) }
    }

    func passClose(at time: UInt64) {
        stub.now = max(stub.now, time)
        stub.closeConnection()
        stub.closes -= 1  // counted by the stage that closed, not by each it passes through
    }

    func fireWakeIfDue(now: UInt64) {
        guard let due = stub.wakeAt, due <= now else { return }
        stub.wakeAt = nil
        receive(.wake, now: due)
    }

    func popDue(now: UInt64) -> (at: UInt64, emission: Emission)? {
        guard let head = stub.outputs.first, head.at <= now else { return nil }
        _ = stub.outputs.popFirst()
        if case .data(let bytes) = head.emission { stub.pendingBytes -= bytes.count }
        return head
    }

    func drain() -> [(at: UInt64, emission: Emission)] {
        stub.pendingBytes = 0
        stub.wakeAt = nil
        return stub.outputs.removeAll()
    }

    func harvest() -> (dropped: Int, closes: Int) {
        defer { stub.bytesDropped = 0; stub.closes = 0 }
        return (stub.bytesDropped, stub.closes)
    }
}

// MARK: - Pipeline

/// The chain of toxics on one direction of one connection, in spec order, ending in `output`: what may be
/// written to the receiving socket now. No I/O: the connection feeds it and drains `output`, so it can be
/// driven in virtual time.
final class Pipeline {
    let flow: ToxicDirection
    let connection: UInt64
    private(set) var stages: [any PipelineStage] = []
    /// Released items, oldest first, for the receiving socket.
    var output = FIFO<Emission>()

    init(flow: ToxicDirection, connection: UInt64) {
        self.flow = flow
        self.connection = connection
    }

    var pendingBytes: Int { stages.reduce(0) { $0 + $1.pendingBytes } }
    var resetRequested: Bool { stages.contains { $0.resetRequested } }
    /// The name of the first toxic that asked for a reset, if any did.
    var resetBy: String? { stages.first { $0.resetRequested }?.spec.name }
    /// Nothing held in a toxic and nothing released but not yet taken.
    var isIdle: Bool { output.isEmpty && !stages.contains { $0.isHoldingOutput } }
    var nextDeadline: UInt64? { stages.compactMap(\.nextDeadline).min() }

    /// Feeds what the sender wrote (`.data` or `.end`) into the first toxic, then releases what is due.
    func push(_ event: ToxicEvent, now: UInt64) {
        if let first = stages.first {
            first.receive(event, now: now)
        } else {
            switch event {
            case .data(let bytes): output.append(.data(bytes))
            case .end: output.append(.end)
            case .start, .wake: break
            }
        }
        advance(now: now)
    }

    /// Moves every item due by `now` along the chain; each toxic sees an item at the time it was due.
    func advance(now: UInt64) {
        for index in stages.indices {
            stages[index].fireWakeIfDue(now: now)
            while let item = stages[index].popDue(now: now) { deliver(item, after: index) }
        }
    }

    /// Replaces the chain with `toxics` (those covering this flow, in order). Stages whose spec is unchanged
    /// keep their state; removed ones hand what they hold to the next stage at once, in order.
    func reconfigure(_ toxics: [BuiltToxic], seed: UInt64, now: UInt64, decided: [String: Bool] = [:]) {
        let wanted = toxics.filter { $0.spec.direction.covers(flow) }
        let keep = Set(stages.indices.filter { i in wanted.contains { $0.spec == stages[i].spec } })
        for index in stages.indices where !keep.contains(index) {
            for item in stages[index].drain() { deliver((max(item.at, now), item.emission), after: index) }
        }
        var next: [any PipelineStage] = []
        for built in wanted {
            if let old = stages.enumerated().first(where: { keep.contains($0.offset) && $0.element.spec == built.spec }) {
                next.append(old.element)
            } else {
                next.append(built.makeStage(flow: flow, connection: connection, seed: seed, now: now,
                                            decided: decided[built.spec.name]))
            }
        }
        stages = next
        advance(now: now)
    }

    private func deliver(_ item: (at: UInt64, emission: Emission), after index: Int) {
        let target = index + 1
        guard target < stages.count else {
            output.append(item.emission)
            return
        }
        switch item.emission {
        case .data(let bytes): stages[target].receive(.data(bytes), now: item.at)
        case .end: stages[target].receive(.end, now: item.at)
        case .close:
            // A close is not data a later toxic may hold back or swallow: it passes in order, unchanged.
            stages[target].passClose(at: item.at)
        }
    }
}
