import Foundation
import Metrics
@testable import Reports
import Thresholds
import XCTest

/// report.html's Media section and the media rows of summary.csv and summary.json, from a hand-made run: 10 calls
/// with media, two with one-way audio (one a fault window's, one the server's), known loss, jitter, lag and MOS.
final class MediaReportTests: XCTestCase {
    private let start = ReportFixtures.start

    private func mediaRun(relay: Bool = false) -> RunResult {
        var recorder = ReportFixtures.recorder()
        let at = start + 1_500_000_000
        recorder.count(.mediaStreamsOpened, by: 20, atNanos: at)
        recorder.count(.mediaCalls, by: 10, atNanos: at)
        recorder.count(.mediaOneWayCalls, by: 2, atNanos: at)
        recorder.count(.mediaOneWayAttributed, atNanos: at)
        recorder.count(.mediaOneWayWithoutFault, atNanos: at)
        recorder.count(Metric.mediaOneWay("no_audio_after_answer"), by: 2, atNanos: at)
        recorder.count(.mediaPacketsSent, by: 1_000, atNanos: at)
        recorder.count(.mediaPacketsReceived, by: 950, atNanos: at)
        recorder.count(.mediaPacketsLost, by: 50, atNanos: at)
        for i in 0..<18 {
            recorder.record(.answerToAudioCaller, micros: Int64(10_000 + i * 1_000), atNanos: at)
            recorder.record(.mediaMOS, micros: i < 2 ? 1_000 : 4_409, atNanos: at)
            recorder.record(.mediaJitter, micros: 300, atNanos: at)
            recorder.record(.mediaSendLagMax, micros: 250, atNanos: at)
            recorder.record(.mediaLoss, micros: 5_000, atNanos: at)
        }
        if relay {
            recorder.count(Metric(named: MetricName.mediaRelayCallsCompared), by: 10, atNanos: at)
            recorder.count(Metric(named: MetricName.mediaRelayMismatch), by: 1, atNanos: at)
        }
        recorder.seal()
        let notes = [
            MediaOneWayNote(call: 4, callID: "c4@x", end: "caller", cause: "no_audio_after_answer",
                            fault: "media.one_way_dropped", window: "half-open").text,
            MediaOneWayNote(call: 7, callID: "c7<@x", end: "callee", cause: "no_audio_after_answer").text,
        ]
        let slo = try! Threshold.parse(key: "media.one_way_rate", expression: "< 1%")
        var result = RunResult(facts: ReportFixtures.facts(), recorder: recorder, verdict: Verdict(passed: true),
                               notes: notes)
        result.thresholds = [slo.evaluate(histograms: result.histograms, counters: result.recorder.counters)]
        return result
    }

    func testMediaSectionNamesOneWayCallsWithWhoseTheyAreAndTheQualityDistributions() throws {
        let html = HTMLReport(mediaRun()).render()
        let section = try XCTUnwrap(html.components(separatedBy: "<section class=\"chart-section\" id=\"media\">").last?
            .components(separatedBy: "</section>").first)
        XCTAssertTrue(section.contains("10 calls carried media; one-way audio on 2 (20%): 1 explained by injected "
            + "media faults, 1 with no fault on their path (the server&#39;s)"), section)
        XCTAssertTrue(section.contains("lost 50 (5%)"), section)
        XCTAssertTrue(section.contains("<tr id=\"media-call-4\""), section)
        XCTAssertTrue(section.contains("<a href=\"#fault-half-open\">media.one_way_dropped (half-open)</a>"), section)
        XCTAssertTrue(section.contains("<code>c7&lt;@x</code>"), "run-supplied text is escaped")
        XCTAssertTrue(section.contains("<td>callee</td><td>no_audio_after_answer</td><td>server</td>"), section)
        // With the checker's timeline of that call, the server's episode links to it.
        var checked = mediaRun()
        checked.races = RacesSection(operations: 0, indeterminate: 0, rules: [], races: 0, offsets: [], pairs: [],
                                     timelines: [.init(number: 2, rule: "joined-member-sends-media",
                                                       message: "dev-1's call c7<@x is connected", offsetNanos: nil,
                                                       svg: "<svg></svg>")])
        XCTAssertTrue(HTMLReport(checked).render().contains(
            "<td>server (<a href=\"violation-2.svg\">checker timeline 2</a>)</td>"))
        // MOS in MOS, its low tail at p5 (2 of 18 streams at 1.000).
        XCTAssertTrue(section.contains("<th scope=\"row\">MOS</th><td></td><td>18</td><td>1.000</td><td>1.000</td>"),
                      section)
        XCTAssertTrue(section.contains("send lag max (harness)"), section)
        XCTAssertTrue(section.contains("data-chart=\"media-answer-timeline\""), section)
        XCTAssertTrue(section.contains("data-chart=\"media-jitter-timeline\""), section)
        XCTAssertTrue(section.contains("no media relay in this run"), section)
    }

