import Foundation
import PushGateway
import XCTest

final class APNsValidatorTests: XCTestCase {
    private let token = String(repeating: "ab", count: 32)
    private let validator = APNsValidator(configuration: .init(bundleID: "com.example.app"))
    private let now: Int64 = 1_800_000_000

    private func jwt(iat: Int64, alg: String = "ES256", kid: String = "ABCDEFGHIJ") -> String {
        let h = ProviderToken.base64URLEncode(Data("{\"alg\":\"\(alg)\",\"kid\":\"\(kid)\"}".utf8))
        let c = ProviderToken.base64URLEncode(Data("{\"iss\":\"TEAM123456\",\"iat\":\(iat)}".utf8))
        return "bearer \(h).\(c).c2ln"
    }

    private func validate(path: String? = nil, method: String = "POST", headers: [(String, String)]? = nil,
                          body: String = "{\"uuid\":\"x\"}") -> Result<APNsPush, APNsRejection> {
        let h = headers ?? [("authorization", jwt(iat: now - 10)), ("apns-push-type", "voip"),
                            ("apns-topic", "com.example.app.voip"), ("apns-priority", "10")]
        return validator.validate(method: method, path: path ?? "/3/device/\(token)",
                                  headers: h.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8),
                                  apnsID: "id", nowNanos: 1, nowEpochSeconds: now)
    }

    private func reason(_ r: Result<APNsPush, APNsRejection>) -> String? {
        if case .failure(let rejection) = r { return "\(rejection.status) \(rejection.reason.rawValue)" }
        return nil
    }

    func testWellFormedVoIPPushIsAccepted() throws {
        let push = try validate().get()
        XCTAssertEqual(push.pushType, .voip)
        XCTAssertEqual(push.priority, 10)
        XCTAssertEqual(push.token, token)
    }

    func testEachRuleAnswersWithAPNsStatusAndReason() {
        XCTAssertEqual(reason(validate(path: "/3/device/xyz")), "400 BadDeviceToken")
        XCTAssertEqual(reason(validate(path: "/3/device/")), "400 MissingDeviceToken")
        XCTAssertEqual(reason(validate(path: "/4/device/\(token)")), "404 BadPath")
        XCTAssertEqual(reason(validate(method: "GET")), "405 MethodNotAllowed")
        XCTAssertEqual(reason(validate(headers: [("apns-push-type", "voip"), ("apns-topic", "com.example.app.voip")])),
                       "403 MissingProviderToken")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now - 4000)), ("apns-push-type", "voip"),
                                                 ("apns-topic", "com.example.app.voip")])), "403 ExpiredProviderToken")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now, alg: "RS256")),
                                                 ("apns-push-type", "voip"), ("apns-topic", "com.example.app.voip")])),
                       "403 InvalidProviderToken")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now)), ("apns-push-type", "voip"),
                                                 ("apns-topic", "com.example.app")])), "400 DeviceTokenNotForTopic")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now)), ("apns-topic", "com.example.app")])),
                       "400 InvalidPushType")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now)), ("apns-push-type", "voip")])),
                       "400 MissingTopic")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now)), ("apns-push-type", "voip"),
                                                 ("apns-topic", "com.example.app.voip"), ("apns-priority", "7")])),
                       "400 BadPriority")
        XCTAssertEqual(reason(validate(headers: [("authorization", jwt(iat: now)), ("apns-push-type", "voip"),
                                                 ("apns-topic", "com.example.app.voip"), ("apns-topic", "x")])),
                       "400 DuplicateHeaders")
        XCTAssertEqual(reason(validate(body: "")), "400 PayloadEmpty")
        let big = "{\"k\":\"" + String(repeating: "a", count: 5200) + "\"}"
        XCTAssertEqual(reason(validate(body: big)), "413 PayloadTooLarge")
    }

    func testVoIPPayloadMayBeLargerThanAlertPayload() {
        let body = "{\"k\":\"" + String(repeating: "a", count: 4500) + "\"}"
        XCTAssertNotNil(try? validate(body: body).get())
    }

    func testAPNsIDFormat() {
        XCTAssertTrue(APNsValidator.isValidAPNsID("123e4567-e89b-12d3-a456-426614174000"))
        XCTAssertFalse(APNsValidator.isValidAPNsID("123e4567e89b12d3a456426614174000"))
    }

    func testRejectionBodyCarriesTimestampOnlyFor410() {
        XCTAssertEqual(APNsRejection(.badTopic).body, "{\"reason\":\"BadTopic\"}")
        XCTAssertEqual(APNsRejection(.unregistered, timestampMillis: 5).body, "{\"reason\":\"Unregistered\",\"timestamp\":5}")
        XCTAssertEqual(APNsReason.unregistered.status, 410)
    }
}
