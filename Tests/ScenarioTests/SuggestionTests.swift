import XCTest
@testable import Scenario

final class SuggestionTests: XCTestCase {
    func testTranspositionCountsAsOneEdit() {
        XCTAssertEqual(Suggestion.damerauLevenshtein("devcies", "devices"), 1)
        XCTAssertEqual(Suggestion.damerauLevenshtein("", "abc"), 3)
        XCTAssertEqual(Suggestion.damerauLevenshtein("kitten", "sitting"), 3)
    }

    func testClosestKeyIsSuggested() {
        let keys = ["name", "seed", "duration", "devices", "drain"]
        XCTAssertEqual(Suggestion.closest(to: "devcies", among: keys), "devices")
        XCTAssertEqual(Suggestion.closest(to: "duraton", among: keys), "duration")
        XCTAssertEqual(Suggestion.closest(to: "Seed", among: keys), "seed")
        XCTAssertEqual(Suggestion.closest(to: "dur", among: keys), "duration")
    }

    func testUnrelatedWordGetsNoSuggestion() {
        XCTAssertNil(Suggestion.closest(to: "banana", among: ["name", "seed", "devices"]))
        XCTAssertNil(Suggestion.closest(to: "x", among: ["name"]))
    }
}
