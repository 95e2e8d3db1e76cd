@testable import Driver
import XCTest

/// `RoleDevices`, a call's role → device map searched by comparing: what the `[String: Int]` it replaced answered.
final class RoleDevicesTests: XCTestCase {
    func testListsTheFlowsRolesFirstInOrderThenTheOthersByName() {
        let roles = RoleDevices(["z": 9, "callee": 2, "a": 7, "caller": 1], order: ["caller", "callee", "absent"])
        XCTAssertEqual(roles.entries.map(\.role), ["caller", "callee", "a", "z"])
        XCTAssertEqual(Array(roles.values), [1, 2, 7, 9])
    }

    func testFindsSetsAndRemovesARolesDevice() {
        var roles: RoleDevices = ["caller": 1, "callee": 2]
        XCTAssertEqual(roles["callee"], 2)
        XCTAssertNil(roles["other"])
        roles["callee"] = 5  // a ringing device of the user takes the role over
        roles["other"] = 3
        XCTAssertEqual(roles["callee"], 5)
        XCTAssertEqual(roles.count, 3)
        roles["caller"] = nil
        XCTAssertNil(roles["caller"])
        XCTAssertEqual(roles.entries.map(\.role), ["callee", "other"])
    }
}
