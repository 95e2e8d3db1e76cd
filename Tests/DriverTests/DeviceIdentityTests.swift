import Driver
import XCTest

final class DeviceIdentityTests: XCTestCase {
    func testTokenRoutesBackToItsDevice() {
        for index in [0, 1, 17, 9_999, 123_456] {
            let token = DeviceIdentity.token(index: index, seed: 42)
            XCTAssertEqual(token.count, 64)
            XCTAssertEqual(DeviceIdentity.index(ofToken: token, seed: 42, deviceCount: 200_000), index)
        }
    }

    func testTokenOfAnotherSeedOrOutOfRangeIsRefused() {
        let token = DeviceIdentity.token(index: 5, seed: 1)
        XCTAssertNil(DeviceIdentity.index(ofToken: token, seed: 2, deviceCount: 10))
        XCTAssertNil(DeviceIdentity.index(ofToken: token, seed: 1, deviceCount: 5))
        XCTAssertNil(DeviceIdentity.index(ofToken: String(repeating: "z", count: 64), seed: 1, deviceCount: 10))
    }

    func testHandlesAreDistinctPhoneNumbers() {
        let a = DeviceIdentity(index: 1, seed: 0)
        let b = DeviceIdentity(index: 2, seed: 0)
        XCTAssertNotEqual(a.handle.value, b.handle.value)
        XCTAssertEqual(a.handle.kind, .phoneNumber)
    }
}
