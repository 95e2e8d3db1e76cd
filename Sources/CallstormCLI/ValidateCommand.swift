import StreamIO
import Foundation
import Scenario
import ScenarioLoading
import WebSocketClient

enum ValidateCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: [], boolean: ["help"])
        if parsed.has("help") {
            print(Help.validate)
            return .passed
        }
        guard parsed.positional.count == 1, let file = parsed.positional.first else {
            throw .usage("validate takes exactly one scenario file")
        }
        let scenario = try loadScenario(file)
        print(scenario.describe())
        if let warning = sloWarning(scenario, file: file) {
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
        return .passed
    }

    /// A scenario without thresholds passes any run that did something, however bad: worth a warning.
    static func sloWarning(_ scenario: Scenario, file: String) -> String? {
        guard scenario.slo.isEmpty else { return nil }
        return "\(file): warning: no 'slo:' section: a run passes (exit 0) whatever its latencies and failures, "
            + "failing only when it did nothing (exit 4); add thresholds, e.g. "
            + "slo: { push_to_report.p99: \"< 1s\", invariant_violations: \"== 0\" }"
    }

    /// Loads and validates a scenario; every problem becomes one line of the error.
    static func loadScenario(_ file: String) throws(CLIError) -> Scenario {
        switch ScenarioLoader.load(contentsOf: file, knownFlows: knownFlows) {
        case .success(let scenario):
            // The scenario module only checks that `target.ca` is readable; OpenSSL says whether it holds a CA,
            // so a key or a DER file is refused here rather than every handshake failing as "not trusted".
            if let ca = scenario.targetCA {
                do { _ = try ClientTLS(caFile: ca) } catch {
                    throw .invalidScenario("\(file): error: target.ca: \(error)")
                }
            }
            if let ca = scenario.sip?.caFile {
                do { _ = try ClientTLS(caFile: ca) } catch {
                    throw .invalidScenario("\(file): error: target.sip.ca: \(error)")
                }
            }
            return scenario
        case .failure(let errors): throw .invalidScenario(errors.description)
        }
    }

    static let knownFlows = ScenarioLoader.defaultKnownFlows  // built-in flows; a file may define more
}
