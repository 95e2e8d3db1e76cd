import Credentials
import Foundation
import HTTPServer
@testable import PushGateway
import XCTest

/// The byte-level shortcuts the gateway takes on its hot path give the answers the String-level code gave.
final class GatewayHotPathTests: XCTestCase {
    private var now: Int64 { Int64(Date().timeIntervalSince1970) }

    private func push(_ auth: String, connection: UInt64, path: String? = nil) -> HTTPRequest {
        let headers = [HTTPHeader("authorization", auth), HTTPHeader("apns-push-type", "voip"),
                       HTTPHeader("apns-topic", "com.example.app.voip")]
        return HTTPRequest(method: "POST", path: path ?? "/3/device/" + String(repeating: "ab", count: 32),
                           headers: headers, body: Array(#"{"uuid":"x"}"#.utf8), connectionID: connection)
    }

    func testByteSearchFindsNeedlesAtEveryPositionAndNothingElse() {
        let haystack = Array(#"{"a":1,"callstorm-answer":{"status":429}}"#.utf8)
        XCTAssertTrue(ScriptedAnswer.contains(haystack, Array(#""callstorm-answer""#.utf8)))
        XCTAssertTrue(ScriptedAnswer.contains(haystack, Array("{\"a".utf8)), "at the start")
        XCTAssertTrue(ScriptedAnswer.contains(haystack, Array("}}".utf8)), "at the end")
        XCTAssertFalse(ScriptedAnswer.contains(haystack, Array(#""callstorm-answers""#.utf8)))
        XCTAssertFalse(ScriptedAnswer.contains(Array("ab".utf8), Array("abc".utf8)), "needle longer than text")
        XCTAssertTrue(ByteSearch.contains("api.sandbox.push.apple.com:443", "sandbox"))
        XCTAssertFalse(ByteSearch.contains("api.push.apple.com", "sandbox"))
        XCTAssertTrue(ByteSearch.hasPrefix("/3/device/abc"[...], "/3/device/"))
        XCTAssertFalse(ByteSearch.hasPrefix("/3/devic"[...], "/3/device/"))
        XCTAssertTrue(ByteSearch.equalsIgnoringCase("APNs-ID", "apns-id"))
        XCTAssertFalse(ByteSearch.equalsIgnoringCase("apns-ix", "apns-id"))
    }

    func testHeaderLookupsIgnoreCaseAsRequestHeaderDoes() {
        let g = APNsGateway(configuration: .init(validator: .init(bundleID: "com.example.app",
                                                                  requireProviderToken: false)),
                            sink: CollectingSink())
        var request = push("bearer x", connection: 1)
        request.headers.append(HTTPHeader("APNS-ID", "123e4567-e89b-12d3-a456-426614174000"))
        request.headers.append(HTTPHeader("Host", "api.development.push.apple.com"))
        let response = g.answer(request)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("apns-id"), "123e4567-e89b-12d3-a456-426614174000")
        XCTAssertNotNil(response.header("apns-unique-id"), "a development host gets apns-unique-id")
    }

    func testATokenVerifiedOnOneConnectionIsCountedAgainOnTheNextAndAForgeryStillFails() throws {
        let key = try ES256Key.generate()
        let keys = ProviderKeys(teamID: "TEAM123456", keys: ["KEYID12345": key])
        let g = APNsGateway(configuration: .init(validator: .init(bundleID: "com.example.app", keys: keys)),
                            sink: CollectingSink())
        let good = "bearer " + ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: key)
            .token(issuedAt: now)!
        XCTAssertEqual(g.answer(push(good, connection: 1)).status, 200)
        XCTAssertEqual(g.answer(push(good, connection: 2)).status, 200)
        XCTAssertEqual(g.providerTokenCounts.verified, 2, "checked once per connection, as before")
        let forged = String(good.dropLast(2)) + (good.hasSuffix("AA") ? "BB" : "AA")
        XCTAssertEqual(g.answer(push(forged, connection: 3)).status, 403)
    }

    func testAgeChecksOfAVerifiedTokenMatchVerify() {
        let t = now
        func token(_ iat: Int64) -> VerifiedProviderToken {
            VerifiedProviderToken(keyID: "KEYID12345", teamID: "TEAM123456", issuedAt: iat)
        }
        XCTAssertNil(ProviderToken.ageProblem(token(t - 60), nowEpochSeconds: t))
        XCTAssertEqual(ProviderToken.ageProblem(token(t - 3610), nowEpochSeconds: t)?.reason, .expiredProviderToken)
        XCTAssertEqual(ProviderToken.ageProblem(token(t + 3610), nowEpochSeconds: t)?.reason, .invalidProviderToken)
    }

    func testJSONShapeDecidesEveryByteOfAStringAtEveryOffset() {
        let cases: [([UInt8], Bool)] = [
            (Array("\\n".utf8), true), (Array("é".utf8), true), (Array("\\u00e9".utf8), true), ([0x01], false),
            ([0x1F], false), ([0xFF], false), ([0x22], false), (Array("\\x".utf8), false), ([0x7F], true),
        ]
        for length in 0...20 {
            for position in 0...length {
                for (token, valid) in cases {
                    var content = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    content.insert(contentsOf: token, at: position)
                    let body = Array(#"{"k":""#.utf8) + content + Array(#"","n":1}"#.utf8)
                    XCTAssertEqual(JSONShape.isObject(body), valid, "\(token) at \(position) of \(length)")
                }
            }
        }
    }

    /// The string scan reads eight bytes at a time: every byte value in every place of a word, alone in a run
    /// of plain letters, decides as the byte-by-byte rule does.
    func testJSONShapeDecidesEachByteValueInEachPlaceOfAWord() {
        for b in UInt8.min...UInt8.max {
            let plain = b >= 0x20 && b < 0x80 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\")
            for position in 0..<16 {
                var content = [UInt8](repeating: UInt8(ascii: "a"), count: 16)
                content[position] = b
                let body = Array(#"{"k":""#.utf8) + content + Array(#""}"#.utf8)
                XCTAssertEqual(JSONShape.isObject(body), plain, "byte \(b) at \(position)")
            }
        }
    }

    func testHexDigitsAreExactlyZeroToNineAndAToFInEitherCase() {
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for b in UInt8.min...UInt8.max {
            XCTAssertEqual(APNsValidator.isHex(b), hex.contains(b), "byte \(b)")
        }
        XCTAssertTrue(APNsValidator.allHex(String(repeating: "0aF9", count: 16)))
        XCTAssertFalse(APNsValidator.allHex(String(repeating: "0aF9", count: 15) + "0aG9"))
    }
}
