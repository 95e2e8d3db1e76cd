import CallModel
import XCTest
@testable import Scenario

/// `users:`: devices grouped into users who own several (issue 36); mistakes reported at file:line:column.
final class UsersSectionTests: XCTestCase {
    private func load(_ users: String?) -> Result<Scenario, ScenarioErrors> {
        var text = """
        name: users
        seed: 3
        devices: 12
        load:
          - hold: { rate: 5/s, for: 10s }
        """
        if let users { text += "\nusers: \(users)" }
        return ScenarioLoader.parse(text, file: "users.yaml", knownFlows: ["incoming-1to1"])
    }

    func testNoUsersKeyLeavesEveryDeviceItsOwnUser() throws {
        let scenario = try load(nil).get()
        XCTAssertNil(scenario.users)
        XCTAssertNil(scenario.serverPolicy(embedded: true).elsewhereGraceNanos)
    }

    func testDistributionOfDevicesPerUserIsRead() throws {
        let scenario = try load("{ devices: { 1: 60%, 2: 30%, 3: 10% } }").get()
        XCTAssertEqual(scenario.users?.counts, [1, 2, 3])
        for (share, expected) in zip(scenario.users?.shares ?? [], [0.6, 0.3, 0.1]) {
            XCTAssertEqual(share, expected, accuracy: 1e-12)
        }
        XCTAssertEqual(scenario.users?.onDecline, .declinedElsewhere)
        XCTAssertEqual(scenario.users?.graceNanos, UsersSpec.defaultGraceNanos)
        XCTAssertEqual(scenario.users?.maxDevices, 3)
        XCTAssertEqual(scenario.users?.devices(draw: 0.59), 1)
        XCTAssertEqual(scenario.users?.devices(draw: 0.6), 2)
        XCTAssertEqual(scenario.users?.devices(draw: 0.95), 3)
    }

    func testSingleNumberGivesEveryUserThatManyDevicesAndThePolicyReachesTheChecker() throws {
        let scenario = try load("{ devices: 2, on_decline: keep_ringing, ringing_grace: 500ms }").get()
        XCTAssertEqual(scenario.users, UsersSpec(counts: [2], shares: [1], onDecline: .keepRinging,
                                                 graceNanos: 500_000_000))
        let policy = scenario.serverPolicy(embedded: true)
        XCTAssertEqual(policy.elsewhereGraceNanos, 500_000_000)
        XCTAssertEqual(policy.declineKeepsRinging, true)
        XCTAssertEqual(policy.unmerge, .holdSplit, "the reference's own choices stay")
    }

    func testSharesThatDoNotAddUpAreAnErrorAtTheMapping() {
        guard case .failure(let errors) = load("{ devices: { 1: 60%, 2: 30% } }") else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(errors.errors.count, 1, "\(errors)")
        XCTAssertTrue(errors.errors[0].description.hasPrefix("users.yaml:6:19: error: 'users.devices' shares must "
            + "add up to 100%, got 90%"), errors.errors[0].description)
    }

    func testBadDeviceCountKeyAndBadPolicyWordAreErrorsAtTheirPositions() {
        guard case .failure(let errors) = load("{ devices: { zero: 100% } }") else {
            return XCTFail("expected an error")
        }
        XCTAssertTrue(errors.errors[0].description.hasPrefix("users.yaml:6:21: error: keys of 'users.devices' "
            + "are numbers of devices"), errors.errors[0].description)
        guard case .failure(let policy) = load("{ devices: 2, on_decline: declined_elswhere }") else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(policy.errors.first?.mark, Mark(line: 6, column: 34))
        XCTAssertEqual(policy.errors.first?.suggestion, "declined_elsewhere")
        guard case .failure(let zero) = load("{ devices: 0 }") else { return XCTFail("expected an error") }
        XCTAssertTrue(zero.errors[0].description.contains("'users.devices' must be at least 1"), "\(zero)")
    }

    func testValidateSaysHowDevicesAreGroupedIntoUsers() throws {
        let text = try load("{ devices: { 1: 60%, 2: 40% }, ringing_grace: 1s }").get().describe()
        XCTAssertTrue(text.contains("users with several devices: { 1: 60%, 2: 40% }, after a decline "
            + "declined_elsewhere, ringing grace 1s"), text)
        XCTAssertFalse(try load(nil).get().describe().contains("users with several devices"))
    }
}
