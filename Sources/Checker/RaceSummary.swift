/// Where a run's races happened and where the checker's violations fall among them: per offset, per operation
/// pair, and the planned call behind each violation (what `repro-<n>.yaml` re-runs).
///
/// Built from the history's optional invoke fields `call`, `race` and `offset`; a history without them yields no
/// races and no calls, and the checker's verdict does not depend on them.
public struct RaceSummary: Sendable, Codable, Equatable {
    /// One `together` step as fired by one call.
    public struct Race: Sendable, Codable, Equatable {
        public var call: Int
        /// `<flow>/<step>`.
        public var name: String
        public var offset: Int64
        /// The kinds of its actions in the order they were invoked, e.g. `["merge", "end"]`.
        public var kinds: [String]
        /// Each action's outcome by step (`ok`, `fail sip_481`, `open` until it completes).
        public var outcomes: [String: String] = [:]
    }

    /// Races and violations at one race offset: a cell of the report's heat strip, saved in raw/races.json.
    public struct OffsetRow: Sendable, Codable, Equatable {
        public var offsetNanos: Int64
        public var races: Int
        public var violations: Int
        /// Races at this offset whose call broke at least one rule.
        public var racesWithViolations: Int

        public init(offsetNanos: Int64, races: Int, violations: Int, racesWithViolations: Int) {
            self.offsetNanos = offsetNanos
            self.races = races
            self.violations = violations
            self.racesWithViolations = racesWithViolations
        }
    }

    /// Races and violations of one `together` step: a row of the report's pairs table, saved in raw/races.json.
    public struct PairRow: Sendable, Codable, Equatable {
        /// `<flow>/<step>` of the `together` step.
        public var name: String
        /// The operations raced, e.g. `merge vs end`.
        public var label: String
        public var races: Int
        public var violations: Int
        public var racesWithViolations: Int
        public var violationsByRule: [String: Int]
        /// How its races came out, counted: each outcome names every action's step (sorted by name) and outcome,
        /// `open` when it never completed (`callee-answers fail already_ended · caller-cancels ok`), so the count
        /// shows which legal order won how often; nil in a summary written before outcomes were counted.
        public var outcomes: [String: Int]?

        public init(name: String, label: String, races: Int, violations: Int, racesWithViolations: Int,
                    violationsByRule: [String: Int], outcomes: [String: Int]? = nil) {
            self.name = name
            self.label = label
            self.races = races
            self.violations = violations
            self.racesWithViolations = racesWithViolations
            self.violationsByRule = violationsByRule
            self.outcomes = outcomes
        }
    }

    /// Where one violation came from; nil fields when the history does not say.
    public struct Origin: Sendable, Codable, Equatable {
        public var call: Int?
        public var race: String?
        public var offset: Int64?

        public init(call: Int?, race: String?, offset: Int64?) {
            self.call = call
            self.race = race
            self.offset = offset
        }
    }

    /// Races fired (each a set of conflicting operations from one barrier).
    public var races: Int
    public var byOffset: [OffsetRow]
    public var byPair: [PairRow]
    /// One per violation of the report, in its order.
    public var origins: [Origin]

