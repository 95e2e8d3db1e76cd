import PushModel
import XCTest

/// APNs's reasons and statuses as Apple documents them ("Handling notification responses from APNs").
final class APNsReasonTests: XCTestCase {
    func testEveryReasonAnswersWithTheStatusAppleDocumentsForIt() {
        let byStatus = Dictionary(grouping: APNsReason.allCases, by: \.status).mapValues { Set($0.map(\.rawValue)) }
        XCTAssertEqual(byStatus[400], ["BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId",
                                       "BadPriority", "BadTopic", "DeviceTokenNotForTopic", "DuplicateHeaders",
                                       "IdleTimeout", "InvalidPushType", "MissingDeviceToken", "MissingTopic",
                                       "PayloadEmpty", "TopicDisallowed"])
        XCTAssertEqual(byStatus[403], ["BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken",
                                       "Forbidden", "InvalidProviderToken", "MissingProviderToken",
                                       "UnrelatedKeyIdInToken"])
        XCTAssertEqual(byStatus[404], ["BadPath"])
        XCTAssertEqual(byStatus[405], ["MethodNotAllowed"])
        XCTAssertEqual(byStatus[410], ["ExpiredToken", "Unregistered"])
        XCTAssertEqual(byStatus[413], ["PayloadTooLarge"])
        XCTAssertEqual(byStatus[429], ["TooManyProviderTokenUpdates", "TooManyRequests"])
        XCTAssertEqual(byStatus[500], ["InternalServerError"])
        XCTAssertEqual(byStatus[503], ["ServiceUnavailable", "Shutdown"])
        XCTAssertEqual(byStatus.count, 9, "no status outside Apple's list")
    }

    func testARejectionBodyIsTheReasonAndATimestampOnlyWhenGiven() {
        XCTAssertEqual(APNsRejection(.badTopic).body, "{\"reason\":\"BadTopic\"}")
        XCTAssertEqual(APNsRejection(.unregistered, timestampMillis: 1_700_000_000_000).body,
                       "{\"reason\":\"Unregistered\",\"timestamp\":1700000000000}")
        XCTAssertEqual(APNsRejection(.unregistered).status, 410)
    }

    func testARejectionDescribesItselfWithStatusReasonAndDetail() {
        XCTAssertEqual(APNsRejection(.badPriority).description, "400 BadPriority")
        XCTAssertEqual(APNsRejection(.badPriority, detail: "apns-priority 7").description,
                       "400 BadPriority: apns-priority 7")
    }
}
