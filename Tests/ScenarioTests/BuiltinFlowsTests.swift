import Foundation
import XCTest
@testable import Scenario
import ScenarioLoading

final class BuiltinFlowsTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func shippedPath(_ name: String) -> String {
        Self.packageRoot.appendingPathComponent("Scenarios").appendingPathComponent("\(name).yaml").path
    }

    func testEveryBuiltinFlowParsesWithItsRolesInOrder() {
        let roles: [String: [String]] = [
            "incoming-1to1": ["caller", "callee"], "outgoing-1to1": ["caller", "callee"],
            "declined": ["caller", "callee"], "unanswered": ["caller", "callee"],
            "caller-cancels": ["caller", "callee"], "hold-resume": ["caller", "callee"],
            "group-call": ["host", "guest1", "guest2"], "group-merge": ["ryan", "adam", "david", "andre"],
            "merge-unmerge": ["a", "b", "c"], "redial-after-drop": ["caller", "callee"],
        ]
        XCTAssertEqual(BuiltinFlows.names, [
            "incoming-1to1", "outgoing-1to1", "declined", "unanswered", "caller-cancels", "hold-resume",
            "group-call", "group-merge", "merge-unmerge", "redial-after-drop",
        ])
        for name in BuiltinFlows.names {
            let flow = BuiltinFlows.flow(named: name)
            XCTAssertEqual(flow?.name, name)
            XCTAssertEqual(flow?.roles, roles[name], name)
        }
        XCTAssertNil(BuiltinFlows.flow(named: "incoming-1to2"))
    }

    func testEachShippedScenarioValidatesAndDefinesItsBuiltinFlowInline() throws {
        for name in BuiltinFlows.names {
            let path = shippedPath(name)
            let scenario = try ScenarioLoader.load(contentsOf: path).get()
            XCTAssertEqual(scenario.mix.map(\.flow), [name], path)
            XCTAssertEqual(scenario.flows[name], BuiltinFlows.flow(named: name), "\(path) differs from the built-in")
            XCTAssertEqual(scenario.device, DeviceProfile(), path)
            // The file must carry the definition itself, not lean on the built-in of the same name.
            let root = try YAMLParser.parse(String(decoding: FileManager.default.contents(atPath: path) ?? Data(),
                                                   as: UTF8.self), file: path)
            guard let flows = ScenarioDecoder.topLevelValue(root, "flows"),
                  case .mapping(let pairs, _) = flows else { return XCTFail("\(path) has no flows: section") }
            XCTAssertEqual(pairs.compactMap { $0.key.scalarText }, [name], path)
        }
    }

    func testIncomingOneToOneStepsAndDefaultNames() throws {
        let flow = try XCTUnwrap(BuiltinFlows.flow(named: "incoming-1to1"))
        XCTAssertEqual(flow.steps, [
            FlowStep(name: "dial", role: "caller", kind: .start(to: ["callee"], conversation: "main", video: false)),
            FlowStep(name: "ring", role: "callee", kind: .awaitPush(conversation: "main")),
            FlowStep(name: "wait", role: nil, kind: .waitBehavior("answer_after")),
            FlowStep(name: "answer", role: "callee", kind: .join(conversation: "main")),
            FlowStep(name: "wait-2", role: nil, kind: .waitBehavior("talk")),
            FlowStep(name: "hangup", role: Flow.hangupRole, kind: .end(conversation: "main", reason: nil)),
            FlowStep(name: "caller-sees-end", role: "caller", kind: .awaitEnd(conversation: "main")),
            FlowStep(name: "callee-sees-end", role: "callee", kind: .awaitEnd(conversation: "main")),
        ])
    }

    func testUnansweredAndCallerCancelsUseFixedRingTimes() throws {
        let unanswered = try XCTUnwrap(BuiltinFlows.flow(named: "unanswered"))
        XCTAssertEqual(unanswered.steps[2],
                       FlowStep(name: "ring-timeout", role: nil, kind: .wait(.constant(3_000_000_000))))
        XCTAssertEqual(unanswered.steps[3].kind, .end(conversation: "main", reason: "unanswered"))
        let cancels = try XCTUnwrap(BuiltinFlows.flow(named: "caller-cancels"))
        XCTAssertEqual(cancels.steps[2].kind, .wait(.uniform(200_000_000, 800_000_000)))
        XCTAssertEqual(cancels.steps[3],
                       FlowStep(name: "cancel", role: "caller", kind: .end(conversation: "main", reason: nil)))
    }

    func testGroupMergeTellsTheSeedStory() throws {
        let flow = try XCTUnwrap(BuiltinFlows.flow(named: "group-merge"))
        let byName = Dictionary(uniqueKeysWithValues: flow.allSteps.map { ($0.name, $0) })
        XCTAssertEqual(byName["dial-group"]?.kind, .start(to: ["adam", "david"], conversation: "group", video: false))
        XCTAssertEqual(byName["hold-group"]?.kind, .pause(conversation: "group"))
        XCTAssertEqual(byName["dial-side"]?.kind, .start(to: ["andre"], conversation: "side", video: false))
        XCTAssertEqual(byName["merge"]?.kind, .merge(conversation: "group", with: "side"))
        XCTAssertEqual(byName["unmerge"]?.kind, .unmerge(conversation: "group", member: "andre", into: "andre-again"))
        XCTAssertEqual(byName["andre-sees-end"]?.kind, .awaitEnd(conversation: "andre-again"))
        XCTAssertEqual(flow.steps.last?.name, "david-sees-end")
    }

    func testBuiltinStepNamesAreUniqueAndEveryActionHasARole() {
        for name in BuiltinFlows.names {
            let steps = BuiltinFlows.flow(named: name)?.allSteps ?? []
            XCTAssertFalse(steps.isEmpty, name)
            XCTAssertEqual(Set(steps.map(\.name)).count, steps.count, name)
            for step in steps {
                XCTAssertEqual(step.role != nil, step.kind.isAction, "\(name)/\(step.name)")
            }
        }
    }
}
