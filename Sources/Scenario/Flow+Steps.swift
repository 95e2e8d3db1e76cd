import Quantities

/// Walking a flow's steps, for the driver (which needs every step name up front to set up per-step recorders)
/// and for `describe()`.
extension Flow {
    /// Every step, nested ones included, depth first in file order (a branch or repeat step before its children).
    public var allSteps: [FlowStep] {
        var result: [FlowStep] = []
        func visit(_ steps: [FlowStep]) {
            for step in steps {
                result.append(step)
                switch step.kind {
                case .branch(let branches): branches.forEach { visit($0.steps) }
                case .repeatSteps(_, let steps): visit(steps)
                case .together(let steps, _): visit(steps)
                default: break
                }
            }
        }
        visit(steps)
        return result
    }

    /// The side a step is performed by, as written in the file: a declared role, or `hangup` for `hangupRole`.
    static func roleWord(_ role: String) -> String {
        role == hangupRole ? "hangup" : role
    }
}

extension FlowStep.Kind {
    /// The word the scenario language uses for this kind (`start`, `await_push`, …, `wait`, `branch`, `repeat`);
    /// also the base of a step's default name.
    public var word: String {
        switch self {
        case .start: return "start"
        case .awaitPush: return "await_push"
        case .join: return "join"
        case .decline: return "decline"
        case .end: return "end"
        case .pause: return "pause"
        case .resume: return "resume"
        case .merge: return "merge"
        case .unmerge: return "unmerge"
        case .awaitEnd: return "await_end"
        case .awaitAnswer: return "await_answer"
        case .redial: return "redial"
        case .wait, .waitBehavior: return "wait"
        case .branch: return "branch"
        case .repeatSteps: return "repeat"
        case .together: return "together"
        case .life(let step): return step.kind.rawValue
        }
    }

    /// True for the kinds a device performs (everything but wait, branch and repeat).
    public var isAction: Bool {
        switch self {
        case .wait, .waitBehavior, .branch, .repeatSteps, .together: return false
        default: return true
        }
    }
}

extension FlowStep: CustomStringConvertible {
    /// One line in the scenario's own words, e.g. `dial: caller start main -> callee`.
    public var description: String {
        let who = role.map { Flow.roleWord($0) + " " } ?? ""
        let what: String
        switch kind {
        case .start(let to, let conversation, let video):
            what = "start \(conversation) -> \(to.joined(separator: ", "))" + (video ? " (video)" : "")
        case .awaitPush(let conversation), .join(let conversation), .decline(let conversation),
             .pause(let conversation), .resume(let conversation), .awaitEnd(let conversation),
             .awaitAnswer(let conversation),
             .redial(let conversation):
            what = "\(kind.word) \(conversation)"
        case .end(let conversation, let reason):
            what = "end \(conversation)" + (reason.map { " (\($0))" } ?? "")
        case .merge(let conversation, let other):
            what = "merge \(conversation) with \(other)"
        case .unmerge(let conversation, let member, let into):
            what = "unmerge \(member) from \(conversation) into \(into)"
        case .wait(let distribution):
            what = "wait \(distribution)"
        case .waitBehavior(let behavior):
            what = "wait \(behavior)"
        case .branch(let branches):
            what = "branch " + branches.map { branch in
                "\(Quantity.decimal(branch.probability * 100))%: \(branch.steps.map(\.name).joined(separator: ", "))"
            }.joined(separator: " | ")
        case .repeatSteps(let count, let steps):
            what = "repeat \(count)x: \(steps.map(\.name).joined(separator: ", "))"
        case .life(let step):
            what = "\(step.kind.rawValue) \(step.conversation)"
                + (step.kind == .interrupted ? " (\(step.interruption.rawValue))" : "")
        case .together(let steps, let offset):
            let gaps = offset.values.map { Quantity.format(signedNanos: $0) }
            what = "together (offset \(gaps.count == 1 ? gaps[0] : "\(gaps.first!)…\(gaps.last!)")): " +
                steps.map(\.name).joined(separator: ", ")
        }
        return "\(name): \(who)\(what)"
    }
}
