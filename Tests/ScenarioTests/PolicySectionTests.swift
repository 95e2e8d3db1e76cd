import CallModel
import XCTest
@testable import Scenario

/// `target.policy`: the server's declared choices where LiveCommunicationKit leaves it free, which the history
/// checker's policy rules hold it to; mistakes reported at their file:line:column with a suggestion.
final class PolicySectionTests: XCTestCase {
    private func scenario(_ target: String) -> String {
        """
        name: policy
        seed: 3
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        target: \(target)
        """
    }

    private func load(_ target: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(scenario(target), file: "policy.yaml", knownFlows: ["incoming-1to1"])
    }

    func testDeclaredUnmergePolicyIsRead() throws {
        let scenario = try load("{ url: \"http://127.0.0.1:9000\", policy: { unmerge: hold-group } }").get()
        XCTAssertEqual(scenario.targetPolicy, ServerPolicy(unmerge: .holdGroup))
        XCTAssertEqual(scenario.serverPolicy(embedded: false), ServerPolicy(unmerge: .holdGroup))
    }

    func testEmbeddedTargetDeclaresTheReferencePolicyUnlessToldOtherwise() throws {
        let plain = try load("{ embedded: true }").get()
        XCTAssertNil(plain.targetPolicy)
        XCTAssertEqual(plain.serverPolicy(embedded: true), .reference)
        XCTAssertEqual(plain.serverPolicy(embedded: false), .undeclared)
        XCTAssertEqual(plain.embeddedUnmergePolicy, .holdSplit)
        let held = try load("{ embedded: true, policy: { unmerge: leave-group } }").get()
        XCTAssertEqual(held.embeddedUnmergePolicy, .leaveGroup)
        XCTAssertEqual(held.serverPolicy(embedded: true), ServerPolicy(unmerge: .leaveGroup))
    }

    func testUnknownPolicyWordIsAnErrorAtItsPositionWithASuggestion() {
        guard case .failure(let errors) = load("{ embedded: true, policy: { unmerge: hold-grop } }") else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(errors.errors.count, 1, "\(errors)")
        XCTAssertEqual(errors.errors[0].mark, Mark(line: 6, column: 46))
        XCTAssertEqual(errors.errors[0].suggestion, "hold-group")
        XCTAssertTrue(errors.errors[0].description.hasPrefix("policy.yaml:6:46: error: unknown unmerge policy"),
                      errors.errors[0].description)
    }

    func testUnknownPolicyKeyIsAnErrorWithASuggestion() {
        guard case .failure(let errors) = load("{ embedded: true, policy: { unmrge: hold-group } }") else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(errors.errors.map(\.mark), [Mark(line: 6, column: 37)])
        XCTAssertEqual(errors.errors.first?.suggestion, "unmerge")
    }

    func testValidateSaysWhichPolicyTheCheckerHoldsTheServerTo() throws {
        XCTAssertTrue(try load("{ embedded: true }").get().describe()
            .contains("server policy: unmerge hold-split"))
        XCTAssertTrue(try load("{ url: \"http://127.0.0.1:9000\" }").get().describe()
            .contains("server policy: none declared (unmerge-follows-policy will not be checked)"))
    }
}
