@testable import CallstormCLI
import Checker
import Foundation
import HTTPServer
import XCTest

/// A server whose WebSocket dialect is unlike the reference target's (DialectCallServer: auth first, `call.*`
/// events with the view under `call`, actions answered `{"ref","ok"}`), driven with the shipped
/// Scenarios/examples/socket-dialect.yaml: its member actions exist only over the socket, and no device polls,
/// so every flow completes only if the socket's events and replies are read through the mapping.
final class DialectSocketRunTests: XCTestCase {
    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(at: dir) }
        directories = []
    }

    private static var example: URL {
        CustomAPIExample.root.appendingPathComponent("Scenarios/examples/socket-dialect.yaml")
    }

    /// A run of the example, rewritten by `edit`, against a fresh server whose APNs client speaks HTTP/2 over TLS
    /// to the run's gateway with verified ES256 tokens; `probe` reads the server before it stops.
    private func dialectRun(silentEnds: Bool = false, probe: (DialectCallServer) -> Void = { _ in },
                            edit: (String) -> String = { $0 }) throws -> RunCommand.Outcome {
        let gatewayPort = try CustomAPIExample.freePort()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dialect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        directories.append(dir)
        let (caFile, signer) = try ForeignServerTests.pushCredentials(in: dir)
        let server = DialectCallServer(gatewayURL: "https://127.0.0.1:\(gatewayPort)", caFile: caFile, signer: signer,
                                       silentEnds: silentEnds)
        let key = dir.appendingPathComponent("key.pem").path
        let auth = "deadline: 2s, auth: { keys: { \(ForeignServerTests.keyID): \"\(key)\" }, "
            + "team: \(ForeignServerTests.teamID) } }"
        let yaml = try String(contentsOf: Self.example, encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(gatewayPort)")
            .replacingOccurrences(of: "deadline: 2s, tls: false }", with: auth)
            // Sixty calls (3 s of the example's 20/s) give every flow of its mix several.
            .replacingOccurrences(of: "hold: { rate: 20/s, for: 4s }", with: "hold: { rate: 20/s, for: 3s }")
        let outcome = try serving(server) { port in
            try runScenario(edit(yaml.replacingOccurrences(of: "127.0.0.1:9000", with: "127.0.0.1:\(port)")),
                            in: dir, file: "socket-dialect")
        }
        probe(server)
        XCTAssertEqual(server.pushesFailed, 0, "every VoIP push the server sent was accepted by the gateway")
        return outcome
    }

    private func assertEveryFlowCompletes(_ outcome: RunCommand.Outcome, _ server: (actions: Int, unknown: Int),
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let c = outcome.result.recorder.counters
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 50, "\(c)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(Double(c["calls.completed"] ?? 0), 0.99 * Double(started),
                                    "\(c) \(outcome.result.notes)", file: file, line: line)
        for flow in ["incoming-1to1", "outgoing-1to1", "declined", "hold-resume", "group-call", "merge-unmerge",
                     "group-merge"] {
            XCTAssertGreaterThan(c["flow.\(flow).completed"] ?? 0, 0, "\(flow): \(c)", file: file, line: line)
        }
        XCTAssertEqual(c["observe.polls"] ?? 0, 0, "no device polls: the socket tells them", file: file, line: line)
        XCTAssertGreaterThan(Int64(server.actions), 2 * started, "member actions went over the socket",
                             file: file, line: line)
        XCTAssertEqual(server.unknown, 0, "no member action was sent over HTTP", file: file, line: line)
        XCTAssertEqual(c.filter { $0.key.hasPrefix("errors.") }, [:], file: file, line: line)
        let opened = c["socket.opened"] ?? 0
        XCTAssertGreaterThan(opened, 0, "\(c)", file: file, line: line)
        XCTAssertEqual(opened, (c["socket.closed.device"] ?? 0) + (c["socket.closed.server"] ?? 0)
                       + (c["socket.lost"] ?? 0) + (c["socket.open_at_stop"] ?? 0), "the socket books balance",
                       file: file, line: line)
        XCTAssertGreaterThan(c["socket.events.ignored"] ?? 0, 0, "session.ready after each auth",
                             file: file, line: line)
        XCTAssertEqual(c["views.mismatched"] ?? 0, 0, "\(outcome.result.notes)", file: file, line: line)
        let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory), file: file, line: line)
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))", file: file, line: line)
    }

    /// A run of the example with `device.socket: mode`, checked by `assertEveryFlowCompletes`.
    private func runWithSockets(_ mode: String) throws -> RunCommand.Outcome {
        var server = (actions: 0, unknown: 0)
        let outcome = try dialectRun(probe: {
            server = ($0.board.actionsAnswered.load(ordering: .relaxed), $0.unknownRoutes.load(ordering: .relaxed))
        }, edit: {
            $0.replacingOccurrences(of: "device: { socket: on_push }", with: "device: { socket: \(mode) }")
        })
        try assertEveryFlowCompletes(outcome, server)
        return outcome
    }

    func testAppsWokenByPushCompleteEveryFlowItsAPISupportsWithActionsOverTheSocket() throws {
        let outcome = try runWithSockets("on_push")
        // Only woken apps open sockets: the callees of each call, and callers when they act.
        let c = outcome.result.recorder.counters
        XCTAssertLessThan(c["socket.opened"] ?? 0, c["devices.registered"] ?? 0, "\(c)")
        for metric in ["push_to_socket", "push_to_state"] {
            let histogram = try XCTUnwrap(outcome.result.recorder.histograms[metric], metric)
            XCTAssertGreaterThan(histogram.totalCount, 0, metric)
        }
    }

    func testAppsHoldingTheirSocketFromRegistrationCompleteTheSameFlows() throws {
        let c = try runWithSockets("always").result.recorder.counters
        XCTAssertEqual(c["socket.opened"], c["devices.registered"], "every app holds its socket from registration")
    }

    func testAppsThatOpenTheirSocketOnlyWhenTheUserActsCompleteTheSameFlows() throws {
        _ = try runWithSockets("foreground")
    }

    /// Both parties hang up one after the other on a server that tells nobody a call is over: the second end is
    /// refused (`ok: false`, code `over`), and that refusal is an end of a call that had already ended, not an error
    /// (here both rules say so: `reply.already_ended: [over]`, and a 409 for a call whose end the call has seen in
    /// the first end's reply; SocketReplyReaderTests pins the first alone).
    func testAnEndRefusedAsOverIsAnAlreadyEndedCallNotAnError() throws {
        let flow = """
            mix: { both-hang-up: 100 }
            flows:
              both-hang-up:
                roles: [caller, callee]
                steps:
                  - { name: dial, role: caller, do: start, to: [callee] }
                  - { name: ring, role: callee, do: await_push }
                  - { name: answer, role: callee, do: join }
                  - { name: callee-hangs-up, role: callee, do: end }
                  - { name: caller-hangs-up, role: caller, do: end }
            """
        var refused = 0
        let outcome = try dialectRun(silentEnds: true, probe: {
            refused = $0.board.refusedAsOver.load(ordering: .relaxed)
        }, edit: { yaml in
            yaml.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("mix:") }
                .joined(separator: "\n") + flow + "\n"
        })
        let c = outcome.result.recorder.counters
        let started = c["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 50, "\(c)")
        XCTAssertEqual(c["calls.completed"], started, "\(c) \(outcome.result.notes)")
        XCTAssertEqual(Int64(refused), started, "every caller's end was refused as over")
        XCTAssertEqual(c.filter { $0.key.hasPrefix("errors.") }, [:])
        let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
    }

    func testTheExampleValidates() throws {
        let saved = dup(1)
        let null = open("/dev/null", O_WRONLY)
        dup2(null, 1)
        let code = Command.run(["validate", Self.example.path])
        dup2(saved, 1)
        close(saved)
        close(null)
        XCTAssertEqual(code, .passed)
    }
}
