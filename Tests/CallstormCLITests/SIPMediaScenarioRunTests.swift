@testable import CallstormCLI
import Foundation
import Metrics
import Reports
import RunFormats
import TestSupport
import XCTest

/// The shipped media examples through the Kamailio the run starts (issue 34's acceptance 2 and 3's fault half):
/// Scenarios/sip/hold-resume-media.yaml holds calls five times the one-way threshold without counting one-way
/// audio and measures resume → audio; Scenarios/chaos/media.yaml silences the callee's audio for a window, and the
/// one-way audio it causes is put on that window, none on the server; the same scenario without its windows has
/// no one-way audio at all.
final class SIPMediaScenarioRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private func example(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    func testHeldCallsCountNoOneWayAudioAndResumeToAudioIsMeasured() throws {
        let dir = try TemporaryDirectory.make("sip-hold-media")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(try example("Scenarios/sip/hold-resume-media.yaml"), in: dir)
        let c = outcome.result.recorder.counters
        let started = try XCTUnwrap(c["calls.started"], "\(c)")
        XCTAssertGreaterThan(started, 0)
        XCTAssertEqual(c["action.resume.fulfilled"], started, "every call held and resumed: \(c)")
        XCTAssertNil(c[MetricName.mediaOneWay], "a held side's silence is not one-way audio: \(outcome.result.notes)")
        XCTAssertEqual(c[MetricName.mediaCalls], started, "\(c)")
        let resumed = outcome.result.recorder.histograms[MetricName.resumeToAudio]?.totalCount ?? 0
        XCTAssertGreaterThanOrEqual(resumed, started, "the holder hears the callee again after each resume: \(c)")
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict.reasons)")
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("id=\"media\""), "the report has a Media section")
        XCTAssertTrue(html.contains("no one-way audio"), "the report has a Media section")
    }

    func testARelayWindowSilencingOneDirectionIsOneWayAudioPutOnTheWindowNotTheServer() throws {
        let dir = try TemporaryDirectory.make("chaos-media")
        defer { TemporaryDirectory.remove(dir) }
        let text = try example("Scenarios/chaos/media.yaml")
        let outcome = try runScenario(text, in: dir, out: "with")
        let c = outcome.result.recorder.counters
        let oneWay = try XCTUnwrap(c[MetricName.mediaOneWay], "the window's calls have one-way audio: \(c)")
        XCTAssertGreaterThan(oneWay, 0)
        XCTAssertEqual(c[MetricName.mediaOneWayAttributed], oneWay, "\(outcome.result.notes)")
        XCTAssertNil(c[MetricName.mediaOneWayWithoutFault], "nothing blamed on the server: \(outcome.result.notes)")
        XCTAssertGreaterThan(c[MetricName.fault("media.packet_lost" + ".packets")] ?? 0, 0, "\(c)")
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict.reasons)")
        let named = outcome.result.notes.compactMap(MediaOneWayNote.init(parsing:))
        XCTAssertFalse(named.isEmpty)
        XCTAssertTrue(named.allSatisfy { $0.end == "caller" && $0.window == "relay-half-open" }, "\(named)")
        let rows = FaultRow.rows(fromCSV: try String(contentsOf: outcome.runDirectory
            .appendingPathComponent("faults.csv"), encoding: .utf8))
        let silenced = rows.filter { $0.kind == "media.one_way_dropped" }
        XCTAssertTrue(silenced.allSatisfy { $0.window == "relay-half-open" && $0.call >= 0 }, "\(silenced)")
        XCTAssertGreaterThanOrEqual(silenced.count, Int(oneWay), "a row for each silenced stream")
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<a href=\"#fault-relay-half-open\">"), "episodes link to the window's row")
        // The checker finds each silent call (joined-member-sends-media) and puts it on the window, not the server.
        let checker = try String(contentsOf: outcome.runDirectory.appendingPathComponent("checker.json"),
                                 encoding: .utf8)
        XCTAssertTrue(checker.contains("joined-member-sends-media"), checker)
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, "\(c)")

        // The same scenario without its windows: audio both ways on every call.
        let clean = text.components(separatedBy: "\nfaults:\n").first! + "\n"
        XCTAssertFalse(clean.contains("media_one_way"))
        let plain = try runScenario(clean, in: dir, file: "clean", out: "without")
        let p = plain.result.recorder.counters
        XCTAssertGreaterThan(p["media.streams_opened"] ?? 0, 0, "\(p)")
        XCTAssertNil(p[MetricName.mediaOneWay], "\(plain.result.notes)")
        XCTAssertEqual(p["invariant_violations"] ?? 0, 0, "\(p)")
        XCTAssertEqual(plain.exitCode, .passed, "\(plain.verdict.reasons)")
    }
}
