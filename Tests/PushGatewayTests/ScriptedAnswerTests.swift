import Credentials
import Dispatch
import Foundation
import HTTPServer
import PushGateway
import Locking
import XCTest

/// A push payload's `callstorm-answer` key scripts the gateway's answer to that one push.
final class ScriptedAnswerTests: XCTestCase {
    private let token = String(repeating: "cd", count: 32)
    private let bundle = "com.example.app"

    /// Without configured keys the gateway takes any well-formed provider token.
    private let bearer: String = {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try! ES256Key.generate())
        return "bearer " + signer.token(issuedAt: Int64(Date().timeIntervalSince1970))!
    }()

    private func request(_ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/3/device/\(token)",
                    headers: [HTTPHeader("authorization", bearer), HTTPHeader("apns-push-type", "voip"),
                              HTTPHeader("apns-topic", bundle + ".voip")],
                    body: Array(body.utf8), connectionID: 1)
    }

    private func gateway(_ sink: CollectingSink) -> APNsGateway {
        APNsGateway(configuration: .init(validator: .init(bundleID: bundle, keys: nil)), sink: sink)
    }

    func testReasonOrStatusScriptsTheRejectionAndTheSinkNeverSeesThePush() {
        let sink = CollectingSink()
        let g = gateway(sink)
        let throttled = g.answer(request(#"{"uuid":"a","callstorm-answer":{"reason":"TooManyRequests"}}"#))
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(String(decoding: throttled.body, as: UTF8.self), #"{"reason":"TooManyRequests"}"#)
        XCTAssertEqual(g.answer(request(#"{"uuid":"b","callstorm-answer":{"status":503}}"#)).status, 503)
        let gone = g.answer(request(#"{"uuid":"c","callstorm-answer":{"status":410,"reason":"Unregistered"}}"#))
        XCTAssertEqual(gone.status, 410)
        XCTAssertTrue(String(decoding: gone.body, as: UTF8.self).contains("\"timestamp\":"))
        XCTAssertEqual(sink.received.count, 0)
        // Unscripted and unreadable scripts pass as usual.
        XCTAssertEqual(g.answer(request(#"{"uuid":"d"}"#)).status, 200)
        XCTAssertEqual(g.answer(request(#"{"uuid":"e","callstorm-answer":{"status":429,"reason":"Shutdown"}}"#)).status,
                       200)
        XCTAssertEqual(sink.received.map { String(decoding: $0.payload, as: UTF8.self).contains("\"d\"") },
                       [true, false])
    }

    func testScriptedDelayAnswersLaterWithoutHoldingTheCaller() {
        let sink = CollectingSink()
        let g = gateway(sink)
        let answered = DispatchSemaphore(value: 0)
        let status = Mutex(0)
        let before = DispatchTime.now()
        g.handle(request(#"{"uuid":"f","callstorm-answer":{"status":200,"delay_ms":150}}"#)) { response in
            status.withLock { $0 = response.status }
            answered.signal()
        }
        XCTAssertEqual(status.withLock { $0 }, 0, "handle returned before the answer")
        XCTAssertEqual(answered.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(status.withLock { $0 }, 200)
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - before.uptimeNanoseconds, 150_000_000)
        XCTAssertEqual(sink.received.count, 1)
    }

    func testScriptIsReadOnlyWhenTheKeyIsThere() {
        XCTAssertNil(ScriptedAnswer(payload: Array(#"{"uuid":"x","answer":{"status":429}}"#.utf8)))
        XCTAssertEqual(ScriptedAnswer(payload: Array(#"{"callstorm-answer":{"status":429,"delay_ms":20}}"#.utf8)),
                       ScriptedAnswer(rejection: .tooManyRequests, delayMillis: 20))
    }
}
