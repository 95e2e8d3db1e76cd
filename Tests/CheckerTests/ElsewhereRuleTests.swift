import CallModel
@testable import Checker
import RunFormats
import XCTest

/// `elsewhere-stops-ringing` (users with several devices, issue 36): after a device of a user answered or declined
/// a conversation, the user's other devices stop ringing it within the grace; the finding names the device, the
/// user and the conversation.
final class ElsewhereRuleTests: XCTestCase {
    private let ms: UInt64 = 1_000_000
    private let policy: ServerPolicy = {
        var p = ServerPolicy.reference
        p.elsewhereGraceNanos = 1_000_000_000
        return p
    }()

    private func view(_ states: [(String, MemberState)], ended: Bool = false) -> ConversationView {
        ConversationView(uuid: "c1", version: 3, ended: ended,
                         members: states.map { ConversationView.Member(device: $0.0, state: $0.1) })
    }

    /// dev-0 calls user-1 (dev-1, dev-3); dev-1 answers at 150 ms.
    private func answered(op kind: ActionKind = .join) -> [HistoryEvent] {
        [
            HistoryEvent(t: 0, .push(Push(device: "dev-1", event: .voip, conversation: "c1", user: "user-1"))),
            HistoryEvent(t: 0, .push(Push(device: "dev-3", event: .voip, conversation: "c1", user: "user-1"))),
            HistoryEvent(t: 100 * ms, .invoke(Invoke(op: 1, device: "dev-1", kind: kind, conversation: "c1",
                                                     user: "user-1"))),
            HistoryEvent(t: 150 * ms, .complete(Complete(op: 1, outcome: .ok, conversation: "c1"))),
        ]
    }

    /// SIP devices ring without a push when awake: an early dialog rings until it is confirmed or terminated
    /// (the proxy's CANCEL with its Reason); one left early past the grace is named.
    func testASIPDeviceRingsFromItsEarlyDialogUntilItEnds() {
        func dialog(_ t: UInt64, _ device: String, _ state: DialogState, _ reason: String? = nil) -> HistoryEvent {
            HistoryEvent(t: t * ms, .dialog(DialogLine(device: device, conversation: "c1", state: state,
                                                       reason: reason, user: "user-1")))
        }
        let rang = [dialog(0, "dev-1", .early), dialog(0, "dev-3", .early),
                    HistoryEvent(t: 100 * ms, .invoke(Invoke(op: 1, device: "dev-1", kind: .join, conversation: "c1",
                                                             user: "user-1"))),
                    HistoryEvent(t: 150 * ms, .complete(Complete(op: 1, outcome: .ok, conversation: "c1"))),
                    dialog(150, "dev-1", .confirmed)]
        let cancelled = rang + [dialog(160, "dev-3", .terminated, "joined_elsewhere"),
                                HistoryEvent(t: 5_000 * ms, .stop)]
        XCTAssertEqual(ElsewhereRule(events: cancelled, graceNanos: 1_000 * ms, declineKeepsRinging: false).check(), [])
        let left = rang + [HistoryEvent(t: 5_000 * ms, .stop)]
        let found = ElsewhereRule(events: left, graceNanos: 1_000 * ms, declineKeepsRinging: false).check()
        XCTAssertEqual(found.map(\.devices), [["dev-3", "dev-1"]])
    }

    func testTheOtherDeviceEndingWithinTheGracePasses() {
        let ended = view([("dev-0", .joined), ("dev-1", .joined), ("dev-3", .left)])
        let events = answered() + [HistoryEvent(t: 300 * ms, .push(Push(
            device: "dev-3", event: .ended, conversation: "c1", view: ended, user: "user-1"))),
            HistoryEvent(t: 5_000 * ms, .stop)]
        let report = HistoryChecker.check(events, policy: policy)
        XCTAssertEqual(report.violations.filter { $0.rule == .elsewhereStopsRinging }, [])
        XCTAssertTrue(report.rulesChecked.contains(.elsewhereStopsRinging))
    }

