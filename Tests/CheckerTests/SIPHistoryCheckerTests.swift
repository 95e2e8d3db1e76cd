import CallModel
@testable import Checker
import XCTest

/// The checker on SIP calls: `dialog` lines (each user agent's dialog per Call-ID) are judged by the same invariants
/// as conversations (`ended-conversation-never-reappears`, `no-device-active-in-two-unheld-conversations`,
/// `final-views-agree-with-server`) and by `dialog-confirmed-at-both-ends`; every outcome RFC 3261 allows a race
/// passes.
final class SIPHistoryCheckerTests: XCTestCase {
    private func check(_ h: HistoryBuilder, file: StaticString = #filePath, line: UInt = #line) throws -> CheckReport {
        let report = HistoryChecker.check(try h.events(), policy: .reference)
        XCTAssertEqual(report.rulesChecked, Rule.allCases, file: file, line: line)
        return report
    }

    private func rules(_ report: CheckReport) -> [Rule] { report.violations.map(\.rule) }

    private func describe(_ report: CheckReport) -> String {
        report.violations.map { "\($0.rule.rawValue): \($0.message)" }.joined(separator: "\n")
    }

    /// Alice calls Bob (Call-ID `c1`): both ring, Bob answers, Alice gets the 200.
    private func answered(_ h: inout HistoryBuilder, _ id: String = "c1", caller: String = "alice",
                          callee: String = "bob") {
        let start = h.invoke(caller, "start")
        h.sip(caller, id, sent: true, "INVITE")
        h.sip(callee, id, sent: false, "INVITE")
        h.dialog(callee, id, "early")
        h.complete(start)
        h.dialog(caller, id, "early")
        let join = h.invoke(callee, "join", id)
        h.dialog(callee, id, "confirmed")
        h.dialog(caller, id, "confirmed")
        h.sip(caller, id, sent: true, "ACK")
        h.complete(join)
    }

    /// `by` hangs up: BYE, the other end's dialog ends, the 200 ends the sender's.
    private func hangUp(_ h: inout HistoryBuilder, _ id: String = "c1", by: String = "alice", other: String = "bob") {
        let end = h.invoke(by, "end", id)
        h.dialog(other, id, "terminated", reason: "remote_bye")
        h.dialog(by, id, "terminated", reason: "bye")
        h.complete(end)
    }

    /// `caller` dials `callee`: the INVITE rings (the callee's dialog early), `start` is fulfilled, and the
    /// caller's dialog turns early on the 180 — the opening every SIP race below shares.
    private func ring(_ h: inout HistoryBuilder, _ caller: String, calls callee: String, _ conversation: String) {
        let start = h.invoke(caller, "start")
        h.dialog(callee, conversation, "early")
        h.complete(start)
        h.dialog(caller, conversation, "early")
    }

    func testACleanCallWithHoldAndResumePasses() throws {
        var h = HistoryBuilder()
        answered(&h)
        let pause = h.invoke("alice", "pause", "c1")
        h.dialog("alice", "c1", "held")
        h.complete(pause)
        let resume = h.invoke("alice", "resume", "c1")
        h.dialog("alice", "c1", "confirmed")
        h.complete(resume)
        hangUp(&h)
        h.stop()
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
        XCTAssertEqual(report.operations, 5)
    }

    func testAByedCallIDThatReappearsAsConfirmedIsNamed() throws {
        var h = HistoryBuilder()
        answered(&h)
        hangUp(&h)
        h.dialog("bob", "c1", "confirmed")  // a late 2xx re-created Bob's dialog after both ends terminated it
        let report = try check(h)
        // Named where it came back; the history then ends with the two ends disagreeing as well.
        XCTAssertEqual(rules(report), [.endedStaysEnded, .finalViewsAgree], describe(report))
        XCTAssertEqual(report.violations.first?.conversations, ["c1"])
        XCTAssertEqual(report.violations.first?.devices, ["bob"])
    }

