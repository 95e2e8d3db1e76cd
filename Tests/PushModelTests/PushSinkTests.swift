import PushModel
import XCTest

/// The sink contract's defaults: a sink that only implements `accept` answers with its verdict, never asks for
/// GOAWAY, and injects no gateway fault.
final class PushSinkTests: XCTestCase {
    private struct RejectingVoIP: PushSink {
        func accept(_ push: APNsPush) -> APNsRejection? {
            push.pushType == .voip ? APNsRejection(.tooManyRequests, detail: "test") : nil
        }
    }

    private func push(_ type: APNsPush.PushType) -> APNsPush {
        APNsPush(token: "ab", apnsID: "00000000-0000-0000-0000-000000000001", pushType: type,
                 topic: "com.example.app.voip", priority: 10, expiration: nil, collapseID: nil,
                 payload: Array("{}".utf8), acceptedNanos: 5)
    }

    func testTheDefaultAnswerCarriesAcceptsVerdictAndNoGoAway() {
        let sink = RejectingVoIP()
        let rejected = sink.answer(push(.voip))
        XCTAssertEqual(rejected.rejection?.reason, .tooManyRequests)
        XCTAssertFalse(rejected.goAway)
        let accepted = sink.answer(push(.background))
        XCTAssertNil(accepted.rejection)
        XCTAssertFalse(accepted.goAway)
    }

    func testTheDefaultSinkInjectsNoGatewayFault() {
        XCTAssertNil(RejectingVoIP().gatewayFault(token: "ab"))
    }

    func testPushTypesAreTheHeaderValuesAPNsAccepts() {
        XCTAssertEqual(Set(APNsPush.PushType.allCases.map(\.rawValue)),
                       ["alert", "background", "voip", "complication", "fileprovider", "mdm", "location",
                        "liveactivity", "pushtotalk", "widgets"])
    }
}
