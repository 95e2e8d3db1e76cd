import XCTest
@testable import Scenario

/// The `flows:` and `device:` sections (ScenarioDecoder+Flows.swift).
final class FlowLanguageTests: XCTestCase {
    private let header = """
        name: flows
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }

        """

    /// A scenario running flow `chat` with roles caller and callee and the given step lines (6-space indented).
    private func chat(_ steps: String, extra: String = "") -> String {
        header + "mix: { chat: 100 }\nflows:\n  chat:\n    roles: [caller, callee]\n    steps:\n" + steps + extra
    }

    private let dial = "      - { name: dial, role: caller, do: start, to: [callee] }\n"

    private func errors(_ yaml: String) -> [ScenarioError] {
        switch ScenarioLoader.parse(yaml, file: "flows.yaml") {
        case .success(let scenario):
            XCTFail("expected errors, got \(scenario)")
            return []
        case .failure(let errors):
            return errors.errors
        }
    }

    private func flow(_ yaml: String, _ name: String = "chat") throws -> Flow {
        try XCTUnwrap(ScenarioLoader.parse(yaml, file: "flows.yaml").get().flows[name])
    }

    // MARK: - Acceptance

    func testUnknownStepUndefinedRoleAndBranchOver100PercentAreReportedWithPositions() {
        let yaml = chat("""
                  - { name: dial, role: caller, do: strat, to: [callee] }
                  - { name: ring, role: calee, do: await_push }
                  - name: pick
                    branch:
                      - { p: 70%, steps: [ { role: callee, do: join } ] }
                      - { p: 0.4, steps: [ { role: callee, do: decline } ] }

            """)
        let found = errors(yaml)
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 10, column: 41), Mark(line: 11, column: 29), Mark(line: 13, column: 9),
        ], "\(found)")
        XCTAssertEqual(found.map(\.suggestion), ["start", "callee", nil])
        XCTAssertEqual(found.map(\.description), [
            "flows.yaml:10:41: error: 'do' must be one of start, await_push, join, decline, end, pause, resume, "
                + "merge, unmerge, await_end, await_answer, redial, interrupted, manager_reset, relaunch, filtered, "
                + "got 'strat' (did you mean 'start'?)",
            "flows.yaml:11:29: error: undefined role 'calee' in flow 'chat'; its roles are caller, callee "
                + "(did you mean 'callee'?)",
            "flows.yaml:13:9: error: the probabilities in 'branch' add up to 110%, more than 100%; lower them "
                + "(what is left below 100% does nothing)",
        ])
    }

    // MARK: - Decoding

    func testEveryStepFormDecodesToItsKind() throws {
        let flow = try flow(header + """
            mix: { story: 1 }
            flows:
              story:
                roles: [a, b, c]
                steps:
                  - { name: call, role: a, do: start, to: [b, c], conversation: g, video: true }
                  - role: b
                    do: await_push
                    conversation: g
                  - { role: b, do: join, conversation: g }
                  - { role: c, do: decline, conversation: g }
                  - { role: a, do: pause, conversation: g }
                  - { role: a, do: start, to: c, conversation: side }
                  - { role: a, do: resume, conversation: g }
                  - { role: a, do: merge, conversation: g, with: side }
                  - { role: a, do: unmerge, conversation: g, member: c, into: split }
                  - { role: hangup, do: end, conversation: split, reason: remoteEnded }
                  - { role: c, do: await_end, conversation: split }
                  - { wait: answer_after }
                  - { wait: { uniform: [1s, 2s] } }
                  - name: maybe
                    branch:
                      - { p: 25%, steps: [ { wait: 2s } ] }
                      - { p: 0.5, steps: [ { repeat: 3, steps: [ { role: a, do: pause, conversation: g } ] } ] }
                  - { role: a, do: end, conversation: g }

            """, "story")
        XCTAssertEqual(flow.roles, ["a", "b", "c"])
        XCTAssertEqual(flow.steps.map(\.name), [
            "call", "await_push", "join", "decline", "pause", "start", "resume", "merge", "unmerge", "end",
            "await_end", "wait", "wait-2", "maybe", "end-2",
        ])
        XCTAssertEqual(flow.steps.map(\.kind), [
            .start(to: ["b", "c"], conversation: "g", video: true), .awaitPush(conversation: "g"),
            .join(conversation: "g"), .decline(conversation: "g"), .pause(conversation: "g"),
            .start(to: ["c"], conversation: "side", video: false), .resume(conversation: "g"),
            .merge(conversation: "g", with: "side"), .unmerge(conversation: "g", member: "c", into: "split"),
            .end(conversation: "split", reason: "remoteEnded"), .awaitEnd(conversation: "split"),
            .waitBehavior("answer_after"), .wait(.uniform(1_000_000_000, 2_000_000_000)),
            .branch([
                FlowBranch(probability: 0.25, steps: [
                    FlowStep(name: "wait-3", role: nil, kind: .wait(.constant(2_000_000_000))),
                ]),
                FlowBranch(probability: 0.5, steps: [
                    FlowStep(name: "repeat", role: nil, kind: .repeatSteps(count: 3, steps: [
                        FlowStep(name: "pause-2", role: "a", kind: .pause(conversation: "g")),
                    ])),
                ]),
            ]),
            .end(conversation: "g", reason: nil),
        ])
        XCTAssertEqual(flow.steps[9].role, Flow.hangupRole)
        XCTAssertEqual(flow.steps[11].role, nil)
        XCTAssertEqual(flow.allSteps.count, 18)
    }

    func testDefaultNamesSkipNamesWrittenAnywhereInTheFlow() throws {
        let flow = try flow(chat(dial + """
                  - { wait: 1s }
                  - { wait: 1s }
                  - { name: wait-2, repeat: 2, steps: [ { name: wait, wait: 1s } ] }

            """))
        XCTAssertEqual(flow.allSteps.map(\.name), ["dial", "wait-3", "wait-4", "wait-2", "wait"])
    }

    func testUserFlowReplacesTheBuiltinOfTheSameName() throws {
        let yaml = header + """
            mix: { incoming-1to1: 1 }
            flows:
              incoming-1to1:
                roles: [x, y]
                steps:
                  - { role: x, do: start, to: [y] }

            """
        let flow = try flow(yaml, "incoming-1to1")
        XCTAssertEqual(flow.roles, ["x", "y"])
        XCTAssertNotEqual(flow, BuiltinFlows.flow(named: "incoming-1to1"))
    }

    func testScenarioFlowsHoldExactlyTheFlowsTheMixNames() throws {
        let yaml = header + """
            mix: { chat: 1, group-merge: 1 }
            flows:
              chat: { roles: [caller, callee], steps: [ { role: caller, do: start, to: [callee] } ] }
              unused: { roles: [caller, callee], steps: [ { role: caller, do: start, to: [callee] } ] }

            """
        let scenario = try ScenarioLoader.parse(yaml, file: "flows.yaml").get()
        XCTAssertEqual(scenario.flows.keys.sorted(), ["chat", "group-merge"])
        XCTAssertEqual(scenario.flows["group-merge"], BuiltinFlows.flow(named: "group-merge"))
    }

    func testDefaultMixResolvesTheBuiltinIncomingFlow() throws {
        let scenario = try ScenarioLoader.parse(header, file: "flows.yaml").get()
        XCTAssertEqual(scenario.mix.map(\.flow), ["incoming-1to1"])
        XCTAssertEqual(scenario.flows, ["incoming-1to1": try XCTUnwrap(BuiltinFlows.flow(named: "incoming-1to1"))])
        XCTAssertEqual(scenario.device, DeviceProfile())
        XCTAssertEqual(Scenario(name: "x", devices: 2, load: []).flow(named: "incoming-1to1")?.name, "incoming-1to1")
    }

    // MARK: - Mix

    func testMixOfAnUndefinedFlowSuggestsADefinedOrBuiltinName() {
        let yaml = header + """
            mix: { chat-rom: 1, group-merj: 1 }
            flows:
              chat-room: { roles: [caller, callee], steps: [ { role: caller, do: start, to: [callee] } ] }

            """
        let found = errors(yaml)
        XCTAssertEqual(found.map(\.mark), [Mark(line: 5, column: 8), Mark(line: 5, column: 21)])
        XCTAssertEqual(found.map(\.suggestion), ["chat-room", "group-merge"])
        XCTAssertTrue(found[0].message.contains("unknown flow 'chat-rom' in 'mix'"), found[0].message)
    }

    func testMixNamingABrokenFlowReportsOnlyTheFlowsOwnProblem() {
        let found = errors(chat("      - { role: caller, do: start }\n"))
        XCTAssertEqual(found.map(\.message), ["a 'start' step needs 'to', the roles it calls, like 'to: [callee]'"])
    }

    func testFlowNeedingMoreDevicesThanTheScenarioHasIsRejected() {
        let yaml = "name: x\ndevices: 3\nload: [ { hold: { rate: 1/s, for: 1s } } ]\nmix: { group-merge: 1 }\n"
        let found = errors(yaml)
        XCTAssertEqual(found.map(\.mark), [Mark(line: 2, column: 10)])
        XCTAssertEqual(found.first?.message, "flow 'group-merge' needs 4 devices (one per role), but 'devices' is 3")
    }

    // MARK: - Validation

    func testUnknownStepKeyAndKeysThatDoNotApplyAreRejected() {
        let found = errors(chat(dial + """
                  - { role: caller, do: end, too: x }
                  - { role: callee, do: join, reason: failed }
                  - { wait: 1s, role: caller }

            """))
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 11, column: 34), Mark(line: 12, column: 35), Mark(line: 13, column: 21),
        ], "\(found)")
        XCTAssertEqual(found[0].suggestion, "to")
        XCTAssertEqual(found[1].message, "'reason' does not apply to a 'join' step (it takes 'conversation', 'role')")
        XCTAssertEqual(found[2].message, "'role' does not apply to a 'wait' step")
    }

    func testStepNeedsExactlyOneOfDoWaitBranchRepeat() {
        let found = errors(chat(dial + "      - { name: idle }\n      - { wait: 1s, do: join, role: callee }\n"))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 11, column: 9), Mark(line: 12, column: 9)])
        XCTAssertTrue(found[0].message.hasPrefix("a step needs 'do'"), found[0].message)
        XCTAssertEqual(found[1].message, "a step takes exactly one of 'do', 'wait', 'branch' and 'repeat', "
            + "got 'do' and 'wait'")
    }

    func testActionsNeedARole() {
        let found = errors(chat(dial + "      - { do: join }\n"))
        XCTAssertEqual(found.map(\.message), ["a 'join' step needs 'role', the role whose device does it"])
    }

    func testStartNeedsToAndCannotCallItselfOrTheSameRoleTwice() {
        let found = errors(chat("""
                  - { role: caller, do: start }
                  - { role: caller, do: start, to: [caller] }
                  - { role: caller, do: start, to: [callee, callee] }
                  - { role: caller, do: start, to: [] }

            """))
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 10, column: 9), Mark(line: 11, column: 41), Mark(line: 12, column: 49),
            Mark(line: 13, column: 40),
        ], "\(found)")
        XCTAssertTrue(found[1].message.contains("a role cannot call itself"), found[1].message)
        XCTAssertEqual(found[2].message, "'to' names 'callee' twice")
    }

    func testHangupIsNotADeclarableRoleAndCannotBeCalledOrMoved() {
        let yaml = header + """
            mix: { f: 1 }
            flows:
              f:
                roles: [hangup, b, c]
                steps:
                  - { role: b, do: start, to: [hangup] }
                  - { role: b, do: unmerge, member: hangup, into: x }

            """
        let found = errors(yaml)
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 8, column: 13), Mark(line: 10, column: 36), Mark(line: 11, column: 41),
        ], "\(found)")
        XCTAssertTrue(found[0].message.hasPrefix("'hangup' cannot be a role name"), found[0].message)
    }

    func testRolesNeedAtLeastTwoUniqueNames() {
        let yaml = header + """
            mix: { f: 1, g: 1 }
            flows:
              f: { roles: [solo], steps: [ { wait: 1s } ] }
              g: { roles: [a, a], steps: [ { wait: 1s } ] }

            """
        let found = errors(yaml)
        XCTAssertEqual(found.map(\.mark), [Mark(line: 7, column: 15), Mark(line: 8, column: 19)], "\(found)")
        XCTAssertEqual(found[1].message, "role 'a' is declared twice in flow 'g'")
    }

    func testConversationUsedBeforeAnyStepCreatesItIsRejected() {
        let found = errors(chat("""
                  - { role: callee, do: await_push }
                  - { role: caller, do: start, to: [callee], conversation: first }
                  - { role: callee, do: join, conversation: frist }

            """))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 10, column: 29), Mark(line: 12, column: 49)], "\(found)")
        XCTAssertEqual(found[0].message, "conversation 'main' (the default) is used before any step creates it "
            + "(a 'start' creates its 'conversation', an 'unmerge' its 'into')")
        XCTAssertEqual(found[1].suggestion, "first")
    }

    func testConversationsCreatedByUnmergeOrInOneBranchCountForLaterSteps() throws {
        let flow = try flow(chat(dial + """
                  - branch:
                      - { p: 50%, steps: [ { role: caller, do: start, to: [callee], conversation: maybe } ] }
                  - { role: callee, do: join, conversation: maybe }
                  - { role: caller, do: unmerge, member: callee, into: split }
                  - { role: caller, do: end, conversation: split }

            """))
        XCTAssertEqual(flow.steps.map(\.name), ["dial", "branch", "join", "unmerge", "end"])
    }

    func testMergeWithItselfAndUnmergeIntoItselfAreRejected() {
        let found = errors(chat(dial + """
                  - { role: caller, do: merge, with: main }
                  - { role: caller, do: unmerge, member: callee, into: main }
                  - { role: caller, do: unmerge, member: caller, into: other }
                  - { role: caller, do: merge }

            """))
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 11, column: 42), Mark(line: 12, column: 60), Mark(line: 13, column: 46),
            Mark(line: 14, column: 9),
        ], "\(found)")
        XCTAssertEqual(found[0].message, "a conversation cannot be merged with itself ('main')")
    }

    func testBranchProbabilitiesMustBePositiveFractionsOrPercents() {
        let found = errors(chat(dial + """
                  - { branch: [ { p: 0%, steps: [ { wait: 1s } ] } ] }
                  - { branch: [ { p: -0.2, steps: [ { wait: 1s } ] } ] }
                  - { branch: [ { p: 50, steps: [ { wait: 1s } ] } ] }
                  - { branch: [ { p: 120%, steps: [ { wait: 1s } ] } ] }
                  - { branch: [ { p: half, steps: [ { wait: 1s } ] } ] }
                  - { branch: [] }

            """))
        XCTAssertEqual(found.map(\.mark.line), [11, 12, 13, 14, 15, 16], "\(found)")
        XCTAssertEqual(found[0].message, "'p' must be greater than 0, got '0%'")
        XCTAssertEqual(found[2].suggestion, "50%")
        XCTAssertEqual(found[3].message, "'p' cannot be more than 100%, got '120%'")
    }

    func testBranchProbabilitiesUpToExactlyAllAreAccepted() throws {
        let flow = try flow(chat(dial + """
                  - branch:
                      - { p: 70%, steps: [ { wait: 1s } ] }
                      - { p: 0.3, steps: [ { wait: 2s } ] }

            """))
        guard case .branch(let branches) = flow.steps[1].kind else { return XCTFail("expected a branch") }
        XCTAssertEqual(branches.map(\.probability), [0.7, 0.3])
    }

    func testRepeatCountMustBeFromOneToAThousand() {
        let found = errors(chat(dial + """
                  - { repeat: 0, steps: [ { wait: 1s } ] }
                  - { repeat: 1001, steps: [ { wait: 1s } ] }
                  - { repeat: twice, steps: [ { wait: 1s } ] }
                  - { repeat: 2 }

            """))
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 11, column: 19), Mark(line: 12, column: 19), Mark(line: 13, column: 19),
            Mark(line: 14, column: 9),
        ], "\(found)")
        XCTAssertEqual(found[1].message, "'repeat' can be at most 1000, got 1001")
    }

    func testEmptyStepListsAreRejected() {
        let found = errors(chat("      - { repeat: 2, steps: [] }\n      - { branch: [ { p: 1%, steps: [] } ] }\n")
            + "  other: { roles: [a, b], steps: [] }\n")
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 10, column: 29), Mark(line: 11, column: 37), Mark(line: 12, column: 34),
        ], "\(found)")
        XCTAssertEqual(found[2].message, "the steps of flow 'other' must not be empty")
    }

    func testDuplicateStepNamesAreRejectedIncludingNestedOnes() {
        let found = errors(chat(dial + """
                  - { name: dial, wait: 1s }
                  - { repeat: 2, steps: [ { name: dial, wait: 1s } ] }

            """))
        XCTAssertEqual(found.map(\.mark), [Mark(line: 11, column: 17), Mark(line: 12, column: 39)], "\(found)")
        XCTAssertTrue(found[0].message.hasPrefix("step name 'dial' is used twice in flow 'chat' (first at 10:17)"))
    }

    func testUnknownBehaviourInWaitSuggestsAKnownOne() {
        let found = errors(chat(dial + "      - { wait: tlak }\n      - { wait: hangup }\n      - { wait: 2 }\n"))
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 11, column: 17), Mark(line: 12, column: 17), Mark(line: 13, column: 17),
        ], "\(found)")
        XCTAssertEqual(found.map(\.suggestion), ["talk", nil, "2s"])
    }

    func testEndReasonMustBeALiveCommunicationKitReason() {
        let found = errors(chat(dial + "      - { role: caller, do: end, reason: unanswerd }\n"))
        XCTAssertEqual(found.map(\.suggestion), ["unanswered"])
    }

    func testNamesMustBeMetricFriendly() {
        let found = errors(chat("      - { name: \"ring ring\", role: caller, do: start, to: [callee] }\n"))
        XCTAssertEqual(found.map(\.message), ["step name 'ring ring' may only use letters, digits, '-' and '_'"])
    }

    // MARK: - Device

    func testDeviceSectionDecodes() throws {
        let scenario = try ScenarioLoader.parse(header + """
            device:
              capabilities: [pausing, video, playingTones]
              max_conversation_groups: 3
              max_conversations_per_group: 8
              video: true

            """, file: "flows.yaml").get()
        XCTAssertEqual(scenario.device, DeviceProfile(
            capabilities: ["pausing", "video", "playingTones"], maximumConversationGroups: 3,
            maximumConversationsPerConversationGroup: 8, supportsVideo: true))
        let none = try ScenarioLoader.parse(header + "device: { capabilities: [] }\n", file: "f.yaml").get()
        XCTAssertEqual(none.device.capabilities, [])
        XCTAssertEqual(none.device.maximumConversationGroups, 2)
    }

    func testDeviceSectionValidatesNamesAndRanges() {
        let found = errors(header + """
            device: { capabilities: [pausing, merjing, pausing], max_conversations_per_group: 0, vidoe: true }

            """)
        XCTAssertEqual(found.map(\.mark), [
            Mark(line: 5, column: 35), Mark(line: 5, column: 44), Mark(line: 5, column: 83),
            Mark(line: 5, column: 86),
        ], "\(found)")
        XCTAssertEqual(found.map(\.suggestion), ["merging", nil, nil, "video"])
    }

    // MARK: - Expected non-answers

    func testExpectDeclaresTheUnansweredEndsAFlowIsForAndRefusesWhatItCannotRead() throws {
        let flow = """
            flows:
              busy:
                roles: [caller, callee]
                expect: EXPECT
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
            mix: { busy: 1 }

            """
        func load(_ expect: String) -> Result<Scenario, ScenarioErrors> {
            ScenarioLoader.parse(header + flow.replacingOccurrences(of: "EXPECT", with: expect), file: "e.yaml")
        }
        let scenario = try load("{ unanswered: [refused, declined], status: [486, 603] }").get()
        XCTAssertEqual(scenario.flows["busy"]?.expect,
                       ExpectedOutcome(unanswered: [.refused, .declined], statuses: [486, 603]))
        let expect = try XCTUnwrap(scenario.flows["busy"]?.expect)
        XCTAssertTrue(expect.allows(.refused, status: 486))
        XCTAssertFalse(expect.allows(.refused, status: 408), "a status it does not list")
        XCTAssertFalse(expect.allows(.cancelled), "a way it does not list")
        XCTAssertEqual(try load("{ unanswered: cancelled }").get().flows["busy"]?.expect,
                       ExpectedOutcome(unanswered: [.cancelled]), "one way may be written alone")
        XCTAssertNil(BuiltinFlows.flow(named: "incoming-1to1")?.expect, "an answered flow declares nothing")
        XCTAssertEqual(BuiltinFlows.flow(named: "declined")?.expect, ExpectedOutcome(unanswered: [.declined]))
        for (bad, message) in [
            ("{ unanswered: [refuse] }", "'unanswered' takes declined, cancelled, refused; got 'refuse'"),
            ("{ unanswered: [refused], status: [200] }", "'status' must be at least 300, got 200"),
            ("{ unanswered: [refused], status: [999] }", "SIP final statuses that refuse a call (300–699)"),
            ("{ unanswered: [cancelled], status: [486] }", "'status' narrows a 'refused' or 'declined' end"),
            ("{ status: [486] }", "missing the required key 'unanswered'"),
        ] {
            guard case .failure(let errors) = load(bad) else { XCTFail("\(bad) was accepted"); continue }
            XCTAssertTrue("\(errors)".contains(message), "\(bad): \(errors)")
        }
        if case .failure(let errors) = load("{ unanswered: [refuse] }") {
            XCTAssertEqual(errors.errors.first?.suggestion, "refused")
        }
    }

    // MARK: - Describe

    func testDescribeListsTheFlowsAndTheirSteps() throws {
        let scenario = try ScenarioLoader.parse(header + "mix: { unanswered: 1, chat: 1 }\n" + """
            flows:
              chat:
                roles: [caller, callee]
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
                  - { repeat: 2, steps: [ { wait: talk } ] }

            """, file: "flows.yaml").get()
        let text = scenario.describe()
        XCTAssertTrue(text.contains("  device: capabilities pausing, merging, unmerging; at most 2 conversation "
            + "groups of 5; video off"), text)
        XCTAssertTrue(text.contains("""
              flow unanswered (built in), roles caller, callee:
                expects calls unanswered as: cancelled; a refusal it does not list fails the call
                dial: caller start main -> callee
                ring: callee await_push main
                ring-timeout: wait 3s
                hangup: caller end main (unanswered)
                callee-sees-end: callee await_end main
              flow chat (from the file), roles caller, callee:
                dial: caller start main -> callee
                repeat: repeat 2x
                  wait: wait talk
            """), text)
    }
}
