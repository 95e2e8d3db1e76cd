import RunFormats
import XCTest

/// faults.csv as the fault log writes it and the report and the history checker read it back: plain rows keep
/// their bytes, and a window named with commas, quotes, line breaks or non-ASCII text stays one field.
final class FaultRowTests: XCTestCase {
    static let hostile = ["drops, \"the bad ones\"", "line\nbreak", "crlf\r\nend", "Ärger 🔥", "\"", ",", ""]

    func testPlainRowsKeepTheirBytes() {
        let rows = [
            FaultRow(sinceLoadNanos: 1_500_000, window: "n", kind: "network.reset_peer", subject: "conn-3", seq: 3),
            FaultRow(sinceLoadNanos: 2_000_000_000, window: "w", kind: "push.dropped", subject: "dev-4", call: 7,
                     role: 1, seq: 2),
        ]
        XCTAssertEqual(FaultRow.csv(rows), """
            t_s,window,kind,subject,call,role,seq
            0.001500,n,network.reset_peer,conn-3,-1,-1,3
            2.000000,w,push.dropped,dev-4,7,1,2

            """)
    }

    func testEveryHostileWindowNameAndSubjectComesBackAsWritten() {
        let rows = Self.hostile.enumerated().map { i, name in
            FaultRow(sinceLoadNanos: UInt64(i) * 1_234_567_000, window: name, kind: "push.dropped",
                     subject: "dev-\(name)", call: i - 1, role: i % 2, seq: UInt64(i))
        }
        let text = FaultRow.csv(rows)
        XCTAssertEqual(FaultRow.rows(fromCSV: text), rows, text)
        XCTAssertEqual(rows.map(\.plannedCall), [nil] + (0..<rows.count - 1).map { $0 })
    }

    func testTheDeviceOfARowIsItsSubjectWithoutTheNoteAfterIt() {
        func row(_ subject: String) -> FaultRow {
            FaultRow(sinceLoadNanos: 0, window: "w", kind: "k", subject: subject)
        }
        XCTAssertEqual(row("dev-4").device, "dev-4")
        XCTAssertEqual(row("dev-7(+120ms)").device, "dev-7", "a clock skew's subject")
        XCTAssertNil(row("conn-3").device)
        XCTAssertNil(row("pid-42").device)
    }

    func testACutLastRowIsLeftOutAndTheRestRead() {
        let rows = [FaultRow(sinceLoadNanos: 1_000, window: "a,b", kind: "device.offline", subject: "dev-1")]
        let whole = FaultRow.csv(rows)
        XCTAssertEqual(FaultRow.rows(fromCSV: whole + "3.000000,\"cut, mid"), rows)
        XCTAssertEqual(FaultRow.rows(fromCSV: whole + "3.000000,w,k,s,-1"), rows, "a row without its line break")
        XCTAssertEqual(FaultRow.rows(fromCSV: ""), [])
    }

    func testTimesComeBackToTheMicrosecondWhateverTheirSize() {
        for nanos: UInt64 in [0, 999_000, 1_000_000, 86_400_123_456_000] {
            let row = FaultRow(sinceLoadNanos: nanos, window: "w", kind: "k", subject: "s")
            XCTAssertEqual(FaultRow.rows(fromCSV: FaultRow.csv([row])).first?.sinceLoadNanos, nanos)
        }
    }
}
