/// A flow's `expect:` (`ExpectedOutcome`): the unanswered ends the flow is for, so a declined, cancelled or busy
/// call counts as the declared outcome it is rather than as a failure (README, "Flows"; docs/SCENARIOS.md).
extension ScenarioDecoder {
    static let expectKeys = ["unanswered", "status"]

    /// `{ unanswered: [declined, cancelled, refused], status: [486, 603] }`; nil (reported) when unreadable.
    mutating func expect(_ node: YAMLNode, flow: String) -> ExpectedOutcome? {
        let context = "'expect' of flow '\(flow)'"
        guard let f = fields(of: node, in: context, known: Self.expectKeys, required: ["unanswered"]) else {
            return nil
        }
        let words = ExpectedOutcome.Unanswered.allCases.map(\.rawValue)
        var ways: [ExpectedOutcome.Unanswered] = []
        if let n = f["unanswered"], let list = stringList(n, "unanswered") {
            for word in list {
                guard let way = ExpectedOutcome.Unanswered(rawValue: word) else {
                    report(n.mark, "\(context): 'unanswered' takes \(words.joined(separator: ", ")); got '\(word)'",
                           suggestion: Suggestion.closest(to: word, among: words))
                    continue
                }
                if !ways.contains(way) { ways.append(way) }
            }
            if list.isEmpty {
                report(n.mark, "\(context): 'unanswered' needs at least one of \(words.joined(separator: ", "))")
            }
        }
        var statuses: [Int] = []
        if let n = f["status"] {
            let items: [YAMLNode]
            if case .sequence(let list, _) = n { items = list } else { items = [n] }
            for item in items {
                guard let status = integer(item, "status", atLeast: 300) else { continue }
                guard status <= 699 else {
                    report(item.mark, "\(context): 'status' lists SIP final statuses that refuse a call (300–699), "
                        + "got \(status)")
                    continue
                }
                statuses.append(status)
            }
            if !ways.contains(.refused), !ways.contains(.declined), !statuses.isEmpty {
                report(n.mark, "\(context): 'status' narrows a 'refused' or 'declined' end; add one of them to "
                    + "'unanswered'")
            }
        }
        return ways.isEmpty ? nil : ExpectedOutcome(unanswered: ways, statuses: statuses)
    }
}
