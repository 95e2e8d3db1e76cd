@testable import CallstormCLI
import Foundation
import TestSupport
import XCTest

/// `target.client: wire` (issue 33): Scenarios/smoke.yaml (its first 3 s of load) through callstorm's own HTTP
/// client books what it books through libcurl for the same seed: every counter, the books in summary.json and the
/// checker's findings. (Two curl runs of smoke with seed 42 agree on all three; a difference here is the client's.)
final class WireClientRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("wire-client")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    /// summary.json's `books` and checker.json, as JSON values compared whole.
    private func books(_ run: URL) throws -> (books: NSDictionary, checker: NSDictionary) {
        func read(_ name: String) throws -> NSDictionary {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent(name)))
                as? NSDictionary)
        }
        return (try XCTUnwrap(read("summary.json")["books"] as? NSDictionary), try read("checker.json"))
    }

    func testSmokeThroughTheWireClientBooksWhatLibcurlBooksForTheSameSeed() throws {
        // Smoke's first 3 s of load (60 calls) rather than 7: the comparison is the point, and the suite's time.
        let smoke = try String(contentsOf: BadFlagValueTests.root.appendingPathComponent("Scenarios/smoke.yaml"),
                               encoding: .utf8)
            .replacingOccurrences(of: "rate: 20/s, for: 7s", with: "rate: 20/s, for: 3s")
        let wireYAML = settingTargetClient(smoke, "wire")
        XCTAssertTrue(wireYAML.contains("target: { client: wire, embedded: true }"), wireYAML)
        let curl = try runScenario(settingTargetClient(smoke, "curl"), in: dir, file: "curl", out: "curl")
        let wire = try runScenario(wireYAML, in: dir, file: "wire", out: "wire")
        let (curlCounters, wireCounters) = (curl.result.recorder.counters, wire.result.recorder.counters)
        XCTAssertGreaterThan(curlCounters["calls.completed"] ?? 0, 50)
        for name in Set(curlCounters.keys).union(wireCounters.keys).sorted() {
            XCTAssertEqual(wireCounters[name], curlCounters[name], name)
        }
        let (curlBooks, wireBooks) = (try books(curl.runDirectory), try books(wire.runDirectory))
        XCTAssertEqual(wireBooks.books, curlBooks.books)
        XCTAssertEqual(wireBooks.checker, curlBooks.checker)
        XCTAssertEqual(wire.exitCode, curl.exitCode)
        // The run said which client it used.
        let scenario = try String(contentsOf: wire.runDirectory.appendingPathComponent("scenario.yaml"),
                                  encoding: .utf8)
        XCTAssertTrue(scenario.contains("client: wire"), scenario)
    }
}