    func testADeviceThatNeverStopsRingingNamesTheDeviceTheUserAndTheConversation() {
        let events = answered() + [HistoryEvent(t: 5_000 * ms, .stop)]
        let found = HistoryChecker.check(events, policy: policy).violations.filter { $0.rule == .elsewhereStopsRinging }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.devices, ["dev-3", "dev-1"])
        XCTAssertEqual(found.first?.conversations, ["c1"])
        XCTAssertEqual(found.first?.ops, [1])
        XCTAssertTrue(found.first?.message.contains("dev-3 of user-1") == true, found.first?.message ?? "")
    }

    func testAnEndPastTheGraceIsAViolationAndAHistoryThatStopsWithinItIsNot() {
        let late = answered() + [HistoryEvent(t: 1_500 * ms, .push(Push(
            device: "dev-3", event: .ended, conversation: "c1", user: "user-1")))]
        XCTAssertEqual(ElsewhereRule(events: late, graceNanos: 1_000 * ms, declineKeepsRinging: false).check().count, 1)
        let short = answered() + [HistoryEvent(t: 900 * ms, .stop)]
        XCTAssertEqual(ElsewhereRule(events: short, graceNanos: 1_000 * ms, declineKeepsRinging: false).check(), [],
                       "not judged before the grace ran out")
    }

    func testAFinalViewStillRingingWhatTheServerShowsLeftIsAViolation() {
        let final = Final(device: "dev-3", conversation: "c1",
                          server: view([("dev-0", .joined), ("dev-1", .joined), ("dev-3", .left)]),
                          local: LocalView(state: .ringing, members: ["dev-0"], active: []), user: "user-1")
        let events = answered() + [HistoryEvent(t: 300 * ms, .push(Push(
            device: "dev-3", event: .ended, conversation: "c1", user: "user-1"))),
            HistoryEvent(t: 400 * ms, .final(final))]
        let found = ElsewhereRule(events: events, graceNanos: 1_000 * ms, declineKeepsRinging: false).check()
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found.first?.message.contains("final view still rings") == true, found.first?.message ?? "")
    }

    func testADeclineWithAKeepRingingPolicyIsNotJudgedAndDevicesWithoutUsersNeverAre() {
        let declined = answered(op: .end) + [HistoryEvent(t: 5_000 * ms, .stop)]
        XCTAssertEqual(ElsewhereRule(events: declined, graceNanos: 1_000 * ms, declineKeepsRinging: true).check(), [])
        XCTAssertEqual(ElsewhereRule(events: declined, graceNanos: 1_000 * ms, declineKeepsRinging: false).check()
            .count, 1, "declinedElsewhere is due")
        let plain = answered().map { event -> HistoryEvent in
            var e = event
            switch e.body {
            case .push(var p): p.user = nil; e.body = .push(p)
            case .invoke(var i): i.user = nil; e.body = .invoke(i)
            default: break
            }
            return e
        } + [HistoryEvent(t: 5_000 * ms, .stop)]
        XCTAssertEqual(ElsewhereRule(events: plain, graceNanos: 1_000 * ms, declineKeepsRinging: false).check(), [])
    }
}

/// History lines with users (`users:`): `"user"` after `"device"` on invoke, push and final lines, read back; lines
/// without users are written as before and read with no user.
final class UserHistoryLineTests: XCTestCase {
    private func line(_ write: (inout [UInt8]) -> Void) -> Substring {
        var bytes: [UInt8] = []
        write(&bytes)
        return Substring(String(decoding: bytes, as: UTF8.self))
    }

    func testUserIdsComeBackAndOldLinesHaveNone() throws {
        let view = ConversationView(uuid: "c1", version: 2, members: [.init(device: "dev-3", state: .left)])
        let written = [
            line { HistoryText.invoke(t: 1, op: 1, device: "dev-3", kind: .join, conversation: "c1", with: nil,
                                      member: nil, user: "user-1", into: &$0) },
            line { HistoryText.push(t: 2, device: "dev-3", event: "voip", conversation: "c1", into: nil, view: view,
                                    user: "user-1", into: &$0) },
            line { HistoryText.final(t: 3, device: "dev-3", conversation: "c1", server: view,
                                     local: (state: "left", members: [], active: []), user: "user-1", into: &$0) },
            line { HistoryText.push(t: 4, device: "dev-4", event: "voip", conversation: "c1", into: nil, view: nil,
                                    into: &$0) },
        ]
        XCTAssertTrue(written[0].hasPrefix("{\"t\":1,\"type\":\"invoke\",\"op\":1,\"device\":\"dev-3\",\"user\":\"user-1\","),
                      String(written[0]))
        XCTAssertFalse(written[3].contains("user"), "no users: the line as before")
        let events = try HistoryReader.parse(lines: written)
        guard case .invoke(let invoke) = events[0].body, case .push(let push) = events[1].body,
              case .final(let final) = events[2].body, case .push(let old) = events[3].body else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual([invoke.user, push.user, final.user], ["user-1", "user-1", "user-1"])
        XCTAssertNil(old.user)
    }
}
