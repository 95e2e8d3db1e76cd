import CallModel
import Foundation
import XCTest
@testable import Checker

final class HistoryCheckerTests: XCTestCase {
    // MARK: - Helpers

    /// Checked as a run against the reference target is: its policy declared, so every rule runs.
    private func check(_ h: HistoryBuilder, policy: ServerPolicy = .reference,
                       file: StaticString = #filePath, line: UInt = #line) throws -> CheckReport {
        let report = HistoryChecker.check(try h.events(), policy: policy)
        XCTAssertEqual(report.rulesChecked, Rule.allCases, file: file, line: line)
        return report
    }

    /// Asserts the report breaks `rule` and no other, and returns its violations of it.
    @discardableResult
    private func assertOnly(_ rule: Rule, in report: CheckReport, ops: [Int]? = nil,
                            file: StaticString = #filePath, line: UInt = #line) -> [Violation] {
        XCTAssertEqual(Set(report.violations.map(\.rule)), [rule],
                       report.violations.map { "\($0.rule.rawValue): \($0.message)" }.joined(separator: "\n"),
                       file: file, line: line)
        if let ops, let first = report.violations.first {
            XCTAssertEqual(Set(first.ops), Set(ops), first.message, file: file, line: line)
        }
        for v in report.violations {
            XCTAssertFalse(v.events.isEmpty, file: file, line: line)
            XCTAssertEqual(v.events, v.events.sorted(), file: file, line: line)
        }
        return report.violations
    }

