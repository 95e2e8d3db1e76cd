import Foundation
import Metrics
import XCTest
@testable import Reports
import TestSupport

/// actions.csv read on bytes must give exactly what adding the same rows one by one gives.
final class StepMetricsLoadTests: XCTestCase {
    private func load(_ text: String) throws -> StepMetrics {
        let url = TemporaryDirectory.path("steps-load").appendingPathExtension("csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(text.utf8).write(to: url)
        return StepMetrics.load(actionsCSV: url)
    }

    private let header = "id,kind,step,device,conversation,planned_s,started_s,finished_s,outcome,reason,latency_ms\n"

    func testLoadingRowsEqualsAddingThemOneByOne() throws {
        var expected = StepMetrics()
        var text = header
        let kinds = ["join", "end", "start"]
        let steps = ["f/answer", "f/hangup", "g/dial", "a-much-longer-flow-name/with-a-long-step"]
        let outcomes = ["fulfilled", "failed", "timed_out"]
        var state: UInt64 = 12345
        func next(_ n: UInt64) -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (state >> 33) % n
        }
        for id in 0..<3000 {
            let kind = kinds[Int(next(3))], step = steps[Int(next(4))], outcome = outcomes[Int(next(3))]
            let planned = Int64(next(50_000_000)), started = planned + Int64(next(5_000))
            let finished = started + Int64(next(3_000_000)) - 100  // now and then before its start: clamped to 0
            func s(_ micros: Int64) -> String { String(format: "%d.%06d", micros / 1_000_000, micros % 1_000_000) }
            text += "\(id),\(kind),\(step),dev,conv,\(s(planned)),\(s(started)),\(s(finished)),\(outcome),,1.0\n"
            expected.add(kind: kind, step: step, outcome: outcome, latencyMicros: finished - started,
                         fromPlannedMicros: finished - planned)
        }
        XCTAssertEqual(try load(text), expected)
    }

    func testShortFractionsAreScaledAndMalformedTimesOrFieldCountsSkipTheRow() throws {
        let steps = try load(header + """
            1,join,f/a,d,c,1.5,1.5,2,fulfilled,,0
            2,join,f/a,d,c,1.1234567,1.5,2,fulfilled,,0
            3,join,f/a,d,c,1.5.1,1.5,2,fulfilled,,0
            4,join,f/a,d,c,x1,1.5,2,fulfilled,,0
            5,join,f/a,d,c,1.5,1.5,2,failed,a reason, with a comma,0
            6,,f/a,d,c,1.5,1.5,2,fulfilled,,0
            7,join,f/a,d,c,-1.5,1.5,2,fulfilled,,0
            8,join,f/a,d,c,1.5,1.5,2,fulfilled,,0
            """)  // the last row has no newline: cut by a kill
        XCTAssertEqual(steps.rows, 2)
        XCTAssertEqual(steps.outcomes["join@f/a"], ["fulfilled": 2])
        XCTAssertEqual(steps.histograms["join.fulfillment@f/a"]?.max, 500_000)
        // "-1.5" reads as -1 s + 0.5 s, as it always has.
        XCTAssertEqual(steps.histograms["join.fulfillment_from_planned@f/a"]?.max, 2_500_000)
    }

    /// A field in quotes (a foreign server's id with a comma or a quote, as the journal writes it) is one field;
    /// an unterminated quote or text after the closing quote skips the row.
    func testQuotedFieldsAreOneFieldEach() throws {
        let steps = try load(header + #"""
            1,join,f/a,d,"c,1 ""q""",1.5,1.5,2,fulfilled,,0
            2,join,"f/a",d,"",1.5,1.5,2.5,fulfilled,"a, reason",0
            3,join,f/a,d,"unterminated,1.5,1.5,2,fulfilled,,0
            4,join,f/a,d,"c"x,1.5,1.5,2,fulfilled,,0
            5,join,f/a,d,c,1.5,1.5,2,fulfilled,,"0"

            """#)
        XCTAssertEqual(steps.rows, 3)
        XCTAssertEqual(steps.outcomes["join@f/a"], ["fulfilled": 3])
        XCTAssertEqual(steps.histograms["join.fulfillment@f/a"]?.max, 1_000_000)
    }

    func testAFileWithoutAWholeLineOrKnownColumnsGivesNothing() throws {
        XCTAssertEqual(try load("id,kind,step").rows, 0)
        XCTAssertEqual(try load("a,b\n1,2\n").rows, 0)
        XCTAssertEqual(try load("").rows, 0)
    }
}
