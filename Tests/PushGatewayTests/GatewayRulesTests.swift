import Credentials
import Foundation
import HTTPServer
import PushGateway
import XCTest

/// The gateway's decisions without sockets: provider-token signatures and refresh rate, unregistered tokens,
/// FCM's ingress and error shape, and the payload check.
final class GatewayRulesTests: XCTestCase {
    private let token = String(repeating: "ab", count: 32)
    private let bundle = "com.example.app"

    private func gateway(keys: ProviderKeys? = nil, unregistered: [String: Int64] = [:],
                         sink: PushSink = CollectingSink(), fcmProject: String? = nil) -> APNsGateway {
        APNsGateway(configuration: .init(validator: .init(bundleID: bundle, keys: keys),
                                         fcm: FCMIngress(projectID: fcmProject), unregistered: unregistered),
                    sink: sink)
    }

    private func push(_ auth: String, connection: UInt64 = 1, apnsID: String? = nil,
                      body: String = #"{"uuid":"x"}"#) -> HTTPRequest {
        var headers = [HTTPHeader("authorization", auth), HTTPHeader("apns-push-type", "voip"),
                       HTTPHeader("apns-topic", bundle + ".voip")]
        if let apnsID { headers.append(HTTPHeader("apns-id", apnsID)) }
        return HTTPRequest(method: "POST", path: "/3/device/\(token)", headers: headers, body: Array(body.utf8),
                           connectionID: connection)
    }

    private func reason(_ response: HTTPResponse) -> String {
        "\(response.status) " + String(decoding: response.body, as: UTF8.self)
    }

    private var now: Int64 { Int64(Date().timeIntervalSince1970) }

    func testSignedTokenIsVerifiedAndAForgedOneIsRefused() throws {
        let key = try ES256Key.generate()
        let other = try ES256Key.generate()
        let keys = ProviderKeys(teamID: "TEAM123456", keys: ["KEYID12345": key])
        let g = gateway(keys: keys)
        let good = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: key).token(issuedAt: now)!
        XCTAssertEqual(g.answer(push("bearer " + good)).status, 200)