    // limits: three passes (index the history, place each violation, tabulate offsets and pairs) that share the
    // race list and the op maps; split, each part would take and return all of them.
    public init(events: [HistoryEvent], report: CheckReport) {
        var callOfOp: [Int: Int] = [:]
        var callOfConversation: [String: Int] = [:]
        var raceOfOp: [Int: Int] = [:]
        var stepOfOp: [Int: String] = [:]
        var raceIndex: [String: Int] = [:]  // "<call> <name>"
        var races: [Race] = []
        // The call of each op and conversation only places violations: a clean run skips those maps, which were
        // most of this pass's cost at the end of a run.
        let placing = !report.violations.isEmpty
        for event in events {
            // A run without violations reads only the invokes of races and their completes: told first without
            // binding the payload, which copied each invoke and complete (a retain per text, issue 33).
            if !placing {
                switch event.body {
                case .invoke: if !event.body.invokeRaces { continue }
                case .complete: if let op = event.body.completeOp, raceOfOp[op] == nil { continue }
                default: continue
                }
            }
            switch event.body {
            case .invoke(let i):
                guard let call = i.call else { continue }
                if placing {
                    callOfOp[i.op] = call
                    for c in i.touched where callOfConversation[c] == nil { callOfConversation[c] = call }
                }
                guard let name = i.race else { continue }
                let key = "\(call) \(name)"
                let index = raceIndex[key] ?? {
                    races.append(Race(call: call, name: name, offset: i.offset ?? 0, kinds: []))
                    raceIndex[key] = races.count - 1
                    return races.count - 1
                }()
                races[index].kinds.append(i.kind.rawValue)
                raceOfOp[i.op] = index
                stepOfOp[i.op] = i.step ?? i.kind.rawValue
                races[index].outcomes[i.step ?? i.kind.rawValue] = "open"
            case .complete(let c):
                if let race = raceOfOp[c.op], let step = stepOfOp[c.op] {
                    races[race].outcomes[step] = c.outcome.rawValue + (c.reason.map { " " + $0 } ?? "")
                }
                guard placing, let call = callOfOp[c.op] else { continue }
                for id in [c.conversation, c.view?.id, c.split?.id].compactMap({ $0 })
                where callOfConversation[id] == nil {
                    callOfConversation[id] = call
                }
            case .dialog(let d):
                if placing, let call = d.call, callOfConversation[d.conversation] == nil {
                    callOfConversation[d.conversation] = call
                }
            default:
                continue
            }
        }
        var firstRaceOfCall: [Int: Int] = [:]
        for (index, race) in races.enumerated() where firstRaceOfCall[race.call] == nil {
            firstRaceOfCall[race.call] = index
        }
        var origins: [Origin] = []
        var raceOfViolation: [Int?] = []
        for v in report.violations {
            let call = v.ops.lazy.compactMap { callOfOp[$0] }.first
                ?? v.conversations.lazy.compactMap { callOfConversation[$0] }.first
            let race = v.ops.lazy.compactMap { raceOfOp[$0] }.first ?? call.flatMap { firstRaceOfCall[$0] }
            raceOfViolation.append(race)
            origins.append(Origin(call: call, race: race.map { races[$0].name }, offset: race.map { races[$0].offset }))
        }
        self.races = races.count
        self.origins = origins

        var offsets: [Int64: OffsetRow] = [:]
        var pairs: [String: PairRow] = [:]
        var pairOrder: [String] = []
        var labelled: Set<String> = []
        for race in races {
            offsets[race.offset, default: OffsetRow(offsetNanos: race.offset, races: 0, violations: 0,
                                                    racesWithViolations: 0)].races += 1
            if pairs[race.name] == nil {
                pairOrder.append(race.name)
                pairs[race.name] = PairRow(name: race.name, label: race.kinds.joined(separator: " vs "), races: 0,
                                           violations: 0, racesWithViolations: 0, violationsByRule: [:],
                                           outcomes: [:])
            }
            pairs[race.name]!.races += 1
            let outcome = race.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: " · ")
            pairs[race.name]!.outcomes![outcome, default: 0] += 1
            // At offsets ≥ 0 the actions fire in the step's order, so their kinds name the pair as written.
            if race.offset >= 0, labelled.insert(race.name).inserted {
                pairs[race.name]!.label = race.kinds.joined(separator: " vs ")
            }
        }
        var broken: Set<Int> = []
        for (v, race) in zip(report.violations, raceOfViolation) {
            guard let race else { continue }
            let r = races[race]
            offsets[r.offset]!.violations += 1
            pairs[r.name]!.violations += 1
            pairs[r.name]!.violationsByRule[v.rule.rawValue, default: 0] += 1
            if broken.insert(race).inserted {
                offsets[r.offset]!.racesWithViolations += 1
                pairs[r.name]!.racesWithViolations += 1
            }
        }
        byOffset = offsets.values.sorted { $0.offsetNanos < $1.offsetNanos }
        byPair = pairOrder.map { pairs[$0]! }
    }

    /// The violation of `rule` most likely to replay: the first one whose race offset broke a rule in the largest
    /// share of its races (the darkest cell of the heat strip); for violations outside races, the first.
    public func likeliestToReplay(_ rule: Rule, in report: CheckReport) -> Int? {
        let share = Dictionary(uniqueKeysWithValues: byOffset.map {
            ($0.offsetNanos, $0.races > 0 ? Double($0.racesWithViolations) / Double($0.races) : 0)
        })
        var best: (index: Int, share: Double)?
        for (i, v) in report.violations.enumerated() where v.rule == rule && origins[i].call != nil {
            let s = origins[i].offset.flatMap { share[$0] } ?? 1
            if best == nil || s > best!.share { best = (i, s) }
        }
        return best?.index
    }
}

extension HistoryEvent.Body {
    /// An invoke that names its call and a race (`RaceSummary`), read in a function of its own, where only the two
    /// fields are loaded.
    var invokeRaces: Bool {
        if case .invoke(let i) = self { return i.call != nil && i.race != nil }
        return false
    }

    /// A complete's op, read as `invokeRaces` reads.
    var completeOp: Int? {
        if case .complete(let c) = self { return c.op }
        return nil
    }
}