    private func assertPasses(_ report: CheckReport, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.violations, [],
                       report.violations.map { "\($0.rule.rawValue): \($0.message)" }.joined(separator: "\n"),
                       file: file, line: line)
    }

    /// Ryan in a call with Adam (A v2), holding it; and in a call with Bob (B v2), joined.
    private func ryanInTwoCalls() -> HistoryBuilder {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.call("ryan", "pause", "A", view: view("A", 3, "ryan:held adam:joined"))
        h.call("ryan", "start", view: view("B", 1, "ryan:joined bob:ringing"))
        h.call("bob", "join", "B", view: view("B", 2, "ryan:joined bob:joined"))
        return h
    }

    // MARK: - A correct history

    /// WWDC26 session 226's story: Ryan in a group with Adam and David holds it, calls Andre, merges, unmerges
    /// Andre, and everyone hangs up.
    static func seedStory() -> HistoryBuilder {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:ringing david:ringing"))
        h.push("adam", "voip", "G")
        h.push("david", "voip", "G")
        h.call("adam", "join", "G", view: view("G", 2, "ryan:joined adam:joined david:ringing"))
        h.push("ryan", "joined", "G", view: view("G", 2, "ryan:joined adam:joined david:ringing"))
        h.call("david", "join", "G", view: view("G", 3, "ryan:joined adam:joined david:joined"))
        h.push("ryan", "joined", "G", view: view("G", 3, "ryan:joined adam:joined david:joined"))
        h.push("adam", "joined", "G", view: view("G", 3, "ryan:joined adam:joined david:joined"))
        h.call("ryan", "pause", "G", view: view("G", 4, "ryan:held adam:joined david:joined"))
        h.call("ryan", "start", view: view("C", 1, "ryan:joined andre:ringing"))
        h.push("andre", "voip", "C")
        h.call("andre", "join", "C", view: view("C", 2, "ryan:joined andre:joined"))
        h.push("ryan", "joined", "C", view: view("C", 2, "ryan:joined andre:joined"))
        let merged = view("G", 5, "ryan:joined adam:joined david:joined andre:joined")
        // The members' pushes may beat Ryan's response; the checker must not mind.
        let merge = h.invoke("ryan", "merge", "G", with: "C")
        h.push("andre", "merged", "C", into: "G", view: merged)
        h.push("adam", "updated", "G", view: merged)
        h.complete(merge, view: merged)
        h.push("david", "updated", "G", view: merged)
        h.call("ryan", "unmerge", "G", member: "andre",
               view: view("G", 6, "ryan:joined adam:joined david:joined andre:left"),
               split: view("S", 1, "ryan:held andre:joined"))
        h.push("andre", "split", "S", view: view("S", 1, "ryan:held andre:joined"))
        h.push("adam", "updated", "G", view: view("G", 6, "ryan:joined adam:joined david:joined andre:left"))
        h.call("andre", "end", "S", view: view("S", 2, "ryan:left andre:left", ended: true))
        h.push("ryan", "ended", "S", view: view("S", 2, "ryan:left andre:left", ended: true))
        h.call("ryan", "end", "G", view: view("G", 7, "ryan:left adam:joined david:joined andre:left"))
        h.push("adam", "updated", "G", view: view("G", 7, "ryan:left adam:joined david:joined andre:left"))
        let over = view("G", 8, "ryan:left adam:left david:left andre:left", ended: true)
        h.call("adam", "end", "G", view: over)
        h.push("david", "ended", "G", view: over)
        for d in ["ryan", "adam", "david", "andre"] { h.final(d, "G", server: over, state: "left") }
        h.final("ryan", "C", server: view("C", 3, "ryan:left andre:left", ended: true), state: "left")
        h.final("andre", "C", server: view("C", 3, "ryan:left andre:left", ended: true), state: "left")
        h.final("ryan", "S", server: view("S", 2, "ryan:left andre:left", ended: true), state: "left")
        h.final("andre", "S", server: view("S", 2, "ryan:left andre:left", ended: true), state: "left")
        h.stop()
        return h
    }

    func testSeedStoryPassesWithNoViolations() throws {
        let report = try check(Self.seedStory())
        assertPasses(report)
        XCTAssertEqual(report.operations, 11)
        XCTAssertEqual(report.indeterminate, 0)
    }

    func testFinalViewsThatAgreeWhileTheCallGoesOnPass() throws {
        var h = ryanInTwoCalls()
        // Active means media flowing: Ryan's held call has no active remote members, and Ryan, held, is a member
        // of Adam's call but not an active one (the seed: "only active on the one with Andre").
        h.final("ryan", "A", server: view("A", 3, "ryan:held adam:joined"), state: "held", members: ["adam"],
                active: [])
        h.final("adam", "A", server: view("A", 3, "ryan:held adam:joined"), state: "joined", members: ["ryan"],
                active: [])
        assertPasses(try check(h))
    }

    func testHeldMemberCountedActiveIsAViolation() throws {
        var h = ryanInTwoCalls()
        h.final("adam", "A", server: view("A", 3, "ryan:held adam:joined"), state: "joined", members: ["ryan"],
                active: ["ryan"])
        let violations = assertOnly(.finalViewsAgree, in: try check(h))
        XCTAssertTrue(violations[0].message.contains("active: device [ryan], server []"), violations[0].message)
    }

    func testActiveMembersSeenFromOwnHeldConversationIsAViolation() throws {
        var h = ryanInTwoCalls()
        h.final("ryan", "A", server: view("A", 3, "ryan:held adam:joined"), state: "held", members: ["adam"],
                active: ["adam"])
        let violations = assertOnly(.finalViewsAgree, in: try check(h))
        XCTAssertEqual(violations[0].devices, ["ryan"])
    }

    // MARK: - every-action-has-one-outcome

    func testSecondCompleteOfAnActionIsAViolation() throws {
        var h = HistoryBuilder()
        let start = h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        let join = h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.complete(join, "fail", reason: "timeout")
        let violations = assertOnly(.oneOutcome, in: try check(h), ops: [join])
        XCTAssertEqual(violations.count, 1)
        XCTAssertEqual(violations[0].devices, ["adam"])
        XCTAssertEqual(violations[0].events, [2, 3, 4])
        XCTAssertEqual(violations[0].window, 300...500)
        XCTAssertNotEqual(start, join)
    }

    /// The lost update the merge-lost-update bug makes: Adam's end of B and Ryan's merge of B into A are both
    /// fulfilled, yet the merge result still has Adam in it.
    func testMergeThatBringsBackAMemberWhoseEndWasFulfilledIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("B", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "B", view: view("B", 2, "ryan:joined adam:joined"))
        h.call("ryan", "pause", "B", view: view("B", 3, "ryan:held adam:joined"))
        h.call("ryan", "start", view: view("A", 1, "ryan:joined andre:ringing"))
        h.call("andre", "join", "A", view: view("A", 2, "ryan:joined andre:joined"))
        let merge = h.invoke("ryan", "merge", "A", with: "B")
        let end = h.invoke("adam", "end", "B")
        h.complete(end, view: view("B", 4, "ryan:held adam:left", ended: true))
        h.complete(merge, view: view("A", 3, "ryan:joined andre:joined adam:joined"))
        assertOnly(.mergeUnion, in: try check(h), ops: [merge, end])
    }

    func testCompleteWithoutInvokeIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.complete(42, "ok", view: view("A", 2, "ryan:joined adam:joined"))
        assertOnly(.oneOutcome, in: try check(h), ops: [42])
    }

    func testInvokeWithoutCompleteBeforeStopIsIndeterminateNotAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.invoke("adam", "join", "A")
        h.stop()
        let report = try check(h)
        assertPasses(report)
        XCTAssertEqual(report.indeterminate, 1)
    }

    // MARK: - merge-yields-union

    func testMergeThatLosesAMemberIsAViolation() throws {
        var h = ryanInTwoCalls()
        let merge = h.call("ryan", "merge", "B", with: "A", view: view("B", 3, "ryan:joined bob:joined"))
        let violations = assertOnly(.mergeUnion, in: try check(h), ops: [merge])
        XCTAssertEqual(violations.count, 1)
        XCTAssertTrue(violations[0].devices.contains("adam"))
        XCTAssertEqual(violations[0].conversations, ["B", "A"])
        XCTAssertTrue(violations[0].message.contains("lost adam"), violations[0].message)
    }

    func testMergedAwayConversationSeenLiveLaterIsAViolation() throws {
        var h = ryanInTwoCalls()
        let merge = h.call("ryan", "merge", "B", with: "A", view: view("B", 3, "ryan:joined bob:joined adam:joined"))
        h.final("adam", "A", server: view("A", 4, "ryan:left adam:joined"), state: "joined")
        assertOnly(.mergeUnion, in: try check(h), ops: [merge])
    }

    /// Which conversation survives a merge is the server's choice: the response's view names it.
    func testMergeThatKeepsTheOtherConversationIsJudgedOnTheSurvivor() throws {
        var h = ryanInTwoCalls()
        h.call("ryan", "merge", "B", with: "A", view: view("A", 4, "ryan:joined bob:joined adam:joined"))
        h.final("bob", "B", server: view("B", 3, "ryan:left bob:left", ended: true), state: "left")
        assertPasses(try check(h))
        var lost = ryanInTwoCalls()
        let merge = lost.call("ryan", "merge", "B", with: "A", view: view("A", 4, "ryan:joined adam:joined"))
        let violations = assertOnly(.mergeUnion, in: try check(lost), ops: [merge])
        XCTAssertTrue(violations[0].message.contains("lost bob"), violations[0].message)
        var revived = ryanInTwoCalls()
        let again = revived.call("ryan", "merge", "B", with: "A",
                                 view: view("A", 4, "ryan:joined bob:joined adam:joined"))
        revived.final("bob", "B", server: view("B", 3, "ryan:left bob:joined"), state: "joined")
        assertOnly(.mergeUnion, in: try check(revived), ops: [again])
    }

    func testMemberWhoHungUpDuringTheMergeMayBeMissing() throws {
        var h = ryanInTwoCalls()
        let merge = h.invoke("ryan", "merge", "B", with: "A")
        let end = h.invoke("adam", "end", "A")
        h.complete(merge, view: view("B", 3, "ryan:joined bob:joined"))
        h.complete(end, "fail", reason: "ended")
        // adam's end failed, so it did not take effect: adam was lost.
        assertOnly(.mergeUnion, in: try check(h), ops: [merge])

        var ok = ryanInTwoCalls()
        let merge2 = ok.invoke("ryan", "merge", "B", with: "A")
        let end2 = ok.invoke("adam", "end", "A")
        ok.complete(end2, view: view("A", 4, "ryan:held adam:left"))
        ok.complete(merge2, view: view("B", 3, "ryan:joined bob:joined"))
        // The end fulfilled concurrently: a server may serialize it first. (It would have ended A, so the merge
        // then fails on a correct server, but the union rule itself has no complaint.)
        XCTAssertFalse(try check(ok).violations.contains { $0.rule == .mergeUnion })
    }

    // MARK: - no-device-active-in-two-unheld-conversations

    func testDeviceJoinedInTwoLiveConversationsIsAViolation() throws {
        var h = HistoryBuilder()
        let join = h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let start = h.call("ryan", "start", view: view("B", 1, "ryan:joined bob:ringing"))
        let violations = assertOnly(.singleActive, in: try check(h), ops: [join, start])
        XCTAssertEqual(violations.count, 1)
        XCTAssertEqual(violations[0].devices, ["ryan"])
        XCTAssertEqual(Set(violations[0].conversations), ["A", "B"])
        XCTAssertEqual(violations[0].events, [1, 3])
    }

    func testHeldDeviceMayJoinAnotherConversation() throws {
        assertPasses(try check(ryanInTwoCalls()))
    }

    // MARK: - ended-conversation-never-reappears

    func testEndedConversationThatComesBackIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let end = h.call("adam", "end", "A", view: view("A", 3, "ryan:left adam:left", ended: true))
        h.push("ryan", "updated", "A", view: view("A", 4, "ryan:joined adam:left"))
        let violations = assertOnly(.endedStaysEnded, in: try check(h), ops: [end])
        XCTAssertEqual(violations.count, 1)
        XCTAssertEqual(violations[0].conversations, ["A"])
    }

    func testActionFulfilledOnEndedConversationIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let end = h.call("adam", "end", "A", view: view("A", 3, "ryan:left adam:left", ended: true))
        let pause = h.call("ryan", "pause", "A", view: view("A", 4, "ryan:left adam:left", ended: true))
        assertOnly(.endedStaysEnded, in: try check(h), ops: [end, pause])
    }

    func testMergeIntoConversationAlreadyMergedAwayIsAViolation() throws {
        var h = ryanInTwoCalls()
        let first = h.call("ryan", "merge", "B", with: "A", view: view("B", 3, "ryan:joined bob:joined adam:joined"))
        let second = h.call("bob", "merge", "B", with: "A", view: view("B", 4, "ryan:joined bob:joined adam:joined"))
        assertOnly(.endedStaysEnded, in: try check(h), ops: [first, second])
    }

    func testStalePushOfEndedConversationIsNotAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.call("adam", "end", "A", view: view("A", 3, "ryan:left adam:left", ended: true))
        h.push("ryan", "joined", "A", view: view("A", 2, "ryan:joined adam:joined"))  // delayed in flight
        assertPasses(try check(h))
    }

    // MARK: - unmerge-restores-member

    func testUnmergeThatLeavesTheMemberWithoutAConversationIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:joined andre:joined"))
        let unmerge = h.call("ryan", "unmerge", "G", member: "andre",
                             view: view("G", 2, "ryan:joined adam:joined andre:left"),
                             split: view("S", 1, "ryan:held andre:left"))
        let violations = assertOnly(.unmergeRestores, in: try check(h), ops: [unmerge])
        XCTAssertEqual(violations[0].devices, ["ryan", "andre"])
        XCTAssertEqual(violations[0].conversations, ["G", "S"])
    }

    func testUnmergeWithoutSplitConversationIsAViolationWhereOthersHaveOne() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:joined andre:joined bob:joined"))
        h.call("ryan", "unmerge", "G", member: "andre",
               view: view("G", 2, "ryan:joined adam:joined andre:left bob:joined"),
               split: view("S", 1, "ryan:held andre:joined"))
        let unmerge = h.call("ryan", "unmerge", "G", member: "bob",
                             view: view("G", 3, "ryan:joined adam:joined andre:left bob:left"))
        assertOnly(.unmergeRestores, in: try check(h), ops: [unmerge])
    }

    func testServerWhoseUnmergeAnswersNeverCarryASplitSkipsTheRule() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:joined andre:joined"))
        h.call("ryan", "unmerge", "G", member: "andre", view: view("G", 2, "ryan:joined adam:joined andre:left"))
        let report = HistoryChecker.check(try h.events(), policy: .reference)
        assertPasses(report)
        XCTAssertFalse(report.rulesChecked.contains(.unmergeRestores))
        XCTAssertNotNil(report.rulesSkipped?[Rule.unmergeRestores.rawValue])
    }

    func testUnmergeThatLeavesTheMemberInTheGroupIsAViolationUnderAnyPolicy() throws {
        for policy in ServerPolicy.Unmerge.allCases {
            var h = HistoryBuilder()
            h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:joined andre:joined"))
            let unmerge = h.call("ryan", "unmerge", "G", member: "andre",
                                 view: view("G", 2, "ryan:joined adam:joined andre:joined"),
                                 split: view("S", 1, "ryan:joined andre:joined"))
            let found = try check(h, policy: ServerPolicy(unmerge: policy)).violations.filter {
                $0.rule == .unmergeRestores
            }
            XCTAssertEqual(found.map(\.ops), [[unmerge]], policy.rawValue)
        }
    }

    // MARK: - unmerge-follows-policy

    /// The seed's story: Ryan and Andre go back to their own conversation, active together, and Ryan holds the
    /// group, where Adam and David carry on.
    private func unmergeHoldingTheGroup() -> (HistoryBuilder, Int) {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("G", 1, "ryan:joined adam:joined david:joined andre:joined"))
        let unmerge = h.call("ryan", "unmerge", "G", member: "andre",
                             view: view("G", 2, "ryan:held adam:joined david:joined andre:left"),
                             split: view("S", 1, "ryan:joined andre:joined"))
        h.final("adam", "G", server: view("G", 2, "ryan:held adam:joined david:joined andre:left"), state: "joined",
                members: ["ryan", "david"], active: ["david"])
        h.final("ryan", "G", server: view("G", 2, "ryan:held adam:joined david:joined andre:left"), state: "held",
                members: ["adam", "david"], active: [])
        h.final("ryan", "S", server: view("S", 1, "ryan:joined andre:joined"), state: "joined",
                members: ["andre"], active: ["andre"])
        return (h, unmerge)
    }

    func testUnmergeThatHoldsTheGroupPassesWhenThatIsTheDeclaredPolicy() throws {
        let (h, _) = unmergeHoldingTheGroup()
        assertPasses(try check(h, policy: ServerPolicy(unmerge: .holdGroup)))
    }

    func testUnmergeThatHoldsTheGroupBreaksOnlyTheReferencePolicy() throws {
        let (h, unmerge) = unmergeHoldingTheGroup()
        let violations = assertOnly(.unmergePolicy, in: try check(h, policy: .reference), ops: [unmerge])
        XCTAssertTrue(violations[0].message.contains("'hold-split'"), violations[0].message)
    }

    func testPolicyRuleWithoutADeclaredPolicyIsSkippedAndSaysSo() throws {
        let (h, _) = unmergeHoldingTheGroup()
        let report = HistoryChecker.check(try h.events(), policy: .undeclared)
        assertPasses(report)
        XCTAssertEqual(report.rulesChecked, Rule.allCases.filter { $0 != .unmergePolicy })
        XCTAssertTrue(report.rulesSkipped?[Rule.unmergePolicy.rawValue]?.contains("target.policy.unmerge") ?? false,
                      "\(String(describing: report.rulesSkipped))")
        XCTAssertEqual(Rule.unmergePolicy.kind, .policy)
        XCTAssertEqual(Rule.allCases.filter { $0.kind == .policy }, [.unmergePolicy])
    }

    func testSplitterThatStaysJoinedInTheGroupBreaksTheLeaveGroupPolicy() throws {
        let (h, unmerge) = unmergeHoldingTheGroup()
        let violations = assertOnly(.unmergePolicy, in: try check(h, policy: ServerPolicy(unmerge: .leaveGroup)),
                                    ops: [unmerge])
        XCTAssertTrue(violations[0].message.contains("ryan is held in G v2, not left"), violations[0].message)
    }

    // MARK: - versions-only-increase

    func testResponseVersionNotAboveAnEarlierResponseIsAViolation() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
        let join = h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let pause = h.call("ryan", "pause", "A", view: view("A", 2, "ryan:held adam:joined"))
        let violations = assertOnly(.versionsIncrease, in: try check(h), ops: [join, pause])
        XCTAssertEqual(violations[0].events, [2, 3, 4, 5])
    }

    func testOverlappingResponsesMayArriveInAnyVersionOrder() throws {
        var h = HistoryBuilder()
        h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing david:ringing"))
        let adam = h.invoke("adam", "join", "A")
        let david = h.invoke("david", "join", "A")
        h.complete(david, view: view("A", 3, "ryan:joined adam:joined david:joined"))
        h.complete(adam, view: view("A", 2, "ryan:joined adam:joined david:ringing"))
        assertPasses(try check(h))
    }

    // MARK: - final-views-agree-with-server

    func testDeviceViewDifferentFromServerAtTheEndIsAViolation() throws {
        var h = ryanInTwoCalls()
        h.final("ryan", "A", server: view("A", 3, "ryan:held adam:joined"), state: "joined", members: ["adam"],
                active: ["adam"])
        let violations = assertOnly(.finalViewsAgree, in: try check(h))
        XCTAssertEqual(violations[0].devices, ["ryan"])
        XCTAssertTrue(violations[0].message.contains("state: device joined, server held"), violations[0].message)
    }

    func testMissingMemberInDeviceViewIsAViolation() throws {
        var h = ryanInTwoCalls()
        h.final("bob", "B", server: view("B", 2, "ryan:joined bob:joined"), state: "joined")
        let violations = assertOnly(.finalViewsAgree, in: try check(h))
        XCTAssertTrue(violations[0].message.contains("members"), violations[0].message)
    }

    func testEndedConversationOnlyNeedsTheDeviceToHaveLeft() throws {
        var h = HistoryBuilder()
        h.final("ryan", "A", server: view("A", 9, "ryan:left adam:left", ended: true), state: "left",
                members: ["adam"], active: [])
        assertPasses(try check(h))
    }

    // MARK: - Indeterminate operations

    /// A timed-out end of A by Adam, then A is seen either still going or ended: both are acceptable.
    func testTimedOutEndAcceptsBothOutcomes() throws {
        for tookEffect in [false, true] {
            var h = HistoryBuilder()
            h.call("ryan", "start", view: view("A", 1, "ryan:joined adam:ringing"))
            h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
            let end = h.invoke("adam", "end", "A")
            h.complete(end, "info", reason: "timeout")
            let after = tookEffect ? view("A", 3, "ryan:left adam:left", ended: true)
                                   : view("A", 3, "ryan:held adam:joined")
            h.call("ryan", tookEffect ? "end" : "pause", "A", view: after)
            h.stop()
            let report = try check(h)
            assertPasses(report)
            XCTAssertEqual(report.indeterminate, 1)
        }
    }

    /// A timed-out merge of B with A: afterwards A is either still going with Adam in it, or ended with Adam in B.
    func testTimedOutMergeAcceptsBothOutcomes() throws {
        for tookEffect in [false, true] {
            var h = ryanInTwoCalls()
            let merge = h.invoke("ryan", "merge", "B", with: "A")
            h.complete(merge, "info", reason: "timeout")
            if tookEffect {
                let b = view("B", 3, "ryan:joined bob:joined adam:joined")
                h.push("adam", "merged", "A", into: "B", view: b)
                h.final("adam", "B", server: b, state: "joined", members: ["ryan", "bob"], active: ["ryan", "bob"])
                h.final("adam", "A", server: view("A", 4, "ryan:left adam:left", ended: true), state: "left")
            } else {
                h.final("adam", "A", server: view("A", 3, "ryan:held adam:joined"), state: "joined",
                        members: ["ryan"], active: [])
                h.final("bob", "B", server: view("B", 2, "ryan:joined bob:joined"), state: "joined",
                        members: ["ryan"], active: ["ryan"])
            }
            h.stop()
            let report = try check(h)
            assertPasses(report)
            XCTAssertEqual(report.indeterminate, 1)
        }
    }

    /// Ryan's pause of A times out and he starts B: whether or not the pause took effect, it is not judged.
    func testTimedOutPauseExcusesJoinedElsewhere() throws {
        var h = HistoryBuilder()
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        let pause = h.invoke("ryan", "pause", "A")
        h.complete(pause, "info", reason: "timeout")
        h.call("ryan", "start", view: view("B", 1, "ryan:joined bob:ringing"))
        assertPasses(try check(h))
    }

    // MARK: - Report

    func testReportEncodesRuleNamesAndWindows() throws {
        var h = HistoryBuilder()
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.call("ryan", "start", view: view("B", 1, "ryan:joined bob:ringing"))
        let data = try JSONEncoder().encode(try check(h))
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("no-device-active-in-two-unheld-conversations"), text)
        let back = try JSONDecoder().decode(CheckReport.self, from: data)
        XCTAssertEqual(back.violations.first?.window, 200...400)
    }
}
