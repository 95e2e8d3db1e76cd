@testable import Reports
import XCTest

/// The CSV files' one writer: RFC 4180 quoting, LF line ends, the header first.
final class CSVTableTests: XCTestCase {
    func testFieldsWithCommasQuotesOrLineBreaksAreQuotedAndOthersWrittenAsTheyAre() {
        var table = CSVTable(header: ["metric", "note"])
        table.append(["push_to_report", "plain"])
        table.append(["a,b", "say \"hi\""])
        table.append(["line\nbreak", "é ✓"])
        XCTAssertEqual(table.rendered(),
                       "metric,note\npush_to_report,plain\n\"a,b\",\"say \"\"hi\"\"\"\n\"line\nbreak\",é ✓\n")
    }

    func testATableWithoutRowsIsItsHeader() {
        XCTAssertEqual(CSVTable(header: ["a", "b"]).rendered(), "a,b\n")
    }
}