    func testADeviceWhoseOwnTerminatedDialogComesBackIsNamedBeforeTheOtherEndEnds() throws {
        var h = HistoryBuilder()
        answered(&h)
        h.dialog("alice", "c1", "terminated", reason: "bye")
        h.dialog("alice", "c1", "confirmed")
        let report = HistoryChecker.check(try h.events())
        XCTAssertTrue(rules(report).contains(.endedStaysEnded), describe(report))
    }

    func testAnActionFulfilledOnACallBothEndsEndedIsNamed() throws {
        var h = HistoryBuilder()
        answered(&h)
        hangUp(&h)
        h.call("bob", "pause", "c1", view: "null")
        let report = try check(h)
        XCTAssertEqual(rules(report), [.endedStaysEnded], describe(report))
    }

    func testADeviceWithTwoUnheldConfirmedDialogsIsNamed() throws {
        var h = HistoryBuilder()
        answered(&h, "c1", caller: "alice", callee: "bob")
        answered(&h, "c2", caller: "carol", callee: "bob")
        let report = HistoryChecker.check(try h.events())
        XCTAssertEqual(rules(report), [.singleActive], describe(report))
        XCTAssertEqual(report.violations.first?.devices, ["bob"])
        XCTAssertEqual(Set(report.violations.first?.conversations ?? []), ["c1", "c2"])
    }

    func testHoldingTheFirstDialogBeforeTakingTheSecondPasses() throws {
        var h = HistoryBuilder()
        answered(&h, "c1", caller: "alice", callee: "bob")
        let pause = h.invoke("bob", "pause", "c1")
        h.dialog("bob", "c1", "held")
        h.complete(pause)
        answered(&h, "c2", caller: "carol", callee: "bob")
        hangUp(&h, "c2", by: "carol", other: "bob")
        hangUp(&h, "c1", by: "alice", other: "bob")
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
    }

    /// A forked call (issue 36): Bob's phone and tablet ring, the phone answers, the proxy CANCELs the tablet with
    /// its Reason (`joined_elsewhere`) and tells his Mac, woken after the answer, by a background push: the tablet
    /// was never the dialog's other end and the Mac's end is its own, so the call passes whole; a branch that
    /// ended any other way still leaves a confirmed dialog unmatched.
    func testBranchesOfAForkedCallEndedElsewhereAreNotTheDialogsOtherEnd() throws {
        for (reason, clean) in [("joined_elsewhere", true), ("declined_603", false)] {
            var h = HistoryBuilder()
            h.push("bob-mac", "voip", "c1")
            let start = h.invoke("alice", "start")
            h.dialog("bob-phone", "c1", "early")
            h.dialog("bob-pad", "c1", "early")
            h.complete(start)
            h.dialog("alice", "c1", "early")
            let join = h.invoke("bob-phone", "join", "c1")
            h.dialog("bob-phone", "c1", "confirmed")
            h.dialog("alice", "c1", "confirmed")
            h.complete(join)
            h.dialog("bob-pad", "c1", "terminated", reason: reason)
            h.push("bob-mac", "ended", "c1", reason: "joinedElsewhere")
            hangUp(&h, by: "alice", other: "bob-phone")
            h.stop()
            let report = try check(h)
            XCTAssertEqual(rules(report), clean ? [] : [.dialogConfirmedAtBothEnds], "\(reason): \(describe(report))")
        }
    }

    func testADialogLeftConfirmedOnOneSideIsNamed() throws {
        var h = HistoryBuilder()
        answered(&h)
        let end = h.invoke("alice", "end", "c1")
        h.dialog("alice", "c1", "terminated", reason: "bye")
        h.complete(end, "info", reason: "timed_out")  // Bob never ended his side
        h.stop()
        let report = try check(h)
        XCTAssertEqual(rules(report), [.finalViewsAgree], describe(report))
        XCTAssertEqual(Set(report.violations.first?.devices ?? []), ["alice", "bob"])
    }

    func testEndsThatDisagreeWhileAnActionIsStillOutAtStopPass() throws {
        var h = HistoryBuilder()
        answered(&h)
        h.invoke("alice", "end", "c1")
        h.dialog("alice", "c1", "terminated", reason: "bye")
        h.stop()  // the BYE was in flight when the run stopped
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
    }

