import XCTest
@testable import Scenario
import Faults

/// The `faults:` section: what each window reads into, and every mistake reported at its file:line:column.
final class FaultSectionTests: XCTestCase {
    func load(_ yaml: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(yaml, file: "chaos.yaml", knownFlows: ["incoming-1to1"])
    }

    func errors(_ yaml: String) -> [ScenarioError] {
        switch load(yaml) {
        case .success(let scenario):
            XCTFail("expected errors, got \(scenario.faults)")
            return []
        case .failure(let errors):
            return errors.errors
        }
    }

    /// A 10 s run; `faults` is appended as the last lines (line 6 on).
    private func scenario(_ faults: String, target: String = "") -> String {
        """
        name: chaos
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        \(target.isEmpty ? "seed: 3" : target)
        faults:
        \(faults)
        """
    }

    func testUnknownFaultKindIsAnErrorAtItsPositionWithASuggestion() {
        let found = errors(scenario("  - { at: 1s, for: 2s, push: { dealy: 200ms } }"))
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found[0].mark, Mark(line: 7, column: 32))
        XCTAssertEqual(found[0].suggestion, "delay")
        XCTAssertTrue(found[0].description.hasPrefix("chaos.yaml:7:32: error: unknown key 'dealy'"),
                      found[0].description)
    }

    func testUnknownNetworkToxicIsAnError() {
        let found = errors(scenario("  - { at: 1s, for: 2s, network: { rest: 1% } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 35)])
        XCTAssertEqual(found.first?.suggestion, "reset")
    }

    func testWindowStartingAfterTheRunIsAnErrorAtItsStart() {
        let found = errors(scenario("  - { at: 12s, for: 2s, push: { drop: 5% } }"))
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found[0].mark, Mark(line: 7, column: 11))
        XCTAssertTrue(found[0].message.contains("after the arrivals end at 10s"), found[0].message)
    }

    func testProbabilityAboveOneIsAnErrorWithThePercentSuggested() {
        let found = errors(scenario("""
              - { at: 1s, for: 2s, push: { drop: 10 } }
              - { at: 3s, for: 2s, network: { reset: 150% } }
              - { at: 5s, for: 2s, network: { latency: 50ms, probability: 1.5 } }
            """))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 38), Mark(line: 8, column: 42),
                                           Mark(line: 9, column: 63)], "\(found)")
        XCTAssertEqual(found[0].suggestion, "10%")
        XCTAssertTrue(found.allSatisfy { $0.message.contains("is a probability from 0 to 1") }, "\(found)")
    }

    func testNetworkWindowReadsItsToxicsDirectionAndProbability() throws {
        let s = try load(scenario("""
              - { name: lossy, at: 1s, for: 2s, network: { latency: 80ms, jitter: 10ms, reset: 1%,
                  direction: both, probability: 50%, connections: pooled } }
            """)).get()
        let network = try XCTUnwrap(s.faults.first?.network)
        XCTAssertEqual(network.toxics["latency"], ["ms": 80])
        XCTAssertEqual(network.toxics["jitter"], ["ms": 10])
        XCTAssertEqual(network.toxics["reset"], ["toxicity": 0.01])
        XCTAssertEqual(network.direction, "both")
        XCTAssertEqual(network.probability, 0.5)
        XCTAssertFalse(network.freshConnections)
    }

    func testTargetFaultNeedsATargetCallstormRuns() {
        let found = errors(scenario("  - { at: 1s, for: 2s, target: { kill: true } }"))
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found[0].mark, Mark(line: 7, column: 32))
        XCTAssertTrue(found[0].message.contains("process: true"), found[0].message)
    }

    /// The Kamailio a SIP run starts is a target callstorm runs too: a window kills and restarts it.
    func testTargetFaultOnTheKamailioASIPRunStartsIsRead() throws {
        let yaml = """
            name: storm
            devices: 10
            load: [{ hold: { rate: 5/s, for: 10s } }]
            target: { sip: { kamailio: true } }
            device: { signaling: sip, sleep: false, transport: tcp }
            faults:
              - { at: 1s, for: 3s, target: { kill: true, restart_after: 1s } }
            """
        let s = try load(yaml).get()
        XCTAssertFalse(s.targetProcess)
        XCTAssertEqual(s.faults.first?.target, TargetFaults(kill: true, restartAfterNanos: 1_000_000_000))
        let registrar = yaml.replacingOccurrences(of: "kamailio: true", with: "registrar: \"127.0.0.1:5060\"")
        let found = errors(registrar)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found[0].message.contains("target.sip.kamailio"), found[0].message)
    }

    func testTargetFaultReadsKillRestartAndSignal() throws {
        let s = try load(scenario("  - { at: 1s, for: 3s, target: { kill: true, restart_after: 1s, signal: TERM } }",
                                  target: "target: { embedded: true, process: true }")).get()
        XCTAssertTrue(s.targetProcess)
        XCTAssertEqual(s.faults.first?.target, TargetFaults(kill: true, restartAfterNanos: 1_000_000_000,
                                                            signal: "TERM"))
    }

    func testRestartAfterLongerThanTheWindowIsAnError() {
        let found = errors(scenario("  - { at: 1s, for: 2s, target: { kill: true, restart_after: 5s } }",
                                    target: "target: { embedded: true, process: true }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 61)], "\(found)")
    }

    func testRampAndFlowsNarrowAWindow() throws {
        let s = try load(scenario("  - { at: 2s, for: 4s, ramp: 2s, flows: [incoming-1to1], push: { drop: 50% } }"))
            .get()
        let w = try XCTUnwrap(s.faults.first)
        XCTAssertEqual(w.flows, ["incoming-1to1"])
        XCTAssertEqual(w.intensity(at: 2_000_000_000), 0)
        XCTAssertEqual(w.intensity(at: 3_000_000_000), 0.5)
        XCTAssertEqual(w.intensity(at: 5_000_000_000), 1)
        XCTAssertEqual(FaultWindow(name: "x", atNanos: 0, forNanos: 1).intensity(at: 0), 1, "no ramp: full at once")
    }

    func testFlowNotInTheMixAndRampLongerThanTheWindowAreErrors() {
        let found = errors(scenario("  - { at: 2s, for: 1s, ramp: 2s, flows: [incoming-1to2], push: { drop: 5% } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 30), Mark(line: 7, column: 42)], "\(found)")
        XCTAssertEqual(found.last?.suggestion, "incoming-1to1")
    }

    func testPushWindowReadsReorderBrownoutAndGoaway() throws {
        let s = try load(scenario("""
              - { at: 1s, for: 2s, push: { reorder: 10%, reorder_hold: 500ms, goaway: 2% } }
              - { at: 4s, for: 1s, push: { brownout: stall } }
            """)).get()
        let first = try XCTUnwrap(s.faults.first?.push)
        XCTAssertEqual(first.reorder, 0.1)
        XCTAssertEqual(first.reorderHoldNanos, 500_000_000)
        XCTAssertEqual(first.goaway, 0.02)
        XCTAssertNil(first.brownout)
        XCTAssertEqual(s.faults.last?.push?.brownout, .stall)
    }

    func testBadBrownoutModeReorderHoldAloneAndGoawayAboveOneAreErrorsAtTheirPositions() {
        let found = errors(scenario("""
              - { at: 1s, for: 2s, push: { brownout: stal } }
              - { at: 1s, for: 2s, push: { reorder_hold: 2s } }
              - { at: 1s, for: 2s, push: { goaway: 120% } }
            """))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 42), Mark(line: 8, column: 46),
                                           Mark(line: 9, column: 40)], "\(found)")
        XCTAssertEqual(found[0].suggestion, "stall")
        XCTAssertTrue(found[0].message.contains("one of refuse, stall"), found[0].message)
        XCTAssertTrue(found[1].message.contains("add 'reorder'"), found[1].message)
        XCTAssertTrue(found[2].message.contains("is a probability from 0 to 1"), found[2].message)
    }

    func testClockSkewIsADurationAndNotAProbability() throws {
        let s = try load(scenario("  - { at: 1s, for: 2s, device: { clock_skew: 30s } }")).get()
        XCTAssertEqual(s.faults.first?.device?.clockSkewNanos, 30_000_000_000)
        let found = errors(scenario("  - { at: 1s, for: 2s, device: { clock_skew: 5% } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 46)], "\(found)")
    }

    func testNetemIsRefusedWithTheReasonAndTheProxyToxicsToUseInstead() {
        let found = errors(scenario("  - { at: 1s, for: 2s, network: { netem: { delay: 50ms } } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 42)], "\(found)")
        XCTAssertTrue(found.first?.message.contains("sch_netem") == true, "\(found)")
        XCTAssertTrue(found.first?.message.contains("latency, jitter") == true, "\(found)")
    }

    func testPushExpirationIsWholeSeconds() throws {
        let ok = try load("""
            name: chaos
            devices: 10
            load:
              - hold: { rate: 5/s, for: 10s }
            push: { expiration: 30s }
            """).get()
        XCTAssertEqual(ok.push.expirationSeconds, 30)
        XCTAssertEqual(ScenarioLoader.parse("name: x\ndevices: 10\nload:\n  - hold: { rate: 5/s, for: 10s }\n"
                                            + "push: { expiration: 1500ms }\n", file: "x.yaml").failureMarks,
                       [Mark(line: 5, column: 21)])
    }
}

private extension Result where Failure == ScenarioErrors {
    var failureMarks: [Mark] {
        if case .failure(let e) = self { return e.errors.map(\.mark) }
        return []
    }
}
