@testable import Checker
import XCTest

/// `OpTable` keeps the driver's dense op ids in an array and any other id in a dictionary; both must behave as one
/// map from op id to record.
final class OpTableTests: XCTestCase {
    private func record(_ op: Int) -> OpRecord {
        OpRecord(invoke: Invoke(op: op, device: "d\(op)", kind: .start), invokeIndex: op, invokeT: 0)
    }

    func testDenseSparseNegativeAndHugeIdsAreAllFoundAndUpdated() {
        var table = OpTable(capacity: 4)
        let ids = [0, 1, 2, 5_000_000, -7, 3, Int.max, 4, 2_000, 9]
        for id in ids { table[id] = record(id) }
        for id in ids { XCTAssertEqual(table[id]?.invoke.op, id) }
        for missing in [6, 8, 10, -1, 4_999_999, Int.min] { XCTAssertNil(table[missing]) }
        var r = table[5_000_000]!
        r.outcome = .ok
        table[5_000_000] = r
        table[3] = { var x = record(3); x.outcome = .fail; return x }()
        XCTAssertEqual(table[5_000_000]?.outcome, .ok)
        XCTAssertEqual(table[3]?.outcome, .fail)
        XCTAssertEqual(table.neverCompleted, ids.count - 2)
    }

    func testAnOpInvokedTwiceWithASparseIdIsStillOneOutcomeViolation() throws {
        var h = HistoryBuilder()
        h.lines.append(#"{"t":1,"type":"invoke","op":900000000,"device":"a","kind":"start"}"#)
        h.lines.append(#"{"t":2,"type":"invoke","op":900000000,"device":"a","kind":"start"}"#)
        let report = HistoryChecker.check(try h.events())
        XCTAssertEqual(report.violations.map(\.rule), [.oneOutcome])
        XCTAssertTrue(report.violations[0].message.contains("invoked twice (lines 1 and 2)"), report.violations[0].message)
    }
}
