import CallModel
import Foundation
@testable import ReferenceTarget
import XCTest

/// The target's request bodies read over bytes, held to what JSONDecoder read before (issue 33): the same bodies
/// accepted with the same fields, the same ones refused.
final class RequestBodiesTests: XCTestCase {
    /// The shapes as Decodable types: the oracle.
    private struct StartShape: Decodable, Equatable {
        let caller: String
        let handles: [Handle]
        let video: Bool?
        let capabilities: [String]?
    }

    private struct MemberShape: Decodable, Equatable {
        let device: String
        let reason: String?
        let with: String?
        let member: String?
    }

    private struct TimesShape: Decodable {
        let reportedAt: Int64?
        let pushSentAt: Int64?
    }

    private let handle = "{\"kind\":\"phoneNumber\",\"value\":\"+1\",\"displayName\":\"b\"}"

    func testStartBodiesAreAcceptedAndRefusedAsJSONDecoderDid() {
        let bodies = [
            "{\"caller\":\"a\",\"handles\":[\(handle)]}",
            "{\"caller\":\"a\",\"handles\":[\(handle),\(handle)],\"video\":true,\"capabilities\":[\"video\"]}",
            "{\"caller\":\"a\",\"handles\":[],\"video\":null,\"capabilities\":null,\"extra\":{\"x\":[1]}}",
            "{\"caller\":\"a\",\"handles\":[\(handle)],\"video\":1}",
            "{\"caller\":\"a\",\"handles\":[\(handle)],\"capabilities\":[1]}",
            "{\"caller\":\"a\",\"handles\":[{\"kind\":\"fax\",\"value\":\"+1\",\"displayName\":\"b\"}]}",
            "{\"caller\":\"a\",\"handles\":[{\"kind\":\"generic\",\"value\":\"+1\"}]}",
            "{\"caller\":7,\"handles\":[\(handle)]}",
            "{\"handles\":[\(handle)]}",
            "{\"caller\":\"a\",\"handles\":{}}",
            "{\"caller\":\"a\",\"handles\":[null]}",
            "{\"caller\":\"a\",\"handles\":[\(handle)],\"capabilities\":\"video\"}",
            "{\"caller\":\"a\",\"handles\":[\(handle)],\"video\":false,\"capabilities\":[]}",
            "{\"caller\":\"a\"}",
            "[\"caller\"]", "{not json", "",
        ]
        for body in bodies {
            let oracle = try? JSONDecoder().decode(StartShape.self, from: Data(body.utf8))
            let mine = StartBody(json: Array(body.utf8))
            XCTAssertEqual(mine.map { StartShape(caller: $0.caller, handles: $0.handles, video: $0.video,
                                                 capabilities: $0.capabilities) }, oracle, body)
        }
    }

    func testMemberBodiesAndJoinTimesAreReadAsJSONDecoderReadThem() {
        let bodies = [
            "{\"device\":\"b\"}",
            "{\"device\":\"b\",\"reason\":\"declined\",\"with\":null,\"member\":\"c\"}",
            "{\"device\":\"b\",\"reportedAt\":1764787200123,\"pushSentAt\":1764787200100}",
            "{\"device\":\"b\",\"reportedAt\":5,\"pushSentAt\":null}",
            "{\"device\":\"b\",\"reportedAt\":\"5\",\"pushSentAt\":3}",
            "{\"device\":\"b\",\"reportedAt\":2.5,\"pushSentAt\":3}",
            "{\"device\":\"b\",\"reason\":5}",
            "{\"device\":null}", "{}", "[]", "{\"device\":\"b\"",
        ]
        for body in bodies {
            let oracle = try? JSONDecoder().decode(MemberShape.self, from: Data(body.utf8))
            let mine = MemberBody(json: Array(body.utf8))
            XCTAssertEqual(mine.map { MemberShape(device: $0.device, reason: $0.reason, with: $0.with,
                                                  member: $0.member) }, oracle, body)
            guard let mine else { continue }
            let times = try? JSONDecoder().decode(TimesShape.self, from: Data(body.utf8))
            XCTAssertEqual(mine.reportedAt, times?.reportedAt, body)
            XCTAssertEqual(mine.pushSentAt, times?.pushSentAt, body)
        }
    }

    func testRegisterBodyNeedsEveryField() {
        let good = "{\"id\":\"dev-1\",\"handle\":\(handle),\"apnsToken\":\"ab\"}"
        let body = RegisterBody(json: Array(good.utf8))
        XCTAssertEqual(body?.id, "dev-1")
        XCTAssertEqual(body?.handle, Handle(kind: .phoneNumber, value: "+1", displayName: "b"))
        XCTAssertEqual(body?.apnsToken, "ab")
        XCTAssertNil(RegisterBody(json: Array("{\"id\":\"dev-1\",\"handle\":\(handle)}".utf8)))
        XCTAssertNil(RegisterBody(json: Array("{\"id\":\"dev-1\",\"handle\":\"+1\",\"apnsToken\":\"ab\"}".utf8)))
    }

    func testConversationIDsAreFoundationsUUIDTextInLowerCase() {
        for _ in 0..<50 {
            let uuid = UUID()
            XCTAssertEqual(uuid.lowercaseText, uuid.uuidString.lowercased())
        }
    }
}