    func testRelayCountsShowWhenTheRelayRunWroteThem() {
        let html = HTMLReport(mediaRun(relay: true)).render()
        XCTAssertTrue(html.contains("compared with callstorm's on 10 calls: 1 disagree (media-relay.csv"), html)
    }

    /// The fault table gets the one-way calls per second a window's faults explain and the server's, inside the
    /// window against the seconds no window touched.
    func testTheFaultTableComparesOneWayAudioByFaultsAndByTheServer() {
        var run = mediaRun()
        run.faultWindows = [FaultSpan(fromSecond: 1, toSecond: 2, label: "half-open",
                                      what: "sip: media one-way callee_to_caller")]
        let html = HTMLReport(run).render()
        let table = String(html[html.range(of: "<section id=\"faults\">")!.lowerBound...].prefix(3_000))
        XCTAssertTrue(table.contains("<th>one-way audio by faults/s</th><th>one-way audio by the server/s</th>"), table)
        XCTAssertTrue(table.contains("<td>1.0 → 0.0</td><td>1.0 → 0.0</td></tr>"), table)
        XCTAssertFalse(HTMLReport(ReportFixtures.result()).render().contains("one-way audio by"), "no media, no column")
    }

    func testARunWithoutMediaHasNoSectionAndNoRows() throws {
        let result = ReportFixtures.result()
        XCTAssertFalse(HTMLReport(result).render().contains("id=\"media\""))
        XCTAssertNil(MediaFigures(result))
        XCTAssertNil(ReportSummary(result).media)
        XCTAssertFalse(ReportWriter.summaryCSV(result.histograms, media: MediaFigures(result)).contains("media."))
    }

    func testSummaryRowsCarryTheOneWayRateLossAndMOS() throws {
        let run = mediaRun()
        let csv = ReportWriter.summaryCSV(run.histograms, media: MediaFigures(run))
        XCTAssertTrue(csv.contains("\nmedia.one_way_rate,10,,,,,,,0.2000,fraction"), csv)
        XCTAssertTrue(csv.contains("\nmedia.one_way_without_fault,2,,,,,,,1,calls"), csv)
        XCTAssertTrue(csv.contains("\nmedia.loss_rate,1000,,,,,,,0.0500,fraction"), csv)
        XCTAssertTrue(csv.contains("\nmedia.mos,18,1.000,"), csv)
        XCTAssertTrue(csv.contains(",MOS"), csv)
        let summary = try ReportSummary.decode(from: ReportSummary(run).encoded())
        let media = try XCTUnwrap(summary.media)
        XCTAssertEqual(media.oneWayRate, 0.2)
        XCTAssertEqual(media.named.map(\.call), [4, 7])
        XCTAssertEqual(media.named.first?.window, "half-open")
        XCTAssertEqual(summary.ratios?.mediaOneWayRate, 0.2)
        XCTAssertEqual(summary.thresholds?.first?.passed, false)
        let junit = JUnitReport.render(run)
        XCTAssertTrue(junit.contains("media.one_way_rate"), junit)
    }
}
