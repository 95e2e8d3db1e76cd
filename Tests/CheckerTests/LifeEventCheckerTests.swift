@testable import Checker
import XCTest

/// `life-event-takes-effect` (issue 37): what the phone's life made a device tell its server (the step
/// `life.<event>`) must take effect there. A correct server passes; one that answers an interrupted end but keeps
/// the device joined, or a hold but keeps it active, is named; the same end outside a life event is not this rule's.
final class LifeEventCheckerTests: XCTestCase {
    /// Adam answers Ryan, then `adamActs` (`kind`, the answer's view) under `step`.
    private func history(_ kind: String, step: String?, answer: String) throws -> CheckReport {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let op = h.invoke("adam", kind, "A")
        if let step {
            h.lines[h.lines.count - 1] = String(h.lines[h.lines.count - 1].dropLast()) + ",\"step\":\"\(step)\"}"
        }
        h.complete(op, view: answer)
        return HistoryChecker.check(try h.events(), policy: .reference)
    }

    func testACorrectServerTakesTheInterruptedEndAndHold() throws {
        XCTAssertEqual(try history("end", step: "life.interrupted",
                                   answer: view("A", 3, "ryan:left adam:left", ended: true)).violations, [])
        XCTAssertEqual(try history("pause", step: "life.interrupted",
                                   answer: view("A", 3, "ryan:joined adam:held")).violations, [])
        XCTAssertEqual(try history("end", step: "life.manager_reset",
                                   answer: view("A", 3, "ryan:joined adam:left")).violations, [])
    }

    func testAnInterruptedDeviceKeptJoinedIsFoundAndNamed() throws {
        let report = try history("end", step: "life.interrupted", answer: view("A", 3, "ryan:joined adam:joined"))
        XCTAssertEqual(report.violations.map(\.rule), [.lifeEventTakesEffect], "\(report.violations)")
        XCTAssertEqual(report.violations.first?.devices, ["adam"])
        XCTAssertTrue(report.violations.first?.message.contains("interrupted") == true)
        let held = try history("pause", step: "life.interrupted", answer: view("A", 3, "ryan:joined adam:joined"))
        XCTAssertEqual(held.violations.map(\.rule), [.lifeEventTakesEffect], "\(held.violations)")
    }

    func testTheSameAnswerToAnEndNoLifeEventMadeIsNotThisRules() throws {
        let report = try history("end", step: "hangup", answer: view("A", 3, "ryan:joined adam:joined"))
        XCTAssertFalse(report.violations.contains { $0.rule == .lifeEventTakesEffect }, "\(report.violations)")
    }
}