        let forged = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: other).token(issuedAt: now)!
        XCTAssertEqual(reason(g.answer(push("bearer " + forged, connection: 2))),
                       #"403 {"reason":"InvalidProviderToken"}"#)
        let unknownKey = ProviderTokenSigner(keyID: "OTHERKEY99", teamID: "TEAM123456", key: key).token(issuedAt: now)!
        XCTAssertEqual(reason(g.answer(push("bearer " + unknownKey, connection: 3))),
                       #"403 {"reason":"InvalidProviderToken"}"#)
        let wrongTeam = ProviderTokenSigner(keyID: "KEYID12345", teamID: "OTHERTEAM1", key: key).token(issuedAt: now)!
        XCTAssertEqual(reason(g.answer(push("bearer " + wrongTeam, connection: 4))),
                       #"403 {"reason":"UnrelatedKeyIdInToken"}"#)
        XCTAssertEqual(g.providerTokenCounts.verified, 1)
    }

    func testWithoutKeysAnyWellFormedTokenIsAcceptedAndCounted() throws {
        let g = gateway()
        let token = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let jwt = "bearer " + token.token(issuedAt: now)!
        XCTAssertEqual(g.answer(push(jwt)).status, 200)
        XCTAssertEqual(g.answer(push(jwt)).status, 200)
        XCTAssertEqual(g.providerTokenCounts.verified, 1, "verified once per connection, not once per push")
    }

    func testNewTokenOnTheSameConnectionWithinTwentyMinutesIsTooManyUpdates() throws {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let g = gateway()
        XCTAssertEqual(g.answer(push("bearer " + signer.token(issuedAt: now - 60)!)).status, 200)
        let refreshed = "bearer " + signer.token(issuedAt: now)!
        XCTAssertEqual(reason(g.answer(push(refreshed))), #"429 {"reason":"TooManyProviderTokenUpdates"}"#)
        XCTAssertEqual(g.answer(push(refreshed, connection: 9)).status, 200, "another connection may use it")
        g.connectionClosed(1)
        XCTAssertEqual(g.answer(push(refreshed, connection: 1)).status, 200, "state goes with the connection")
    }

    func testTokenThatAgesPastAnHourOnAConnectionExpires() throws {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let g = gateway()
        // Ten seconds past the hour, not one: the gateway reads the coarse `time()` clock, which can trail
        // Foundation's `Date()` across a second boundary, so an hour and one second could read as exactly an hour.
        let old = "bearer " + signer.token(issuedAt: now - 3610)!
        XCTAssertEqual(reason(g.answer(push(old))), #"403 {"reason":"ExpiredProviderToken"}"#)
    }

    func testUnregisteredTokenGets410WithTimestampAndTheAPNsID() throws {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let g = gateway(unregistered: [token: 1_700_000_000_123])
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = g.answer(push("bearer " + signer.token(issuedAt: now)!, apnsID: id))
        XCTAssertEqual(reason(response), #"410 {"reason":"Unregistered","timestamp":1700000000123}"#)
        XCTAssertEqual(response.header("apns-id"), id)
        let other = gateway()
        other.markUnregistered(token, atMillis: 5)
        XCTAssertEqual(reason(other.answer(push("bearer " + signer.token(issuedAt: now)!))),
                       #"410 {"reason":"Unregistered","timestamp":5}"#)
    }

    func testPerIngressMetricsCountAcceptedRejectedBytesAndLatency() throws {
        let signer = ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: try ES256Key.generate())
        let g = gateway()
        _ = g.answer(push("bearer " + signer.token(issuedAt: now)!))
        _ = g.answer(push("bearer nope"))
        _ = g.answer(fcm(#"{"message":{"token":"t1","data":{"uuid":"u"},"android":{"priority":"HIGH"}}}"#))
        let apns = g.ingressStats(.apns)
        XCTAssertEqual(apns.accepted, 1)
        XCTAssertEqual(apns.rejected, ["InvalidProviderToken": 1])
        XCTAssertEqual(apns.bytesReceived, 2 * #"{"uuid":"x"}"#.utf8.count)
        XCTAssertEqual(apns.latencyMicros.totalCount, 2)
        XCTAssertEqual(g.ingressStats(.fcm).accepted, 1)
    }

    // MARK: - FCM

    private func fcm(_ body: String, project: String = "demo", auth: String? = "Bearer ya29.token") -> HTTPRequest {
        var headers = [HTTPHeader("content-type", "application/json")]
        if let auth { headers.append(HTTPHeader("authorization", auth)) }
        return HTTPRequest(method: "POST", path: "/v1/projects/\(project)/messages:send", headers: headers,
                           body: Array(body.utf8))
    }

    func testFCMHighPriorityDataMessageIsAcceptedWithAMessageName() throws {
        let sink = CollectingSink()
        let g = gateway(sink: sink)
        let response = g.answer(fcm(#"{"message":{"token":"dev1","data":{"uuid":"u1"},"android":{"priority":"HIGH","ttl":"30s"}}}"#))
        XCTAssertEqual(response.status, 200)
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
        XCTAssertTrue(body["name"]?.hasPrefix("projects/demo/messages/") ?? false, "\(body)")
        let push = try XCTUnwrap(sink.received.first)
        XCTAssertEqual(push.token, "dev1")
        XCTAssertEqual(push.pushType, .voip)
        XCTAssertEqual(String(decoding: push.payload, as: UTF8.self), #"{"uuid":"u1"}"#)
    }

    func testFCMErrorsUseFCMsStatusAndBodyShape() throws {
        let g = gateway(unregistered: ["gone": 1], fcmProject: "demo")
        func code(_ r: HTTPResponse) -> String {
            let root = try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]
            let error = root?["error"] as? [String: Any]
            let details = (error?["details"] as? [[String: Any]])?.first?["errorCode"] as? String
            return "\(r.status) \(error?["status"] as? String ?? "?") \(details ?? "-")"
        }
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"data":{}}}"#))), "400 INVALID_ARGUMENT INVALID_ARGUMENT")
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"token":"t","data":{"n":1}}}"#))),
                       "400 INVALID_ARGUMENT INVALID_ARGUMENT")
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"token":"t","android":{"priority":"URGENT"}}}"#))),
                       "400 INVALID_ARGUMENT INVALID_ARGUMENT")
        let big = #"{"message":{"token":"t","data":{"pad":""# + String(repeating: "x", count: 5000) + #""}}}"#
        XCTAssertEqual(code(g.answer(fcm(big))), "400 INVALID_ARGUMENT INVALID_ARGUMENT")
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"token":"gone"}}"#))), "404 NOT_FOUND UNREGISTERED")
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"token":"t"}}"#, project: "other"))),
                       "403 PERMISSION_DENIED SENDER_ID_MISMATCH")
        XCTAssertEqual(code(g.answer(fcm(#"{"message":{"token":"t"}}"#, auth: nil))), "401 UNAUTHENTICATED -")
        XCTAssertEqual(code(g.answer(fcm("not json"))), "400 INVALID_ARGUMENT INVALID_ARGUMENT")
    }

    // MARK: - Payload check

    func testPayloadMustBeExactlyOneJSONObject() {
        func check(_ text: String) -> Int {
            let signer = try! ProviderTokenSigner(keyID: "KEYID12345", teamID: "TEAM123456", key: ES256Key.generate())
            return gateway().answer(push("bearer " + signer.token(issuedAt: now)!, body: text)).status
        }
        for good in [#"{}"#, #" {"a":[1,-2.5e3,true,null,"é\u00e9\n"],"b":{"c":{}}} "#] {
            XCTAssertEqual(check(good), 200, good)
        }
        for bad in [#"[]"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":"\x"}"#, #"{"a":1}{}"#, #"{'a':1}"#, "{\"a\":\"\u{01}\"}",
                    String(repeating: "[", count: 100)] {
            XCTAssertEqual(check(bad), 400, bad)
        }
    }
}
