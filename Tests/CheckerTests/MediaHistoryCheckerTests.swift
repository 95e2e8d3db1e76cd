import CallModel
@testable import Checker
import RunFormats
import XCTest

extension HistoryBuilder {
    /// A `media` line as the driver writes it (`HistoryText.media`).
    mutating func media(_ device: String, _ conversation: String, _ finding: String, call: Int? = nil) {
        t += 100
        var s = "{\"t\":\(t),\"type\":\"media\",\"device\":\"\(device)\",\"conversation\":\"\(conversation)\","
        s += "\"reason\":\"\(finding)\""
        if let call { s += ",\"call\":\(call)" }
        lines.append(s + "}")
    }
}

/// The media rules (`joined-member-sends-media`, `held-member-sends-no-media`) on hand-written SIP histories: a
/// device connected to a joined peer that hears nothing is a finding, one that holds hears nothing is not; a holder
/// that still hears its peer past the threshold is a finding, a connected one is not.
final class MediaHistoryCheckerTests: XCTestCase {
    private func connected(_ h: inout HistoryBuilder) {
        h.dialog("bob", "c1", "early", call: 3)
        h.dialog("alice", "c1", "early", call: 3)
        h.dialog("bob", "c1", "confirmed", call: 3)
        h.dialog("alice", "c1", "confirmed", call: 3)
    }

    private func rules(_ h: HistoryBuilder) throws -> [Rule] {
        HistoryChecker.check(try h.events(), policy: .reference).violations.map(\.rule)
    }

    func testAConnectedDeviceThatHearsNothingFromItsJoinedPeerIsAFinding() throws {
        var h = HistoryBuilder()
        connected(&h)
        h.media("alice", "c1", "silent", call: 3)
        let report = HistoryChecker.check(try h.events(), policy: .reference)
        XCTAssertEqual(report.violations.map(\.rule), [.joinedMemberSendsMedia])
        let v = try XCTUnwrap(report.violations.first)
        XCTAssertEqual(v.devices, ["alice", "bob"])
        XCTAssertEqual(v.conversations, ["c1"])
        XCTAssertTrue(v.message.contains("alice's call c1 is connected"), v.message)
        XCTAssertEqual(v.events, [3, 4], "alice's confirmed line and the media line")
    }

    func testSilenceFromAPeerThatHoldsOrHungUpIsNoFinding() throws {
        var held = HistoryBuilder()
        connected(&held)
        held.dialog("bob", "c1", "held", call: 3)
        held.media("alice", "c1", "silent", call: 3)
        XCTAssertEqual(try rules(held), [])

        var ended = HistoryBuilder()
        connected(&ended)
        ended.dialog("bob", "c1", "terminated", reason: "bye", call: 3)
        ended.media("alice", "c1", "silent", call: 3)
        ended.dialog("alice", "c1", "terminated", reason: "remote_bye", call: 3)
        XCTAssertEqual(try rules(ended), [])
    }

    func testAHolderThatKeepsHearingItsPeerIsAFindingAndAConnectedOneIsNot() throws {
        var h = HistoryBuilder()
        connected(&h)
        h.dialog("alice", "c1", "held", call: 3)
        h.media("alice", "c1", "flowing_while_held", call: 3)
        XCTAssertEqual(try rules(h), [.heldMemberSendsNoMedia])

        var resumed = HistoryBuilder()
        connected(&resumed)
        resumed.media("alice", "c1", "flowing_while_held", call: 3)
        XCTAssertEqual(try rules(resumed), [], "not held at that line")
    }

    /// What the driver writes (`HistoryText.media`) reads back as the same line, every finding.
    func testTheWrittenMediaLineReadsBack() throws {
        for finding in HistoryMediaFinding.allCases {
            var bytes: [UInt8] = []
            HistoryText.media(t: 7, device: "dev-\"1", conversation: "c@h", finding: finding, call: 4, into: &bytes)
            let events = try HistoryReader.parse(lines: [Substring(decoding: bytes, as: UTF8.self)])
            XCTAssertEqual(events.first?.body, .media(MediaLine(device: "dev-\"1", conversation: "c@h",
                                                                finding: finding, call: 4)))
            XCTAssertEqual(events.first?.t, 7)
        }
    }

    func testAnUnknownMediaFindingIsAnErrorAtItsLine() {
        var h = HistoryBuilder()
        connected(&h)
        h.media("alice", "c1", "quiet")
        XCTAssertThrowsError(try h.events()) { error in
            XCTAssertTrue("\(error)".contains("unknown media finding \"quiet\""), "\(error)")
        }
    }
}
