@testable import Driver
import XCTest

/// What an action's failure reason says in the history: `fail` when it certainly did not take effect, `info` when
/// it may have (the checker excuses either outcome for those).
final class HistoryOutcomeTests: XCTestCase {
    func testSIPFinalRefusalsAreCertainAndATimeoutIsNot() {
        for reason in ["sip_481", "sip_491", "sip_486", "sip_603", "sip_pause_refused", "http_409", "already_ended"] {
            XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: reason)), "fail", reason)
        }
        for reason in ["sip_408", "sip_500", "sip_503", "http_503"] {
            XCTAssertEqual(RunBooks.historyOutcome(.failed(reason: reason)), "info", reason)
        }
        XCTAssertEqual(RunBooks.historyOutcome(.timedOut), "info")
        XCTAssertEqual(RunBooks.historyOutcome(.fulfilled), "ok")
    }
}
