import RunFormats
import TextEscaping
import XCTest

/// actions.csv and pushes.csv rows as users' scripts and the report read them: the same text as ever for plain
/// fields, and RFC 4180 quoting where a server's text would otherwise split a row.
final class JournalRowsTests: XCTestCase {
    private func text(_ append: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        append(&out)
        return String(decoding: out, as: UTF8.self)
    }

    func testPlainRowsKeepTheirShape() {
        let action = ActionRow(id: 17, kind: "join", step: "incoming-1to1/answer", device: "dev-3",
                               conversation: "c1", plannedNanos: 1_000_005_000, startedNanos: 1_002_000_000,
                               finishedNanos: 1_005_071_999, outcome: "fulfilled", reason: "")
        XCTAssertEqual(text(action.appendCSV),
                       "17,join,incoming-1to1/answer,dev-3,c1,1.000005,1.002000,1.005071,fulfilled,,3.071")
        let push = PushRow(apnsID: "A-1", device: "dev-3", pushType: "voip", acceptedNanos: 12_000_345_000,
                           deliveredNanos: 12_000_400_000, reportedNanos: 12_001_345_000, deadlineMissed: false)
        XCTAssertEqual(text(push.appendCSV), "A-1,dev-3,voip,12.000345,12.000400,12.001345,1.000,false")
        let unreported = PushRow(apnsID: "A-2", device: "dev-4", pushType: "background", acceptedNanos: 0,
                                 deliveredNanos: 999, reportedNanos: nil, deadlineMissed: true)
        XCTAssertEqual(text(unreported.appendCSV), "A-2,dev-4,background,0.000000,0.000000,,,true")
    }

    func testAServersIdWithACommaOrQuoteIsOneQuotedField() {
        let action = ActionRow(id: 1, kind: "end", step: "f/hangup", device: "dev-1", conversation: "call,7 \"x\"",
                               plannedNanos: 0, startedNanos: 0, finishedNanos: 0, outcome: "failed",
                               reason: "http_409")
        XCTAssertEqual(text(action.appendCSV),
                       #"1,end,f/hangup,dev-1,"call,7 ""x""",0.000000,0.000000,0.000000,failed,http_409,0.000"#)
    }
}

/// actions.csv and pushes.csv read back as they were written, hostile text included.
final class JournalRowsRoundTripTests: XCTestCase {
    private func csv(_ header: String, _ rows: [(inout [UInt8]) -> Void]) -> String {
        var out = Array((header + "\n").utf8)
        for row in rows {
            row(&out)
            out.append(10)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func testActionRowsWithHostileIdsAndHandlesComeBack() {
        let rows = ["plain", "call,7 \"x\"", "two\nlines", "Ünïcode ☎", "\""].enumerated().map { i, text in
            ActionRow(id: UInt64(i), kind: "join", step: "flow,\(i)/answer", device: "dev-\(text)",
                      conversation: text, plannedNanos: 1_000_000, startedNanos: 2_000_000 + UInt64(i) * 1000,
                      finishedNanos: 9_999_999_000, outcome: "failed", reason: "http_409: \(text)")
        }
        let text = csv(ActionRow.header, rows.map { $0.appendCSV })
        XCTAssertEqual(ActionRow.rows(fromCSV: text), rows, text)
    }

    func testPushRowsWithHostileApnsIdsComeBackReportedOrNot() {
        let rows = [
            PushRow(apnsID: "a,\"b\"", device: "dev-1\n2", pushType: "voip", acceptedNanos: 1_000,
                    deliveredNanos: 2_000, reportedNanos: 3_000, deadlineMissed: false),
            PushRow(apnsID: "ß-✓", device: "dev-2", pushType: "background", acceptedNanos: 0, deliveredNanos: 0,
                    reportedNanos: nil, deadlineMissed: true),
        ]
        let text = csv(PushRow.header, rows.map { $0.appendCSV })
        XCTAssertEqual(PushRow.rows(fromCSV: text), rows, text)
    }

    /// A row built at once in scratch memory (`JSONLineWriter`) is the bytes the field-by-field writer made:
    /// `CSVText.appendField` for texts and six (three) fraction digits for times, zeros kept.
    func testRowsBuiltAtOnceAreTheFieldByFieldBytes() {
        let texts = ["", "start", "sip-hold/dial", "a,b", "say \"hi\"", "line\nbreak\r", "ümlaut 😀"]
        let times: [UInt64] = [0, 999, 1_000, 1_000_001_000, 918_531_912_345, UInt64.max]
        for (i, text) in texts.enumerated() {
            let started = times[i % times.count], finished = times[(i + 1) % times.count]
            let row = ActionRow(id: UInt64(i) * 977, kind: text, step: text, device: "dev-\(i)", conversation: text,
                                plannedNanos: times[(i + 2) % times.count], startedNanos: started,
                                finishedNanos: finished, outcome: text, reason: text)
            var expected: [UInt8] = []
            JSONText.appendInteger(row.id, to: &expected)
            for field in [row.kind, row.step, row.device, row.conversation] {
                expected.append(44); CSVText.appendField(field, to: &expected)
            }
            for nanos in [row.plannedNanos, row.startedNanos, row.finishedNanos] {
                expected.append(44); expected += Array(Self.fixed(nanos / 1000, decimals: 6).utf8)
            }
            for field in [row.outcome, row.reason] { expected.append(44); CSVText.appendField(field, to: &expected) }
            expected.append(44); expected += Array(Self.fixed((finished &- started) / 1000, decimals: 3).utf8)
            var out: [UInt8] = [0x41]
            row.appendCSV(to: &out)
            XCTAssertEqual(out, [0x41] + expected, text)
        }
    }

    /// The fixed-point text the old writer made: whole part, point, `decimals` digits zero-padded.
    private static func fixed(_ micros: UInt64, decimals: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let fraction = String(micros % scale)
        return "\(micros / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
