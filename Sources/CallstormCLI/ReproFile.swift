import Checker
import Driver
import Foundation
import Quantities
import Reports
import Scenario

/// `repro-<n>.yaml`: the run's own scenario, cut down to the one planned call behind violation n.
///
/// The scenario text is kept as written (flows, behaviour, device profile, target and its bugs) and only the
/// top-level keys that decide *which* calls run are replaced: `replay:` names the call (so its random streams
/// are the same), pins its race offset and records the rule; `devices` becomes what that call needs and
/// `workers` 1; `seed` is the run's effective seed. `callstorm replay` runs it.
enum ReproFile {
    /// Repro files written per run at most (violations beyond this have the same calls' kin in checker.json).
    static let maximum = 100

    /// Top-level keys the repro rewrites; everything else is copied.
    static let replacedKeys: Set<String> = ["name", "seed", "devices", "workers", "load", "duration", "replay"]

    /// The repro text for one violation, or nil when the history does not say which call it came from, or that call
    /// was an outside party's (callstorm did not place it, so it cannot place it again).
    static func text(scenarioText: String, scenario: Scenario, seed: UInt64, violation: Violation, number: Int,
                     origin: RaceSummary.Origin, runDirectory: URL) -> String? {
        guard let call = origin.call, !OutsideCallIDs.contains(call) else { return nil }
        let devices = max(2, scenario.flows.values.map(\.roles.count).max() ?? 2)
        var out = "# repro-\(number).yaml — violation \(number) of \(runDirectory.path) (checker.json), rule "
            + "\(violation.rule.rawValue):\n#   \(violation.message)\n"
        out += "# Re-runs planned call \(call) alone, with seed \(seed)"
        if let offset = origin.offset { out += " and race offset \(Quantity.format(signedNanos: offset))" }
        out += ".\n# callstorm replay repro-\(number).yaml --repeat 10\n"
        out += keeping(scenarioText, without: replacedKeys)
        if !out.hasSuffix("\n") { out += "\n" }
        out += "# --- repro (replaces name, seed, devices, workers, load, duration) ---\n"
        out += "name: \(yamlQuoted(scenario.name + "-repro-\(number)"))\n"
        out += "seed: \(seed)\n"
        out += "devices: \(devices)\n"
        out += "workers: 1\n"
        out += "load:\n  - hold: { rate: 1/s, for: 1s }\n"
        var replay = "replay: { call: \(call)"
        if let offset = origin.offset { replay += ", offset: \(Quantity.format(signedNanos: offset))" }
        replay += ", rule: \(violation.rule.rawValue), from: \(yamlQuoted("\(runDirectory.path)#\(number)")) }\n"
        return out + replay
    }

    /// The document without the top-level entries named in `keys`: an entry is its `key:` line at column 0 and
    /// every following line up to the next top-level key.
    static func keeping(_ text: String, without keys: Set<String>) -> String {
        var out: [Substring] = []
        var dropping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let key = topLevelKey(line) { dropping = keys.contains(key) }
            if !dropping { out.append(line) }
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return out.joined(separator: "\n") + "\n"
    }

    private static func topLevelKey(_ line: Substring) -> String? {
        guard let first = line.first, first.isLetter || first == "_" || first == "\"" || first == "'" else {
            return nil
        }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon].trimmingCharacters(in: .whitespaces)
        return key.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }

    static func yamlQuoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
