import Checker
import HistoryLoading
import Results
import XCTest

/// The history checker over the rig's history, fed as `callstorm run` feeds it (`HistoryCheck` in CallstormCLI):
/// the worker's raw/history-w*.jsonl joined into history.jsonl (`RunResults.joinHistory`), read back
/// (`HistoryReader.read`), judged under the scenario's server policy (a SIP target is not the embedded reference:
/// undeclared unless the scenario declares one), and its `together` races counted (`RaceSummary`). No fault
/// attribution: a rig's faults.csv is not written, so a test that judges a faulty run reads the findings whole.
extension SIPRig {
    struct Check {
        let report: CheckReport
        let races: RaceSummary
        /// The joined history's lines, for a test that plants a change in them.
        let lines: [String]

        /// The outcomes counted for the scenario's one `together` step.
        var outcomes: [String: Int] { races.byPair.first?.outcomes ?? [:] }

        var describe: String { report.violations.prefix(3).map { "\($0.rule.rawValue): \($0.message)" }.joined() }
    }

    /// Ends the worker (if it was not yet) and checks its history.
    func check() throws -> Check {
        let directory = try XCTUnwrap(directory, "the rig keeps no history")
        _ = finish()
        try RunResults.joinHistory(run: directory)
        let url = RunBundle(directory).history
        let events = try HistoryReader.read(contentsOf: url)
        let report = HistoryChecker.check(events, policy: settings.scenario.serverPolicy(embedded: false))
        let text = try String(contentsOf: url, encoding: .utf8)
        return Check(report: report, races: RaceSummary(events: events, report: report),
                     lines: text.split(separator: "\n").map(String.init))
    }

    /// The checker's verdict on `lines` with the line that ended one device's dialog with `reason` taken out (that
    /// end never hung up), and the Call-ID it belonged to; nil when no dialog ended that way.
    static func withoutOneEnd(_ lines: [String], reason: String) throws -> (CheckReport, String)? {
        guard let cut = lines.firstIndex(where: { $0.contains("\"type\":\"dialog\"") && $0.contains("\"\(reason)\"") })
        else { return nil }
        let callID = try XCTUnwrap(lines[cut].components(separatedBy: "\"conversation\":\"").last?
            .components(separatedBy: "\"").first)
        var planted = lines
        planted.remove(at: cut)
        let events = try HistoryReader.parse(lines: planted.map { Substring($0) })
        return (HistoryChecker.check(events), callID)
    }
}
