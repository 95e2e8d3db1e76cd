import CallModel
@testable import Checker
import RunFormats
import XCTest

/// history.jsonl from its one writer (RunFormats' `HistoryText`) to its one reader (`HistoryReader`): every line
/// type comes back with what was written, ids and handles with commas, quotes, backslashes, line breaks and
/// non-ASCII text included.
final class HistoryRoundTripTests: XCTestCase {
    static let hostile = ["c-1", "call,7 \"x\"", "back\\slash", "two\nlines", "Ärger ☎ 🔥", "\u{1}ctl", "{\"t\":1}"]

    private func lines(_ writes: [(inout [UInt8]) -> Void]) -> [Substring] {
        writes.map { write in
            var bytes: [UInt8] = []
            write(&bytes)
            return Substring(String(decoding: bytes, as: UTF8.self))
        }
    }

    func testEveryLineTypeComesBackWithHostileIds() throws {
        for (n, id) in Self.hostile.enumerated() {
            let device = "dev-\(id)"
            var view = ConversationView(uuid: id, version: 4, members: [
                .init(device: device, state: .joined), .init(device: "dev-2,\"b\"", state: .held)])
            view.hasVersion = true
            let t = UInt64(n) * 10
            let written = lines([
                { HistoryText.invoke(t: t, op: 7, device: device, kind: .merge, conversation: id, with: id + "2",
                                     member: device, call: n, step: "step,\(id)", race: (name: id, offset: -3),
                                     into: &$0) },
                { HistoryText.complete(t: t + 1, op: 7, outcome: "ok", reason: id, conversation: id, view: view,
                                       split: view, into: &$0) },
                { HistoryText.push(t: t + 2, device: device, event: "merged", conversation: id, into: id, view: view,
                                   into: &$0) },
                { HistoryText.final(t: t + 3, device: device, conversation: id, server: view,
                                    local: (state: "joined", members: [device, id], active: [id]), into: &$0) },
                { HistoryText.targetKilled(t: t + 4, into: &$0) },
                { HistoryText.stop(t: t + 5, into: &$0) },
            ])
            let events = try HistoryReader.parse(lines: written)
            XCTAssertEqual(events.map(\.t), (0..<6).map { t + UInt64($0) }, id)
            XCTAssertEqual(events[0].body, .invoke(Invoke(op: 7, device: device, kind: .merge, conversation: id,
                                                          with: id + "2", member: device, call: n,
                                                          step: "step,\(id)", race: id, offset: -3)), id)
            XCTAssertEqual(events[1].body, .complete(Complete(op: 7, outcome: .ok, conversation: id, reason: id,
                                                              view: view, split: view)), id)
            XCTAssertEqual(events[2].body, .push(Push(device: device, event: .merged, conversation: id, into: id,
                                                      view: view)), id)
            XCTAssertEqual(events[3].body, .final(Final(device: device, conversation: id, server: view,
                                                        local: LocalView(state: .joined, members: [device, id],
                                                                         active: [id]))), id)
            XCTAssertEqual(events[4].body, .targetKilled, id)
            XCTAssertEqual(events[5].body, .stop, id)
        }
    }

    func testSIPLinesComeBackWithHostileIds() throws {
        for (n, id) in Self.hostile.enumerated() {
            let device = "dev-\(id)"
            let written = lines([
                { HistoryText.sip(t: 1, device: device, conversation: id, sent: n % 2 == 0, message: "200 INVITE",
                                  into: &$0) },
                { HistoryText.dialog(t: 2, device: device, conversation: id, state: .terminated, reason: id, call: n,
                                     into: &$0) },
                { HistoryText.dialog(t: 3, device: device, conversation: id, state: .held, reason: nil, call: nil,
                                     into: &$0) },
            ])
            let events = try HistoryReader.parse(lines: written)
            XCTAssertEqual(events.map(\.body), [
                .sip(SIPLine(device: device, conversation: id, sent: n % 2 == 0, message: "200 INVITE")),
                .dialog(DialogLine(device: device, conversation: id, state: .terminated, reason: id, call: n)),
                .dialog(DialogLine(device: device, conversation: id, state: .held)),
            ], id)
        }
    }

    /// Users (issue 36): a dialog line's user and an ended push's reason come back as written.
    func testADialogLinesUserAndAnEndedPushsReasonComeBack() throws {
        let events = try HistoryReader.parse(lines: lines([
            { HistoryText.dialog(t: 1, device: "dev-3", conversation: "c,1", state: .terminated,
                                 reason: "joined_elsewhere", call: 2, user: "user-\"2", into: &$0) },
            { HistoryText.push(t: 2, device: "dev-5", event: "ended", conversation: "c,1", into: nil, view: nil,
                               user: "user-\"2", reason: "joinedElsewhere", into: &$0) },
        ]))
        XCTAssertEqual(events.map(\.body), [
            .dialog(DialogLine(device: "dev-3", conversation: "c,1", state: .terminated, reason: "joined_elsewhere",
                               call: 2, user: "user-\"2")),
            .push(Push(device: "dev-5", event: .ended, conversation: "c,1", user: "user-\"2",
                       reason: "joinedElsewhere")),
        ])
    }

    func testADialogLineWithAnUnknownStateIsAnErrorAtItsLine() {
        let text = "{\"t\":1,\"type\":\"dialog\",\"device\":\"d\",\"conversation\":\"c\",\"state\":\"ringing\"}"
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(text)])) { error in
            XCTAssertTrue("\(error)".contains("unknown dialog state \"ringing\""), "\(error)")
        }
    }

    func testAViewWithoutAVersionComesBackWithoutOne() throws {
        var view = ConversationView(uuid: "c,1", version: 0, members: [.init(device: "d\"1", handle: nil, state: "left")])
        view.hasVersion = false
        view.ended = true
        let events = try HistoryReader.parse(lines: lines([
            { HistoryText.push(t: 1, device: "d\"1", event: "ended", conversation: "c,1", into: nil, view: view,
                               into: &$0) },
        ]))
        XCTAssertEqual(events.first?.body, .push(Push(device: "d\"1", event: .ended, conversation: "c,1", view: view)))
    }

    func testEveryWordTheWriterUsesIsOneTheReaderKnows() throws {
        for event in HistoryText.pushEvents.sorted() {
            let events = try HistoryReader.parse(lines: lines([
                { HistoryText.push(t: 1, device: "d", event: event, conversation: "c", into: nil, view: nil,
                                   into: &$0) },
            ]))
            guard case .push(let push) = events.first?.body else { return XCTFail(event) }
            XCTAssertEqual(push.event.rawValue, event)
        }
        for state in HistoryDialogState.allCases {
            let events = try HistoryReader.parse(lines: lines([
                { HistoryText.dialog(t: 1, device: "d", conversation: "c", state: state, reason: nil, call: nil,
                                     into: &$0) },
            ]))
            XCTAssertEqual(events.first?.body, .dialog(DialogLine(device: "d", conversation: "c", state: state)))
        }
    }
}
