import Metrics
@testable import Reports
import XCTest

/// The verdict's line on calls that did not complete in a chaos run: who they are put down to.
final class DeviceFindingsTests: XCTestCase {
    private func line(_ counters: [String: Int64]) -> String? {
        DeviceFindings.lines(counters: counters).first { $0.hasPrefix("calls not completed") }
    }

    func testCallsWithNoFaultOnTheirPathAreTheTargets() {
        let text = line([MetricName.callsAttributedToFaults: 3, MetricName.callsAttributed(to: "push.dropped"): 3,
                         MetricName.callsFailedWithoutFault: 1])
        XCTAssertEqual(text, "calls not completed: 3 attributed to injected faults (push.dropped 3); "
            + "1 with no injected fault on their path (the target's)")
    }

    func testWithOutsidePartiesTheRestIsNotPutOnTheTargetAlone() throws {
        let text = try XCTUnwrap(line([MetricName.callsFailedWithoutFault: 2, MetricName.callsStartedByOutside: 5]))
        XCTAssertTrue(text.hasSuffix("2 with no injected fault on their path (the target's, or an outside party's)"),
                      text)
    }

    func testWhenCallstormLaggedTheRestIsNotPutOnTheTargetAlone() throws {
        let text = try XCTUnwrap(DeviceFindings.faultAttributedCalls([MetricName.callsFailedWithoutFault: 2],
                                                                      harnessLagged: true))
        XCTAssertTrue(text.hasSuffix("(the target's, unless callstorm's own lag above explains them)"), text)
    }

    func testARunWhereEveryCallCompletedHasNoLine() {
        XCTAssertNil(line([MetricName.callsStartedByOutside: 5]))
    }

    func testDevicesThatRangOnAfterAnAnswerElsewhereAreTheServersDefect() throws {
        let text = try XCTUnwrap(DeviceFindings.lines(counters: [MetricName.elsewhereRingingAfterAnswer: 4,
                                                                 MetricName.elsewhereWrongReason: 1])
            .first { $0.contains("another device of the user") })
        XCTAssertEqual(text, "server defect: 4 devices rang on past the grace after the call was answered or declined "
            + "on another device of the user; 1 ended with another reason than joinedElsewhere/declinedElsewhere "
            + "(docs/USERS.md)")
        XCTAssertNil(DeviceFindings.elsewhere([MetricName.elsewhereEndDelay: 3]))
    }
}