    func testAnEndStillEarlyWhenTheHistoryEndsIsNotJudged() throws {
        var h = HistoryBuilder()
        // The callee took the CANCEL and answered 487; the caller's final response was still owed at stop (a proxy
        // waiting on another branch), and the callee's 200 of a second call was still on its way.
        ring(&h, "alice", calls: "bob", "c1")
        let cancel = h.invoke("alice", "end", "c1")
        h.dialog("bob", "c1", "terminated", reason: "cancelled")
        h.complete(cancel, "info")
        ring(&h, "carol", calls: "dave", "c2")
        let join = h.invoke("dave", "join", "c2")
        h.dialog("dave", "c2", "confirmed")
        h.complete(join, "info")
        h.stop()
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
    }

    func testBothOutcomesOfCancelRacingTheAnswerPass() throws {
        var h = HistoryBuilder()
        // The CANCEL wins: 487 at the caller, the callee's answer comes too late.
        ring(&h, "alice", calls: "bob", "c1")
        let cancel = h.invoke("alice", "end", "c1")
        let join = h.invoke("bob", "join", "c1")
        h.dialog("bob", "c1", "terminated", reason: "cancelled")
        h.complete(join, "fail", reason: "already_ended")
        h.dialog("alice", "c1", "terminated", reason: "cancelled")
        h.complete(cancel)
        // The 200 wins: the caller ACKs it and ends the call with a BYE.
        ring(&h, "carol", calls: "dave", "c2")
        let cancel2 = h.invoke("carol", "end", "c2")
        let join2 = h.invoke("dave", "join", "c2")
        h.dialog("dave", "c2", "confirmed")
        h.dialog("carol", "c2", "confirmed")
        h.complete(join2)
        h.dialog("dave", "c2", "terminated", reason: "remote_bye")
        h.dialog("carol", "c2", "terminated", reason: "bye")
        h.complete(cancel2)
        h.stop()
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
    }

    func testACancelThatUndoesAnAnsweredCallIsNamed() throws {
        var h = HistoryBuilder()
        ring(&h, "alice", calls: "bob", "c1")
        let cancel = h.invoke("alice", "end", "c1")
        let join = h.invoke("bob", "join", "c1")
        h.dialog("bob", "c1", "confirmed")  // Bob's 200 went out …
        h.complete(join)
        h.dialog("alice", "c1", "terminated", reason: "cancelled")  // … yet the caller took a 487
        h.complete(cancel)
        h.dialog("bob", "c1", "terminated", reason: "timed_out")
        h.stop()
        let report = try check(h)
        XCTAssertEqual(rules(report), [.dialogConfirmedAtBothEnds], describe(report))
        XCTAssertEqual(report.violations.first?.devices, ["bob", "alice"])
    }

    func testEveryOutcomeOfByeRacingAReInviteThatEndsBothSidesPasses() throws {
        for (n, reinvite) in [("ok", nil), ("fail", "sip_481"), ("fail", "sip_491"), ("fail", "already_ended")]
            .enumerated() {
            var h = HistoryBuilder()
            answered(&h)
            let bye = h.invoke("alice", "end", "c1")
            let pause = h.invoke("bob", "pause", "c1")
            if reinvite.0 == "ok" { h.dialog("bob", "c1", "held") }
            h.complete(pause, reinvite.0, reason: reinvite.1)
            h.dialog("bob", "c1", "terminated", reason: "remote_bye")
            h.dialog("alice", "c1", "terminated", reason: "bye")
            h.complete(bye)
            h.stop()
            let report = try check(h)
            XCTAssertEqual(report.violations, [], "outcome \(n): \(describe(report))")
        }
    }

    func testACallWithOneEndInTheHistoryIsNotJudgedForAgreement() throws {
        var h = HistoryBuilder()
        let start = h.invoke("alice", "start")
        h.complete(start)
        h.dialog("alice", "c1", "early")
        h.dialog("alice", "c1", "confirmed")  // answered by a party callstorm does not simulate
        h.stop()
        let report = try check(h)
        XCTAssertEqual(report.violations, [], describe(report))
    }
}
