import OTLP
import XCTest

/// The collector's answers (OTLP/HTTP "Responses").
final class OTLPExportResponseTests: XCTestCase {
    func testAnEmptySuccessIsAccepted() {
        XCTAssertEqual(OTLPExportResponse.parse(status: 200, retryAfter: nil, body: []), .accepted)
        XCTAssertEqual(OTLPExportResponse.parse(status: 200, retryAfter: nil, body: Array("{}".utf8)), .accepted)
    }

    func testPartialSuccessCarriesTheRejectedCountAndMessage() {
        var w = ProtoWriter()
        w.message(1) { p in
            p.int64(1, 3)
            p.string(2, "spans too old")
        }
        XCTAssertEqual(OTLPExportResponse.parse(status: 200, retryAfter: nil, body: w.bytes),
                       .partial(rejected: 3, message: "spans too old"))
    }

    func testThrottlingAsksForARetryAfterTheGivenSeconds() {
        XCTAssertEqual(OTLPExportResponse.parse(status: 429, retryAfter: " 7 ", body: []),
                       .retry(afterSeconds: 7, status: 429))
        XCTAssertEqual(OTLPExportResponse.parse(status: 503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", body: []),
                       .retry(afterSeconds: nil, status: 503))
        XCTAssertEqual(OTLPExportResponse.parse(status: 503, retryAfter: "99999999", body: []),
                       .retry(afterSeconds: OTLPExportResponse.longestRetrySeconds, status: 503))
    }

    func testARefusalKeepsTheStatusMessage() {
        var w = ProtoWriter()
        w.int64(1, 3)
        w.string(2, "bad span id")
        XCTAssertEqual(OTLPExportResponse.parse(status: 400, retryAfter: nil, body: w.bytes),
                       .refused(status: 400, message: "bad span id"))
        XCTAssertEqual(OTLPExportResponse.parse(status: 400, retryAfter: nil, body: [0xff]),
                       .refused(status: 400, message: ""))
    }
}
