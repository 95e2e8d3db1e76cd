/// Finds the name a user most likely meant, for "did you mean" hints on unknown keys and flow names.
enum Suggestion {
    /// The closest candidate within a small edit distance (or sharing a prefix of three or more letters),
    /// or nil when nothing is close enough to be a plausible typo. Ties go to the earlier candidate.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let limit = lowered.count <= 3 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = damerauLevenshtein(lowered, candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.candidate }
        guard lowered.count >= 3 else { return nil }
        return candidates.first { candidate in
            let other = candidate.lowercased()
            return other.hasPrefix(lowered) || lowered.hasPrefix(other)
        }
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions,
    /// which covers the typos people make in keys (`devcies`, `duraton`, `answer-after`).
    static func damerauLevenshtein(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
