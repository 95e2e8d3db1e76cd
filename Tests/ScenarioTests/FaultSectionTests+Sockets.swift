import XCTest
@testable import Scenario
import Faults

/// Socket faults in a window: `device: { socket_drop, socket_stall }` and `target: { socket_storm }`, and every
/// mistake at its file:line:column.
extension FaultSectionTests {
    /// A 10 s run against `target`, devices holding sockets as `socket` says; `faults` from line 8 on.
    private func socketScenario(_ faults: String, target: String = "target: { embedded: true }",
                                socket: String = "always") -> String {
        """
        name: sockets
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        \(target)
        device: { socket: \(socket) }
        faults:
        \(faults)
        """
    }

    func testSocketDropReadsAShareOrAShareWithACloseCode() throws {
        let s = try load(socketScenario("""
              - { at: 1s, for: 2s, device: { socket_drop: 20% } }
              - { at: 3s, for: 2s, device: { socket_drop: { probability: 0.5, code: 1001 } } }
            """)).get()
        XCTAssertEqual(s.faults.map(\.device?.socketDrop), [SocketDropFaults(probability: 0.2),
                                                            SocketDropFaults(probability: 0.5, code: 1001)])
    }

    func testSocketFaultsNarrowToRolesOfTheMixedFlows() throws {
        let s = try load(socketScenario("""
              - { at: 1s, for: 2s, device: { socket_drop: { probability: 1, roles: [callee] } } }
              - { at: 3s, for: 2s, device: { socket_stall: { for: 1s, roles: caller } } }
            """)).get()
        XCTAssertEqual(s.faults[0].device?.socketDrop?.roles, ["callee"])
        XCTAssertEqual(s.faults[1].device?.socketStall?.roles, ["caller"])
        let found = errors(socketScenario(
            "  - { at: 1s, for: 2s, device: { socket_drop: { probability: 1, roles: [calee] } } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 8, column: 73)], "\(found)")
        XCTAssertEqual(found.first?.suggestion, "callee")
    }

    func testSocketStallReadsADurationOrADistributionWithAShare() throws {
        let s = try load(socketScenario("""
              - { at: 1s, for: 2s, device: { socket_stall: 3s } }
              - { at: 3s, for: 2s, device: { socket_stall: { for: { uniform: [1s, 2s] }, probability: 10% } } }
            """)).get()
        XCTAssertEqual(s.faults[0].device?.socketStall, SocketStallFaults(duration: .constant(3_000_000_000)))
        XCTAssertEqual(s.faults[1].device?.socketStall,
                       SocketStallFaults(probability: 0.1, duration: .uniform(1_000_000_000, 2_000_000_000)))
    }

    func testACloseCodeThatCannotBeSentIsAnErrorAtItsPosition() {
        let found = errors(socketScenario(
            "  - { at: 1s, for: 2s, device: { socket_drop: { probability: 1, code: 1006 } } }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 8, column: 71)], "\(found)")
        XCTAssertTrue(found[0].message.contains("cannot be sent in a close frame"), found[0].message)
    }

    func testSocketStallWithoutForAndAMisspeltKeyAreErrors() {
        let found = errors(socketScenario("""
              - { at: 1s, for: 2s, device: { socket_stall: { probability: 10% } } }
              - { at: 3s, for: 2s, device: { socket_dorp: 10% } }
            """))
        XCTAssertEqual(found.count, 2, "\(found)")
        XCTAssertTrue(found[0].message.contains("'for'"), found[0].message)
        XCTAssertEqual(found[1].mark, Mark(line: 9, column: 34))
        XCTAssertEqual(found[1].suggestion, "socket_drop")
    }

    func testSocketStormOnTheEmbeddedTargetIsAStormWithoutAKill() throws {
        let s = try load(socketScenario("""
              - { at: 1s, for: 2s, target: { socket_storm: true } }
              - { at: 4s, for: 2s, target: { socket_storm: { code: 1001 } } }
            """)).get()
        XCTAssertEqual(s.faults.map(\.target), [TargetFaults(kill: false, socketStorm: SocketStormFaults()),
                                                TargetFaults(kill: false, socketStorm: SocketStormFaults(code: 1001))])
    }

    func testSocketStormAgainstAURLTargetIsAnErrorAtTheStorm() {
        let found = errors(socketScenario("  - { at: 1s, for: 2s, target: { socket_storm: true } }",
                                    target: "target: { url: \"http://127.0.0.1:9\" }"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 8, column: 48)], "\(found)")
        XCTAssertTrue(found[0].message.contains("socket_drop: 100%"), found[0].message)
    }

    func testSocketStormAgainstAChildProcessTargetIsAnError() {
        let found = errors(socketScenario("  - { at: 1s, for: 2s, target: { socket_storm: { code: 1001 } } }",
                                    target: "target: { embedded: true, process: true }"))
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found[0].message.contains("process: true"), found[0].message)
    }

    func testSocketFaultsNeedDevicesThatHoldASocket() {
        let found = errors(socketScenario("""
              - { at: 1s, for: 2s, device: { socket_drop: 5%, socket_stall: 1s } }
              - { at: 3s, for: 2s, target: { socket_storm: true } }
            """, socket: "none"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 8, column: 47), Mark(line: 8, column: 65),
                                           Mark(line: 9, column: 48)], "\(found)")
        XCTAssertTrue(found[0].message.contains("socket: always"), found[0].message)
    }

    func testATargetSectionNeedsKillOrAStormAndRestartNeedsAKill() {
        let found = errors(socketScenario("""
              - { at: 1s, for: 2s, target: { } }
              - { at: 3s, for: 2s, target: { socket_storm: true, restart_after: 1s } }
            """))
        XCTAssertEqual(found.count, 2, "\(found)")
        XCTAssertTrue(found[0].message.contains("'kill: true' or 'socket_storm'"), found[0].message)
        XCTAssertEqual(found[1].mark, Mark(line: 9, column: 69))
    }
}
