import Foundation
@testable import Driver
import SIPClient
import XCTest

/// The SIP mapping's pure parts: its timers as the worker's wheel carries them, the history's words for a
/// dialog's end, and which SIP failures the history calls certain. (The mapping on the embedded loop, through an
/// in-memory agent pool, is pinned by the SIP DriverTests that run it through the worker.)
final class SIPSignalingMappingTests: XCTestCase {
    func testSIPTimersSurviveTheWheelsValueAndComeBackToTheirKind() {
        let timers: [SIPSignalingTimer] = [
            .action(key: LegKey(local: 4, callID: "abc@host"), slot: 17), .wake(local: 2, callID: "xyz"),
        ]
        for timer in timers {
            let carried = timer.timer(slot: 0)
            XCTAssertEqual(carried.slot, 0)
            XCTAssertEqual(SIPSignalingTimer(carried), timer)
        }
        XCTAssertNil(SIPSignalingTimer(SignalingTimer(slot: 0, code: 7)))
    }

    /// The caller's device from its From header, read over the bytes as `Int` of the digits up to the first
    /// character that is not a number read it before: the same answer for every shape, odd ones included.
    func testTheCallersDeviceIndexIsReadFromItsURIAsTheCharacterReadingDid() {
        let cases: [(String, Int?)] = [
            ("\"dev-3\" <sip:dev-3@callstorm.test>;tag=abc", 3), ("<sip:dev-0012@x>", 12), ("sip:dev-7", nil),
            ("<sip:dev-@x>", nil), ("<sip:alice@x>", nil), ("", nil), ("sip:dev-", nil),
            ("<sip:dev-x@h> <sip:dev-5@h>", nil), ("<sip:dev-12é@x>", 12), ("<sip:dev-12٣@x>", nil),
            ("<sip:dev-12345678901234567890@x>", nil), ("<sip:dev-123456789012345678@x>", 123_456_789_012_345_678),
        ]
        for (text, index) in cases {
            XCTAssertEqual(SIPSignaling.deviceIndex(inURI: text), index, text)
            let start = text.range(of: "sip:dev-")?.upperBound
            let end = start.flatMap { text[$0...].firstIndex(where: { !$0.isNumber }) }
            let characterReading = start.flatMap { s in end.flatMap { Int(text[s..<$0]) } }
            XCTAssertEqual(SIPSignaling.deviceIndex(inURI: text), characterReading, "as before: \(text)")
        }
    }

    func testADialogsEndIsWordedForTheHistory() {
        XCTAssertEqual(SIPSignaling.endReason(.localBye), "bye")
        XCTAssertEqual(SIPSignaling.endReason(.remoteBye), "remote_bye")
        XCTAssertEqual(SIPSignaling.endReason(.cancelled), "cancelled")
        XCTAssertEqual(SIPSignaling.endReason(.declined(603)), "declined_603")
        XCTAssertEqual(SIPSignaling.endReason(.timedOut), "timed_out")
    }

    func testAFinalSIPRefusalIsCertainAndATimeoutIsNot() {
        XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: "sip_486")), "fail")
        XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: "sip_603")), "fail")
        XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: "sip_join_refused")), "fail")
        XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: "sip_408")), "info", "a timer may have made it up")
        XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: "sip_500")), "info")
    }
}
