import CallModel
import PushModel
import TextEscaping
import XCTest
@testable import Driver

/// A push the gateway already scanned with the devices' pattern (`APNsPush.scanned`) reads as the same push read
/// from its bytes, and the scan, not the bytes, decides when one was handed on.
final class GatewayScanTests: XCTestCase {
    private func push(_ json: String, scanned: ScannedPayload?) -> APNsPush {
        APNsPush(token: "t", apnsID: "a", pushType: .background, topic: "com.example.app", priority: 10,
                 expiration: nil, collapseID: nil, payload: Array(json.utf8), acceptedNanos: 1, scanned: scanned)
    }

    func testAScannedPushReadsAsItsBytesRead() throws {
        let reader = ViewReader.reference
        let view = "{\"id\":\"group\",\"version\":3,\"ended\":false,\"members\":[" +
            "{\"device\":\"dev-1\",\"state\":\"joined\",\"handle\":{\"kind\":\"phone\",\"value\":\"+1555\"}}]}"
        let documents = [
            "{\"uuid\":\"side\",\"event\":\"merged\",\"into\":\"group\",\"conversation\":\(view)}",
            "{\"uuid\":\"c1\",\"event\":\"ended\",\"version\":4,\"sentAt\":1234}",
            "{\"uuid\":\"c1\",\"handle\":{\"kind\":\"phone\",\"value\":\"+1555\",\"displayName\":\"A\"}}",
            "{\"uuid\":7}",
        ]
        for json in documents {
            let bytes = Array(json.utf8)
            let fromBytes = reader.push(push(json, scanned: nil))
            let fromScan = reader.push(push(json, scanned: ScannedPayload(JSONScan(bytes, reader.pushes))))
            XCTAssertEqual(fromScan == nil, fromBytes == nil, json)
            XCTAssertEqual(fromScan?.uuid, fromBytes?.uuid, json)
            XCTAssertEqual(fromScan?.event, fromBytes?.event, json)
            XCTAssertEqual(fromScan?.version, fromBytes?.version, json)
            XCTAssertEqual(fromScan?.into, fromBytes?.into, json)
            XCTAssertEqual(fromScan?.view, fromBytes?.view, json)
            XCTAssertEqual(fromScan?.caller, fromBytes?.caller, json)
            XCTAssertEqual(fromScan?.sentAt, fromBytes?.sentAt, json)
        }
        XCTAssertNotNil(reader.push(push(documents[1], scanned: nil))?.uuid)
    }

    func testAHandedOnScanThatFoundNoDocumentIsNoPayload() {
        let json = "{\"uuid\":\"c1\",\"event\":\"ended\"}"
        XCTAssertNotNil(ViewReader.reference.push(push(json, scanned: nil)))
        XCTAssertNil(ViewReader.reference.push(push(json, scanned: ScannedPayload(nil))))
    }
}
