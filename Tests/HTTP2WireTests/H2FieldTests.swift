@testable import HTTP2Wire
import XCTest

/// A field keeps its bytes laid out once; its name and value read back as given, and only `apns-id` (a value new
/// on every push) is sent never indexed.
final class H2FieldTests: XCTestCase {
    func testAFieldReadsBackItsNameAndValueFromItsBytes() {
        let field = H2Field("apns-topic", "com.example.callstorm.voip")
        XCTAssertEqual(field.name, "apns-topic")
        XCTAssertEqual(field.value, "com.example.callstorm.voip")
        XCTAssertEqual(field.bytes, Array("apns-topiccom.example.callstorm.voip".utf8))
        XCTAssertEqual(field.nameCount, 10)
        let empty = H2Field("x-empty", "")
        XCTAssertEqual(empty.value, "")
        XCTAssertEqual(H2Field("x-é", "ü").value, "ü")
    }

    func testOnlyAnApnsIDIsSentNeverIndexed() {
        XCTAssertTrue(H2Field("apns-id", "5f0c4a1e-1d2b-4c3d-9e8f-a1b2c3d4e5f6").unindexed)
        for name in ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-ids"] {
            XCTAssertFalse(H2Field(name, "x").unindexed, name)
        }
    }

    func testFieldsAreEqualWhenTheirNameAndValueAre() {
        XCTAssertEqual(H2Field("a", "bc"), H2Field("a", "bc"))
        XCTAssertNotEqual(H2Field("ab", "c"), H2Field("a", "bc"))
    }
}
