import Foundation
import RunFormats

/// The layout of a run directory: every path, file name and CSV header a run writes and `report`, `merge`,
/// `compare`, `replay` and the tests read. Producers and readers both go through it, so a file cannot move for
/// one of them only.
///
/// ```
/// <run>/                      report files (report.html, summary.*, …: `ReportWriter`), scenario.yaml,
///                             actions.csv, pushes.csv, history.jsonl, faults.csv, checker.json,
///                             violation-<n>.svg, repro-<n>.yaml, shard.json, compare.html; a child target's
///                             target-registrations.jsonl, target-apns-key.p8, target-<n>.out/.err
/// <run>/raw/                  what the run streams while it runs: actions-w<i>.csv, pushes-w<i>.csv,
///                             history-w<i>.jsonl, recorder-w<i>.json (+ .segments.jsonl), recorder-harness.json,
///                             history-wfaults.jsonl, facts.json, notes.json, races.json, fault-windows.json,
///                             finished
/// ```
public struct RunBundle: Sendable, Equatable {
    /// The run directory itself.
    public let directory: URL

    public init(_ directory: URL) { self.directory = directory }

    private func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
    private func rawFile(_ name: String) -> URL { raw.appendingPathComponent(name) }

    // MARK: - Raw results (streamed during the run; `callstorm report` rebuilds every report from them)

    public static let rawDirectoryName = "raw"
    public var raw: URL { directory.appendingPathComponent(Self.rawDirectoryName, isDirectory: true) }

    /// A worker's rows of one kind: `raw/actions-w3.csv`.
    public func workerRows(_ rows: Rows, worker: Int) -> URL { rawFile("\(rows.rawValue)-w\(worker).csv") }
    /// Whether a file name in `raw/` is one worker's rows of that kind.
    public static func isWorkerRows(_ name: String, _ rows: Rows) -> Bool {
        name.hasPrefix("\(rows.rawValue)-w") && name.hasSuffix(".csv")
    }

    /// A worker's part of the operation history: `raw/history-w3.jsonl`.
    public func workerHistory(_ worker: Int) -> URL { rawFile("history-w\(worker).jsonl") }
    /// The fault controller's part of the history (target kills), joined with the workers'.
    public var faultsHistory: URL { rawFile("history-wfaults.jsonl") }
    public static func isHistoryPart(_ name: String) -> Bool { name.hasPrefix("history-w") && name.hasSuffix(".jsonl") }

    /// Recorder checkpoint stems (`RecorderCheckpointer`): a snapshot `<stem>.json` and `<stem>.segments.jsonl`.
    public static func workerRecorderStem(_ worker: Int) -> String { "recorder-w\(worker)" }
    public static let harnessRecorderStem = "recorder-harness"
    /// The counters of the relay comparison (`target.sip.rtpengine`), written once at the run's end.
    public static let relayRecorderStem = "recorder-relay"
    public static func snapshotName(stem: String) -> String { "\(stem).json" }
    public static func segmentsName(stem: String) -> String { "\(stem).segments.jsonl" }
    /// Whether a file name in `raw/` is a recorder snapshot; its stem.
    public static func recorderStem(ofSnapshot name: String) -> String? {
        name.hasPrefix("recorder-") && name.hasSuffix(".json") ? String(name.dropLast(".json".count)) : nil
    }

    /// The run's facts (scenario, seed, machine, duration), saved before the first call and again at the end.
    public var facts: URL { rawFile("facts.json") }
    public var notes: URL { rawFile("notes.json") }
    /// The history checker's race summary for the report (rebuilt reports read it back).
    public var races: URL { rawFile("races.json") }
    /// The scenario's fault windows in report seconds, so a rebuilt report shades them too.
    public var faultWindows: URL { rawFile("fault-windows.json") }
    /// Present only when the run ended normally (not killed): then facts.json holds the final duration.
    public var finished: URL { rawFile("finished") }

    // MARK: - Report files (`ReportWriter`; `callstorm report` rewrites them from raw/)

    public static let reportHTMLFileName = "report.html"
    public static let summaryCSVFileName = "summary.csv"
    public static let countersCSVFileName = "counters.csv"
    public static let timeseriesCSVFileName = "timeseries.csv"
    public static let summaryJSONFileName = "summary.json"
    public static let junitFileName = "junit.xml"
    /// One HdrHistogram interval log per latency metric.
    public static let hlogDirectoryName = "hlog"
    public var reportHTML: URL { file(Self.reportHTMLFileName) }
    public var summaryJSON: URL { file(Self.summaryJSONFileName) }

    // MARK: - Joined and derived files

    /// The joined rows of every worker.
    public func rows(_ rows: Rows) -> URL { file(rows.fileName) }
    public static let historyFileName = "history.jsonl"
    public var history: URL { file(Self.historyFileName) }
    public static let scenarioFileName = "scenario.yaml"
    public var scenario: URL { file(Self.scenarioFileName) }
    public var checker: URL { file("checker.json") }
    /// The n-th violation's timeline (1-based).
    public func violationTimeline(_ n: Int) -> URL { file("violation-\(n).svg") }
    /// The n-th violation's repro file (1-based).
    public func repro(_ n: Int) -> URL { file("repro-\(n).yaml") }
    public static func isRepro(_ name: String) -> Bool { name.hasPrefix("repro-") && name.hasSuffix(".yaml") }
    public static let shardRecordFileName = "shard.json"
    public var shardRecord: URL { file(Self.shardRecordFileName) }
    public var comparison: URL { file("compare.html") }
    /// A child-process target's device registrations (it keeps them across a kill, as a database would).
    public var targetRegistrations: URL { file("target-registrations.jsonl") }
    /// The provider-token key a child-process target signs its pushes with (mode 0600).
    public var targetAPNsKey: URL { file("target-apns-key.p8") }
    /// The log (stdout and stderr) of the Kamailio the run started (`target.sip.kamailio`).
    public var kamailioLog: URL { file("kamailio.log") }
    /// The log of the rtpengine the run started (`target.sip.rtpengine`).
    public var rtpengineLog: URL { file("rtpengine.log") }
    /// The relay's per-call counts beside callstorm's, one row per call and direction (`target.sip.rtpengine`).
    public static let mediaRelayFileName = "media-relay.csv"
    public var mediaRelay: URL { file(Self.mediaRelayFileName) }
    /// The n-th start's (1-based) standard output and error of a child-process target.
    public func targetOutput(start n: Int) -> URL { file("target-\(n).out") }
    public func targetErrors(start n: Int) -> URL { file("target-\(n).err") }

    // MARK: - Faults

    /// Every fault injected, one row each (`FaultRow`, written by the Faults module's `FaultLog`).
    public static let faultsFileName = "faults.csv"
    public static let faultsHeader = FaultRow.header
    public var faults: URL { file(Self.faultsFileName) }

    // MARK: - Row files

    /// The row files workers stream and the run joins.
    public enum Rows: String, Sendable, CaseIterable {
        case actions
        case pushes

        public var fileName: String { "\(rawValue).csv" }

        public var header: String {
            switch self {
            case .actions: return ActionRow.header
            case .pushes: return PushRow.header
            }
        }
    }

    /// The columns of actions.csv and pushes.csv, in order (their format lives in RunFormats).
    public typealias ActionColumn = ActionRow.Column
    public typealias PushColumn = PushRow.Column
}
