import XCTest
@testable import Quantities

final class QuantityTests: XCTestCase {
    func testDurationsInEveryUnit() throws {
        XCTAssertEqual(try Quantity.duration("250ms"), 250_000_000)
        XCTAssertEqual(try Quantity.duration("2s"), 2_000_000_000)
        XCTAssertEqual(try Quantity.duration("1m"), 60_000_000_000)
        XCTAssertEqual(try Quantity.duration("1h"), 3_600_000_000_000)
        XCTAssertEqual(try Quantity.duration("1m30s"), 90_000_000_000)
        XCTAssertEqual(try Quantity.duration("500us"), 500_000)
        XCTAssertEqual(try Quantity.duration("1.5s"), 1_500_000_000)
        XCTAssertEqual(try Quantity.duration("7ns"), 7)
        XCTAssertEqual(try Quantity.duration("0s"), 0)
    }

    func testBareNumberDurationAsksForAUnit() {
        XCTAssertThrowsError(try Quantity.duration("10")) { error in
            let error = error as? Quantity.ParseError
            XCTAssertTrue(error?.message.contains("add a unit") ?? false)
            XCTAssertEqual(error?.suggestion, "10s")
        }
    }

    func testSpelledOutUnitSuggestsTheShortForm() {
        XCTAssertThrowsError(try Quantity.duration("10 seconds")) { error in
            let error = error as? Quantity.ParseError
            XCTAssertEqual(error?.message, "expected a duration like 250ms or 2s, got '10 seconds'")
            XCTAssertEqual(error?.suggestion, "10s")
        }
    }

    func testMalformedDurationsAreRejected() {
        for text in ["abc", "", "s", "1m30", "1.2.3s", "2 d", "-1s", "1e400s"] {
            XCTAssertThrowsError(try Quantity.duration(text), text)
        }
    }

    func testRates() throws {
        XCTAssertEqual(try Quantity.rate("50/s"), 50)
        XCTAssertEqual(try Quantity.rate("3000/m"), 50, accuracy: 1e-9)
        XCTAssertEqual(try Quantity.rate("0/s"), 0)
        XCTAssertEqual(try Quantity.rate("2.5/s"), 2.5)
        XCTAssertEqual(try Quantity.rate("7200/h"), 2, accuracy: 1e-12)
    }

    func testNegativeAndUnitlessRatesAreRejected() {
        XCTAssertThrowsError(try Quantity.rate("-5/s")) { error in
            XCTAssertEqual((error as? Quantity.ParseError)?.message, "a rate cannot be negative, got '-5/s'")
        }
        XCTAssertThrowsError(try Quantity.rate("50")) { error in
            XCTAssertEqual((error as? Quantity.ParseError)?.suggestion, "50/s")
        }
        XCTAssertThrowsError(try Quantity.rate("50/d"))
        XCTAssertThrowsError(try Quantity.rate("fast"))
    }

    func testFormattingReadsLikeTheScenarioFile() {
        XCTAssertEqual(Quantity.format(nanos: 250_000_000), "250ms")
        XCTAssertEqual(Quantity.format(nanos: 1_500_000_000), "1.5s")
        XCTAssertEqual(Quantity.format(nanos: 90_000_000_000), "1m30s")
        XCTAssertEqual(Quantity.format(nanos: 7_200_000_000_000), "2h")
        XCTAssertEqual(Quantity.format(nanos: 0), "0s")
        XCTAssertEqual(Quantity.format(ratePerSecond: 2.5), "2.5/s")
        XCTAssertEqual(Quantity.format(ratePerSecond: 50), "50/s")
    }

    func testFormattedDurationsParseBack() throws {
        for nanos: UInt64 in [1, 999, 1_500, 250_000_000, 1_500_000_000, 61_250_000_000, 3_723_000_000_000] {
            XCTAssertEqual(try Quantity.duration(Quantity.format(nanos: nanos)), nanos)
        }
    }
}
