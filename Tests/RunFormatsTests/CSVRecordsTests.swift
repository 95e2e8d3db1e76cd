import RunFormats
import TextEscaping
import XCTest

/// The one CSV reader reads back every field the one escaper (`CSVText`) writes.
final class CSVRecordsTests: XCTestCase {
    func testFieldsWrittenByCSVTextComeBackWhole() {
        let fields = ["plain", "a,b", "say \"hi\"", "two\nlines", "cr\r\nlf", "naïve ✓", "", "\"\"", " lead"]
        let line = fields.map(CSVText.field).joined(separator: ",") + "\n"
        XCTAssertEqual(CSVRecords.parse("h\n" + line + line), [["h"], fields, fields])
    }

    func testCRLFEndsARecordAndBlankLinesAreSkipped() {
        XCTAssertEqual(CSVRecords.parse("a,b\r\n\n1,2\r\n"), [["a", "b"], ["1", "2"]])
    }

    func testRecordsAreNamedByTheHeaderAndThoseOfAnotherWidthLeftOut() throws {
        let table = try XCTUnwrap(CSVRecords.named(CSVRecords.parse("x,y\n1,2\n3\n4,5\n")))
        XCTAssertEqual(table.header, ["x", "y"])
        XCTAssertEqual(table.rows, [["x": "1", "y": "2"], ["x": "4", "y": "5"]])
    }

    func testSecondsAreReadExactlyAndNonNumbersRefused() {
        XCTAssertEqual(RunFileTime.nanos(seconds: "12.000345"), 12_000_345_000)
        XCTAssertEqual(RunFileTime.nanos(seconds: "2.000001"), 2_000_001_000, "no Double rounding")
        XCTAssertEqual(RunFileTime.nanos(seconds: "7"), 7_000_000_000)
        for bad in ["", ".5", "-1", "1.2.3", "1e3", "x", "1.0000000001"] {
            XCTAssertNil(RunFileTime.nanos(seconds: bad), bad)
        }
    }
}
