import Foundation
import Metrics
import TextEscaping

/// junit.xml in the shape CI systems read (Jenkins, GitLab, GitHub Actions reporters): one `<testsuites>` with
/// one `<testsuite>`, one `<testcase>` per threshold, and a `<failure>` holding the measured value for each
/// threshold that failed. An interrupted run adds an `<error>` testcase, so CI never reads it as a clean pass, and
/// so does a run in which callstorm saturated: its figures after that point could not judge the target.
enum JUnitReport {
    static func render(_ result: RunResult) -> String {
        let facts = result.facts
        let cases = result.thresholds
        let failures = cases.filter { !$0.passed }.count
        let errors = (facts.interrupted ? 1 : 0) + (result.harness == nil ? 0 : 1)
        let tests = cases.count + errors
        let time = ReportFormat.fixed(facts.durationSeconds, decimals: 3)
        let suite = "callstorm.\(facts.scenario)"
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"callstorm\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" "
        xml += "time=\"\(time)\">\n"
        xml += "  <testsuite name=\"\(suite.markupEscaped)\" tests=\"\(tests)\" failures=\"\(failures)\" "
        xml += "errors=\"\(errors)\" skipped=\"0\" time=\"\(time)\" "
        xml += "timestamp=\"\(ReportFormat.iso8601UTC(facts.startedAt))\" "
        xml += "hostname=\"\(facts.machine.markupEscaped)\">\n"
        xml += "    <properties>\n"
        let properties: [(String, String)] = [
            ("scenario", facts.scenario), ("seed", String(facts.seed)), ("version", facts.version),
            ("shard", facts.shard ?? ""), ("command", facts.commandLine),
        ]
        for (name, value) in properties {
            xml += "      <property name=\"\(name.markupEscaped)\" value=\"\(value.markupEscaped)\"/>\n"
        }
        xml += "    </properties>\n"
        for item in cases {
            let name = item.threshold.text
            xml += "    <testcase classname=\"\(suite.markupEscaped).slo\" name=\"\(name.markupEscaped)\" time=\"0\""
            if item.passed {
                xml += "/>\n"
                continue
            }
            let message = "measured \(item.measuredText), limit \(item.threshold.comparison.rawValue) "
                + "\(item.threshold.limitText)"
            xml += ">\n      <failure message=\"\(message.markupEscaped)\" type=\"threshold\">"
            var body = "\(item.threshold.key): measured \(item.measuredText), expected \(item.threshold.comparison.rawValue) "
                + "\(item.threshold.limitText)"
            if !item.threshold.source.isEmpty { body += " (defined at \(item.threshold.source))" }
            xml += body.markupEscaped + "</failure>\n    </testcase>\n"
        }
        if facts.interrupted {
            xml += "    <testcase classname=\"\(suite.markupEscaped).run\" name=\"run completed\" time=\"\(time)\">\n"
            xml += "      <error message=\"the run was interrupted; the report is partial\" type=\"interrupted\"/>\n"
            xml += "    </testcase>\n"
        }
        if let harness = result.harness {
            xml += "    <testcase classname=\"\(suite.markupEscaped).harness\" name=\"callstorm kept up\" time=\"0\">\n"
            xml += "      <error message=\"\(harness.summary.markupEscaped)\" type=\"harness-saturated\"/>\n"
            xml += "    </testcase>\n"
        }
        if !result.notes.isEmpty {
            xml += "    <system-out>" + result.notes.joined(separator: "\n").markupEscaped + "</system-out>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
