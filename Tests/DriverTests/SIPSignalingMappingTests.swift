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
