import Foundation
import XCTest
@testable import Scenario
import ScenarioLoading
import TestSupport
import Quantities

final class ScenarioLoaderTests: XCTestCase {
    private func load(_ yaml: String, knownFlows: Set<String> = ["incoming-1to1"]) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(yaml, file: "test.yaml", knownFlows: knownFlows)
    }

    private func errors(_ yaml: String, knownFlows: Set<String> = ["incoming-1to1"]) -> [ScenarioError] {
        switch load(yaml, knownFlows: knownFlows) {
        case .success(let scenario):
            XCTFail("expected errors, got \(scenario)")
            return []
        case .failure(let errors):
            return errors.errors
        }
    }

    private let minimal = """
        name: smoke
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }

        """

    // MARK: - Acceptance

    func testTypoBadDurationAndNegativeRateAreAllReportedWithPositions() {
        let yaml = """
            name: broken
            devcies: 10
            duration: 10 seconds
            load:
              - hold: { rate: -5/s, for: 10s }

            """
        let found = errors(yaml)
        XCTAssertEqual(found.count, 3, "\(found)")
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 2, column: 1), Mark(line: 3, column: 11), Mark(line: 5, column: 19),
        ])
        XCTAssertEqual(found[0].suggestion, "devices")
        XCTAssertTrue(found[0].message.contains("unknown key 'devcies'"), found[0].message)
        XCTAssertTrue(found[1].message.contains("expected a duration like 250ms or 2s, got '10 seconds'"))
        XCTAssertTrue(found[2].message.contains("negative"), found[2].message)
        XCTAssertEqual(
            found[0].description,
            "test.yaml:2:1: error: unknown key 'devcies' in the scenario (did you mean 'devices'?)"
        )
    }

    func testErrorsDescriptionHasOneSortedLinePerError() {
        let yaml = "name: x\nload: []\ndevices: 1\nseed: -3\n"
        guard case .failure(let errors) = load(yaml) else { return XCTFail("expected errors") }
        let lines = errors.description.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, errors.description)
        XCTAssertTrue(lines[0].hasPrefix("test.yaml:2:7: error: 'load' needs at least one stage"), "\(lines[0])")
        XCTAssertTrue(lines[1].hasPrefix("test.yaml:3:10: error: 'devices' must be at least 2"), "\(lines[1])")
        XCTAssertTrue(lines[2].hasPrefix("test.yaml:4:7: error: 'seed' must be a non-negative"), "\(lines[2])")
    }

    // MARK: - Defaults and full files

    func testMinimalScenarioGetsDefaults() throws {
        let scenario = try load(minimal).get()
        var expected = Scenario(
            name: "smoke", devices: 10, load: [.hold(rate: 5, nanos: 10_000_000_000)], sourceFile: "test.yaml"
        )
        expected.flows = ["incoming-1to1": try XCTUnwrap(BuiltinFlows.flow(named: "incoming-1to1"))]
        XCTAssertEqual(scenario, expected)
        XCTAssertEqual(scenario.seed, 1)
        XCTAssertEqual(scenario.target, .embedded)
        XCTAssertEqual(scenario.push, PushSpec(listenHost: "127.0.0.1", listenPort: 0))
        XCTAssertEqual(scenario.push.deadlineNanos, 5_000_000_000)
        XCTAssertEqual(scenario.mix, [MixEntry(flow: "incoming-1to1", weight: 100)])
        XCTAssertEqual(scenario.behavior, Behavior(answerAfter: .constant(1_000_000_000),
                                                   talk: .constant(5_000_000_000), hangup: .random))
        XCTAssertEqual(scenario.drainNanos, 30_000_000_000)
        XCTAssertEqual(scenario.actionTimeoutNanos, 10_000_000_000)
        XCTAssertNil(scenario.workers)
        XCTAssertNil(scenario.duration)
    }

    func testEverySettingIsRead() throws {
        let yaml = """
            name: nightly
            seed: 42
            duration: 3m
            target: { url: "http://127.0.0.1:8080" }
            push: { listen: "127.0.0.1:2197", deadline: 2s, bundle_id: com.acme.phone }
            devices: 5000
            load:
              - { ramp: { from: 0/s, to: 50/s, over: 1m } }
              - { hold: { rate: 3000/m, for: 2m } }
            arrivals: poisson
            mix: { group-merge: 20, incoming-1to1: 80 }
            behavior:
              answer_after: { lognormal: { median: 3s, sigma: 0.5 } }
              talk: { exponential: { mean: 60s } }
              hangup: callee
            drain: 10s
            action_timeout: 4s
            workers: 2

            """
        let scenario = try load(yaml, knownFlows: ["incoming-1to1", "group-merge"]).get()
        XCTAssertEqual(scenario.seed, 42)
        XCTAssertEqual(scenario.duration, 180_000_000_000)
        XCTAssertEqual(scenario.target, .url("http://127.0.0.1:8080"))
        XCTAssertEqual(scenario.push, PushSpec(listenHost: "127.0.0.1", listenPort: 2197,
                                               deadlineNanos: 2_000_000_000, bundleID: "com.acme.phone"))
        XCTAssertEqual(scenario.devices, 5000)
        XCTAssertEqual(scenario.load.count, 2)
        XCTAssertEqual(scenario.load[0], .ramp(from: 0, to: 50, nanos: 60_000_000_000))
        guard case .hold(let rate, let nanos) = scenario.load[1] else { return XCTFail("expected a hold") }
        XCTAssertEqual(rate, 50, accuracy: 1e-9)
        XCTAssertEqual(nanos, 120_000_000_000)
        XCTAssertEqual(scenario.arrivals, .poisson)
        XCTAssertEqual(scenario.mix.map(\.flow), ["group-merge", "incoming-1to1"], "file order is kept")
        XCTAssertEqual(scenario.behavior.answerAfter, .lognormal(median: 3_000_000_000, sigma: 0.5))
        XCTAssertEqual(scenario.behavior.talk, .exponential(mean: 60_000_000_000))
        XCTAssertEqual(scenario.behavior.hangup, .callee)
        XCTAssertEqual(scenario.drainNanos, 10_000_000_000)
        XCTAssertEqual(scenario.actionTimeoutNanos, 4_000_000_000)
        XCTAssertEqual(scenario.workers, 2)
    }

    func testEveryDistributionShapeIsRead() throws {
        let cases: [(String, Distribution)] = [
            ("2s", .constant(2_000_000_000)),
            ("{ constant: 2s }", .constant(2_000_000_000)),
            ("{ uniform: [200ms, 2s] }", .uniform(200_000_000, 2_000_000_000)),
            ("{ normal: { mean: 1s, stddev: 200ms } }", .normal(mean: 1_000_000_000, stddev: 200_000_000)),
            ("{ exponential: { mean: 60s } }", .exponential(mean: 60_000_000_000)),
            ("{ lognormal: { median: 3s, sigma: 0.5 } }", .lognormal(median: 3_000_000_000, sigma: 0.5)),
            ("{ pareto: { scale: 1s, shape: 1.5 } }", .pareto(scale: 1_000_000_000, shape: 1.5)),
        ]
        for (text, expected) in cases {
            let scenario = try load(minimal + "behavior: { talk: \(text) }\n").get()
            XCTAssertEqual(scenario.behavior.talk, expected, text)
        }
    }

    // MARK: - Problems

    func testMissingRequiredKeysArePositionedAtTheMapping() {
        let found = errors("seed: 3\n")
        XCTAssertEqual(found.map(\.mark), Array(repeating: Mark(line: 1, column: 1), count: 3))
        XCTAssertEqual(found.map(\.message), [
            "the scenario is missing the required key 'name'",
            "the scenario is missing the required key 'devices'",
            "the scenario is missing the required key 'load'",
        ])
    }

    func testUnknownNestedKeySuggestsFromItsOwnMapping() {
        let found = errors(minimal + "behavior: { anwser_after: 2s }\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.suggestion, "answer_after")
        XCTAssertEqual(found.first?.mark, Mark(line: 5, column: 13))
    }

    func testUnknownKeyWithNothingCloseListsTheKnownKeys() {
        let found = errors(minimal + "banana: 1\n")
        XCTAssertNil(found.first?.suggestion)
        XCTAssertTrue(found.first?.message.contains("expected one of: name, seed") ?? false, "\(found)")
    }

    func testReservedSectionsAreNotSupportedYet() {
        let found = errors(minimal + "race: []\npush: { tls: true }\n")
        XCTAssertEqual(found.map(\.message), [
            "'race' in the scenario is not supported yet; remove it",
        ])
    }

    func testPushTLSAuthKeysAndUnregisteredTokensAreRead() throws {
        let token = String(repeating: "ab", count: 32)
        let yaml = minimal + """
            push:
              tls: false
              auth: { keys: { ABCDEFGHIJ: keys/AuthKey.p8 }, team: TEAM123456 }
              unregistered: [\(token)]

            """
        let push = try load(yaml).get().push
        XCTAssertFalse(push.tls)
        XCTAssertEqual(push.authKeyPaths, ["ABCDEFGHIJ": "keys/AuthKey.p8"])
        XCTAssertEqual(push.authTeamID, "TEAM123456")
        XCTAssertEqual(push.unregisteredTokens, [token])
        XCTAssertTrue(try load(minimal).get().push.tls, "TLS is on unless the scenario turns it off")
    }

    func testPushAuthRejectsShortKeyIDsAndTeamIDs() {
        let found = errors(minimal + "push: { auth: { keys: { SHORT: k.pem }, team: T1 }, unregistered: [zz] }\n")
        XCTAssertEqual(found.count, 3, "\(found)")
    }

    func testUnknownFlowSuggestsAKnownFlow() {
        let found = errors(minimal + "mix: { incoming-1to2: 50, group-merge: 50 }\n",
                           knownFlows: ["incoming-1to1", "group-merge"])
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.suggestion, "incoming-1to1")
        XCTAssertEqual(found.first?.mark, Mark(line: 5, column: 8))
    }

    func testMixWeightsMustBePositiveNumbers() {
        let found = errors(minimal + "mix: { incoming-1to1: 0 }\n")
        XCTAssertEqual(found.map(\.message), ["'weight of incoming-1to1' must be greater than 0, got '0'"])
        XCTAssertEqual(errors(minimal + "mix: { incoming-1to1: lots }\n").count, 1)
        XCTAssertEqual(errors(minimal + "mix: {}\n").count, 1)
    }

    func testWrongTypesAreExplained() {
        let found = errors("""
            name: [a]
            devices: many
            load: { hold: 1 }
            arrivals: poison

            """)
        XCTAssertEqual(found.count, 4, "\(found)")
        XCTAssertEqual(found[0].message, "expected a string for 'name', got a sequence")
        XCTAssertEqual(found[1].message, "expected a whole number for 'devices', got 'many'")
        XCTAssertTrue(found[2].message.hasPrefix("expected 'load' to be a list of stages"))
        XCTAssertEqual(found[3].suggestion, "poisson")
    }

    func testBareNumberDurationSaysWhichUnitToAdd() {
        let found = errors(minimal + "duration: 10\n")
        XCTAssertTrue(found.first?.message.contains("add a unit") ?? false, "\(found)")
        XCTAssertEqual(found.first?.suggestion, "10s")
    }

    func testLoadStageMustNameExactlyOneKind() {
        let yaml = "name: x\ndevices: 2\nload:\n  - { hold: { rate: 1/s, for: 1s }, ramp: { from: 0/s, to: 1/s, "
            + "over: 1s } }\n  - { hodl: { rate: 1/s, for: 1s } }\n  - { ramp: { from: 0/s, to: 1/s } }\n"
        let found = errors(yaml)
        XCTAssertEqual(found.count, 3, "\(found)")
        XCTAssertTrue(found[0].message.contains("exactly one of 'hold', 'ramp'"), found[0].message)
        XCTAssertEqual(found[1].suggestion, "hold")
        XCTAssertEqual(found[2].message, "'ramp' is missing the required key 'over'")
    }

    func testStageWithoutSettingsSaysSo() {
        let found = errors("name: x\ndevices: 2\nload: [ { hold: }, {} ]\n")
        XCTAssertEqual(found.map(\.message), [
            "'hold' in a load stage needs a value",
            "expected a load stage to be a mapping with one of 'hold', 'ramp', got an empty mapping",
        ])
    }

    func testZeroLengthStageIsRejected() {
        let found = errors("name: x\ndevices: 2\nload: [ { hold: { rate: 1/s, for: 0s } } ]\n")
        XCTAssertEqual(found.map(\.message), ["'for' must be longer than 0, got '0s'"])
    }

    func testTargetNeedsOneWayToReachTheServer() {
        XCTAssertEqual(errors(minimal + "target: { embedded: false }\n").count, 1)
        XCTAssertEqual(errors(minimal + "target: { embedded: true, url: \"http://a\" }\n").count, 1)
        XCTAssertEqual(errors(minimal + "target: { url: \"ftp://a\" }\n").count, 1)
        XCTAssertEqual(errors(minimal + "target: {}\n").count, 1)
        XCTAssertEqual(try load(minimal + "target: { embedded: true }\n").get().target, .embedded)
    }

    func testPushBlockAfterMissesIsReadAndMustBePositive() throws {
        XCTAssertEqual(try load(minimal + "push: { block_after_misses: 5 }\n").get().push.blockAfterMisses, 5)
        XCTAssertEqual(try load(minimal).get().push.blockAfterMisses, 3, "default")
        XCTAssertEqual(errors(minimal + "push: { block_after_misses: 0 }\n").count, 1)
    }

    func testPushListenMustBeHostAndPort() throws {
        XCTAssertEqual(errors(minimal + "push: { listen: \"127.0.0.1\" }\n").count, 1)
        XCTAssertEqual(errors(minimal + "push: { listen: \"127.0.0.1:70000\" }\n").count, 1)
        let v6 = try load(minimal + "push: { listen: \"[::1]:2197\" }\n").get().push
        XCTAssertEqual(v6.listenHost, "::1")
        XCTAssertEqual(v6.listenPort, 2197)
    }

    func testUniformBoundsMustBeOrdered() {
        let found = errors(minimal + "behavior: { talk: { uniform: [2s, 200ms] } }\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found.first?.message.contains("smaller bound first") ?? false)
    }

    func testDuplicateKeyIsReportedAlongsideOtherProblems() {
        let found = errors(minimal + "seed: 1\nseed: 2\nworkers: 0\n")
        XCTAssertEqual(found.count, 2, "\(found)")
        XCTAssertTrue(found[0].message.hasPrefix("duplicate key 'seed'"))
        XCTAssertEqual(found[1].message, "'workers' must be at least 1, got 0")
    }

    func testNullOptionalValueMeansDefault() throws {
        let scenario = try load(minimal + "workers:\nseed: ~\n").get()
        XCTAssertNil(scenario.workers)
        XCTAssertEqual(scenario.seed, 1)
        XCTAssertEqual(errors("name:\ndevices: 2\nload: [ { hold: { rate: 1/s, for: 1s } } ]\n").map(\.message),
                       ["'name' in the scenario needs a value"])
    }

    func testSyntaxErrorIsPositioned() {
        let found = errors("name: x\ndevices: 2\nload: [ { hold: { rate: 1/s, for: 1s } }\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].message.hasPrefix("invalid YAML: "), found[0].message)
    }

    func testEmptyFileIsAnError() {
        XCTAssertEqual(errors("").map(\.message), [
            "the scenario is empty; it needs at least 'name', 'devices' and 'load'",
        ])
        XCTAssertEqual(errors("- a\n").count, 1)
    }

    // MARK: - Files

    func testMissingFileNamesThePath() {
        let path = "/nonexistent/dir/missing.yaml"
        guard case .failure(let errors) = ScenarioLoader.load(contentsOf: path) else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(errors.errors.count, 1)
        XCTAssertEqual(errors.description,
                       "\(path): error: cannot read scenario file '\(path)': No such file or directory")
    }

    func testLoadsAFileFromDisk() throws {
        let path = TemporaryDirectory.path("scenario", suffix: ".yaml").path
        try minimal.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scenario = try ScenarioLoader.load(contentsOf: path).get()
        XCTAssertEqual(scenario.name, "smoke")
        XCTAssertEqual(scenario.sourceFile, path)
    }
}
