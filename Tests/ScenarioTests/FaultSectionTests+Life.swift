import XCTest
@testable import Scenario
import Faults

/// The phone's own life (issue 37): the `device:` window keys, the flow steps and the app's choices, and every
/// mistake at its file:line:column.
extension FaultSectionTests {
    private func lifeScenario(_ faults: String, device: String = "{}", steps: String = "") -> String {
        """
        name: life
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }
        target: { embedded: true }
        device: \(device)
        faults:
        \(faults)
        """ + steps
    }

    func testLifeEventsReadSharesTheInterruptionsActionAndTheirDelay() throws {
        let s = try load(lifeScenario("""
              - { at: 1s, for: 2s, device: { interrupted: 30%, interrupted_action: hold, life_after: 1s } }
              - { at: 3s, for: 2s, device: { manager_reset: 5%, relaunch: 10%, filtered: 0.2 } }
            """, device: "{ relaunch: rejoin, filtered_status: 486 }")).get()
        let first = try XCTUnwrap(s.faults[0].device?.life)
        XCTAssertEqual(first.interrupted, 0.3)
        XCTAssertEqual(first.interruption, .hold)
        XCTAssertEqual(first.after, .constant(1_000_000_000))
        let second = try XCTUnwrap(s.faults[1].device?.life)
        XCTAssertEqual([second.managerReset, second.relaunch, second.filtered], [0.05, 0.1, 0.2])
        XCTAssertEqual(second.interruption, .either)
        XCTAssertEqual(s.device.life.relaunch, .rejoin)
        XCTAssertEqual(s.device.life.filteredStatus, 486)
    }

    func testLifeMistakesAreReportedWhereTheyAre() {
        let found = errors(lifeScenario("""
              - { at: 1s, for: 2s, device: { interrupted: 30%, interrupted_action: pause } }
            """, device: "{ filtered_status: 404 }"))
        XCTAssertEqual(found.count, 2, "\(found)")
        let texts = found.map(\.description)
        XCTAssertTrue(texts.contains { $0.contains("interrupted_action") && $0.contains("hold, end, either") },
                      "\(texts)")
        XCTAssertTrue(texts.contains { $0.contains("filtered_status") && $0.contains("486, 603") }, "\(texts)")
    }

    func testLifeStepsNameTheirEventConversationAndTheInterruptionsThen() throws {
        let s = try load(lifeScenario("  - { at: 1s, for: 2s, device: { filtered: 1% } }", steps: """

            mix: { life: 100 }
            flows:
              life:
                roles: [caller, callee]
                steps:
                  - { role: caller, do: start, to: [callee] }
                  - { role: callee, do: interrupted, then: end }
                  - { role: callee, do: relaunch }
            """)).get()
        let steps = try XCTUnwrap(s.flows["life"]?.steps)
        XCTAssertEqual(steps[1].kind, .life(LifeStep(kind: .interrupted, interruption: .end, conversation: "main")))
        XCTAssertEqual(steps[2].kind, .life(LifeStep(kind: .relaunch, conversation: "main")))
        XCTAssertEqual(steps[1].description, "interrupted: callee interrupted main (end)")
    }
}
