@testable import Checker
import XCTest

/// RaceSummary traces violations to the planned call and race offset the history names, and counts races per
/// offset and per operation pair for the report's heat strip.
final class RaceSummaryTests: XCTestCase {
    /// Adds the driver's optional invoke fields to the builder's last line.
    private func tag(_ h: inout HistoryBuilder, call: Int, step: String, race: String? = nil, offset: Int64? = nil) {
        var line = h.lines.removeLast()
        line.removeLast()
        line += ",\"call\":\(call),\"step\":\"\(step)\""
        if let race, let offset { line += ",\"race\":\"\(race)\",\"offset\":\(offset)" }
        h.lines.append(line + "}")
    }

    /// Call `call` sets Ryan up in A (Adam, held) and B (Andre), then races merge(B, A) against Adam's end of A.
    private func setUp(_ h: inout HistoryBuilder, call: Int, a: String, b: String) {
        let (r, ad, an) = ("ryan\(call)", "adam\(call)", "andre\(call)")
        let steps: [(String, String, String?, String)] = [
            (r, "start", nil, view(a, 1, "\(r):joined \(ad):ringing")),
            (ad, "join", a, view(a, 2, "\(r):joined \(ad):joined")),
            (r, "pause", a, view(a, 3, "\(r):held \(ad):joined")),
            (r, "start", nil, view(b, 1, "\(r):joined \(an):ringing")),
            (an, "join", b, view(b, 2, "\(r):joined \(an):joined")),
        ]
        for (device, kind, conversation, v) in steps {
            let op = h.invoke(device, kind, conversation)
            tag(&h, call: call, step: kind)
            h.complete(op, view: v)
        }
    }

    private func story() throws -> (events: [HistoryEvent], report: CheckReport, lostMerge: Int) {
        var h = HistoryBuilder()
        // Call 3 at +1 ms: the end is lost under the merge (merge-yields-union).
        setUp(&h, call: 3, a: "A", b: "B")
        let merge = h.invoke("ryan3", "merge", "B", with: "A")
        tag(&h, call: 3, step: "merge", race: "f/clash", offset: 1_000_000)
        let end = h.invoke("adam3", "end", "A")
        tag(&h, call: 3, step: "adam-ends", race: "f/clash", offset: 1_000_000)
        h.complete(end, view: view("A", 4, "ryan3:held adam3:left", ended: true))
        h.complete(merge, view: view("B", 3, "ryan3:joined andre3:joined adam3:joined"))
        // Call 8 at -1 ms: the end wins and the merge is refused — correct.
        setUp(&h, call: 8, a: "C", b: "D")
        let end2 = h.invoke("adam8", "end", "C")
        tag(&h, call: 8, step: "adam-ends", race: "f/clash", offset: -1_000_000)
        let merge2 = h.invoke("ryan8", "merge", "D", with: "C")
        tag(&h, call: 8, step: "merge", race: "f/clash", offset: -1_000_000)
        h.complete(end2, view: view("C", 4, "ryan8:held adam8:left", ended: true))
        h.complete(merge2, "fail", reason: "http_409")
        let events = try h.events()
        return (events, HistoryChecker.check(events), merge)
    }

    func testViolationIsTracedToItsCallAndOffset() throws {
        let (events, report, merge) = try story()
        XCTAssertEqual(report.violations.map(\.rule), [.mergeUnion])
        XCTAssertTrue(report.violations[0].ops.contains(merge))
        let summary = RaceSummary(events: events, report: report)
        XCTAssertEqual(summary.races, 2)
        XCTAssertEqual(summary.origins, [.init(call: 3, race: "f/clash", offset: 1_000_000)])
        XCTAssertEqual(summary.likeliestToReplay(.mergeUnion, in: report), 0)
        XCTAssertNil(summary.likeliestToReplay(.versionsIncrease, in: report))
    }

    func testRacesAreCountedPerOffsetAndPair() throws {
        let (events, report, _) = try story()
        let summary = RaceSummary(events: events, report: report)
        XCTAssertEqual(summary.byOffset, [
            .init(offsetNanos: -1_000_000, races: 1, violations: 0, racesWithViolations: 0),
            .init(offsetNanos: 1_000_000, races: 1, violations: 1, racesWithViolations: 1),
        ])
        // Named in step order, from a race at an offset ≥ 0 (at -1 ms the end was invoked first).
        XCTAssertEqual(summary.byPair, [.init(name: "f/clash", label: "merge vs end", races: 2, violations: 1,
                                              racesWithViolations: 1, violationsByRule: ["merge-yields-union": 1],
                                              outcomes: ["adam-ends ok · merge ok": 1,
                                                         "adam-ends ok · merge fail http_409": 1])])
    }

    func testHistoryWithoutCallFieldsHasNoRaces() throws {
        var h = HistoryBuilder()
        let op = h.invoke("ryan", "start")
        h.complete(op, view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("ryan", "pause", "A", view: view("A", 1, "ryan:held adam:ringing"))
        let events = try h.events()
        let report = HistoryChecker.check(events)
        XCTAssertEqual(report.violations.map(\.rule), [.versionsIncrease])
        let summary = RaceSummary(events: events, report: report)
        XCTAssertEqual(summary.races, 0)
        XCTAssertEqual(summary.origins, [.init(call: nil, race: nil, offset: nil)])
        XCTAssertNil(summary.likeliestToReplay(.versionsIncrease, in: report))
    }
}
