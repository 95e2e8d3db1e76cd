import Foundation
import XCTest
@testable import Reports

/// report.html's Races section: rules checked, violations by rule, a heat strip per offset, the pairs, timelines.
final class RacesSectionTests: XCTestCase {
    private func section() -> RacesSection {
        RacesSection(
            operations: 1200, indeterminate: 2,
            rules: [.init(rule: "merge-yields-union", violations: 3), .init(rule: "versions-only-increase",
                                                                            violations: 0)],
            races: 30,
            offsets: [.init(offsetNanos: -1_000_000, races: 10, violations: 0, racesWithViolations: 0),
                      .init(offsetNanos: 0, races: 10, violations: 1, racesWithViolations: 1),
                      .init(offsetNanos: 1_000_000, races: 10, violations: 2, racesWithViolations: 2)],
            pairs: [.init(name: "merge-vs-end/clash", label: "merge vs end", races: 30, violations: 3,
                          racesWithViolations: 3, violationsByRule: ["merge-yields-union": 3])],
            timelines: [.init(number: 1, rule: "merge-yields-union", message: "lost <end>", offsetNanos: 1_000_000,
                              svg: "<svg id=\"t1\"></svg>")],
            repros: [1])
    }

    func testSectionShowsRulesOffsetsPairsAndTimelines() {
        let html = section().html()
        XCTAssertTrue(html.contains("<h2>Races</h2>"))
        XCTAssertTrue(html.contains("30 races fired, <strong>3 violations</strong>"), html)
        XCTAssertTrue(html.contains("<tr class=\"failed\"><th scope=\"row\"><code>merge-yields-union</code></th>"
            + "<td>invariant</td><td>3</td>"), html)
        XCTAssertTrue(html.contains("<code>versions-only-increase</code></th><td>invariant</td><td>0</td>"), html)
        // One heat-strip cell per offset; the cell without violations stays white.
        XCTAssertEqual(html.components(separatedBy: "<rect ").count - 1, 3)
        XCTAssertTrue(html.contains("fill=\"#ffffff\" stroke=\"#bbb\"><title>offset -1 ms: 10 races, 0 with a violation"))
        XCTAssertTrue(html.contains("<title>offset 1 ms: 10 races, 2 with a violation, 2 violations</title>"))
        XCTAssertTrue(html.contains("<td>merge vs end</td><td>30</td><td>3</td><td>3</td>"), html)
        XCTAssertTrue(html.contains("at offset 1 ms: lost &lt;end&gt;"), html)
        XCTAssertTrue(html.contains("callstorm replay repro-1.yaml --repeat 10"))
        XCTAssertTrue(html.contains("<svg id=\"t1\"></svg>"))
    }

    func testReportIncludesTheSectionOnlyWhenTheRunWasChecked() throws {
        var result = ReportFixtures.result()
        XCTAssertFalse(HTMLReport(result).render().contains("id=\"races\""))
        result.races = section()
        XCTAssertTrue(HTMLReport(result).render().contains("<section id=\"races\">"))
    }

    func testSectionRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(section())
        XCTAssertEqual(try JSONDecoder().decode(RacesSection.self, from: data), section())
    }

    func testSkippedPolicyRuleSaysItIsAPolicyAndWhy() {
        var races = section()
        races.skipped = ["unmerge-follows-policy": "no unmerge policy declared (target.policy.unmerge: …)"]
        let html = races.html()
        XCTAssertTrue(html.contains("Not checked (policy): <code>unmerge-follows-policy</code>: no unmerge policy "
            + "declared (target.policy.unmerge: …)."), html)
    }
}
