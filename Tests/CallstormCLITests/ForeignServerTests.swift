@testable import CallstormCLI
import Checker
import Credentials
import Foundation
import HTTPServer
import XCTest

/// A server callstorm did not write (ForeignCallServer: its own words, a version named `rev`, no event pushes,
/// merge finishing the other call, split creating one, hold by a flag), driven through every built-in flow its
/// API supports, observed only by polling, with the shipped Scenarios/examples/foreign-server.yaml.
final class ForeignServerTests: XCTestCase {
    static func run(_ server: ForeignCallServer, port: Int, gatewayPort: Int, in dir: URL, trace: Int = 0,
                    edit: (String) -> String = { $0 }) throws -> RunCommand.Outcome {
        let example = try String(
            contentsOf: CustomAPIExample.root.appendingPathComponent("Scenarios/examples/foreign-server.yaml"),
            encoding: .utf8).replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(gatewayPort)")
            .replacingOccurrences(of: "127.0.0.1:9000", with: "127.0.0.1:\(port)")  // repro files name the server
        let file = dir.appendingPathComponent("foreign-server.yaml")
        // The gateway serves TLS and verifies the server's provider tokens with its key (see `secured`).
        let secured = example.replacingOccurrences(
            of: "deadline: 2s, tls: false }",
            with: "deadline: 2s, auth: { keys: { \(keyID): \"\(dir.appendingPathComponent("key.pem").path)\" }, "
                + "team: \(teamID) } }")
        try edit(secured).write(to: file, atomically: true, encoding: .utf8)
        var options = RunCommand.Options(file: file.path)
        options.targetURL = "http://127.0.0.1:\(port)"
        options.out = dir.appendingPathComponent("run").path
        options.quiet = true
        options.traceCalls = trace
        return try RunCommand.perform(options)
    }

    /// A run of the example, rewritten by `edit`, against a fresh server whose pushes go to `pushTo` (the run's
    /// gateway unless given); `probe` reads the server before it stops. Every push the server sent must have been
    /// accepted unless it was sent elsewhere.
    private func foreignRun(trace: Int = 0, pushTo: String? = nil, pushesRefused: Bool = false,
                            probe: (ForeignCallServer) -> Void = { _ in },
                            edit: @escaping (String) -> String) throws -> RunCommand.Outcome {
        let gatewayPort = try CustomAPIExample.freePort()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foreign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        directories.append(dir)
        let foreign = try Self.secured(gatewayPort: gatewayPort, in: dir, pushTo: pushTo)
        let outcome = try Self.serving(foreign) { port in
            try Self.run(foreign, port: port, gatewayPort: gatewayPort, in: dir, trace: trace, edit: edit)
        }
        probe(foreign)
        if pushTo == nil, !pushesRefused { XCTAssertEqual(foreign.pushesFailed, 0) }
        return outcome
    }

    static let keyID = "FOREIGNK01"
    static let teamID = "FOREIGNTM1"

    /// The server for a run in `dir`, with an ordinary APNs client: HTTP/2 over TLS to the gateway on
    /// `gatewayPort`, trusting callstorm's CA, signing ES256 tokens with a key it writes to `dir` for the gateway
    /// to verify (or sending to `pushTo` instead).
    static func secured(gatewayPort: Int, in dir: URL, bugs: Set<ForeignCallServer.Bug> = [], pushTo: String? = nil)
        throws -> ForeignCallServer {
        let (caFile, signer) = try pushCredentials(in: dir)
        return ForeignCallServer(gatewayURL: pushTo ?? "https://127.0.0.1:\(gatewayPort)", bugs: bugs,
                                 caFile: caFile, signer: signer)
    }

    /// What a test server's APNs client needs for callstorm's TLS gateway: the CA to trust, and a signer whose
    /// key it writes to `dir/key.pem` for the gateway to verify (`push.auth.keys`, with `keyID` and `teamID`).
    static func pushCredentials(in dir: URL) throws -> (caFile: String, signer: ProviderTokenSigner) {
        let key = try ES256Key.generate()
        try key.privateKeyPEM.write(to: dir.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let ca = try LocalCertificateAuthority.ensure(stateDirectory: LocalCertificateAuthority.defaultStateDirectory)
        return (ca.material.caCertificatePath, ProviderTokenSigner(keyID: keyID, teamID: teamID, key: key))
    }

    /// Serves `server` on a loopback port for the length of `body`, then stops it.
    static func serving<T>(_ server: ForeignCallServer, _ body: (_ port: Int) throws -> T) throws -> T {
        try CallstormCLITests.serving(server, body)
    }

    /// The example shortened to a few seconds.
    private func shortRun(trace: Int = 0, pushTo: String? = nil, pushesRefused: Bool = false,
                          edit: @escaping (String) -> String = { $0 }) throws -> RunCommand.Outcome {
        try foreignRun(trace: trace, pushTo: pushTo, pushesRefused: pushesRefused) {
            edit($0.replacingOccurrences(of: "rate: 40/s, for: 6s", with: "rate: 10/s, for: 1s")
                .replacingOccurrences(of: "action_timeout: 5s", with: "action_timeout: 2s")
                .replacingOccurrences(of: "drain: 20s", with: "drain: 6s"))
        }
    }

    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(at: dir) }
        directories = []
    }

    func testTraceHoldsTheFirstCallsExchangesAndPushes() throws {
        let outcome = try shortRun(trace: 2)
        let text = try String(contentsOf: outcome.runDirectory.appendingPathComponent("trace.jsonl"), encoding: .utf8)
        let lines = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertFalse(lines.isEmpty)
        XCTAssertTrue(lines.allSatisfy { ($0["call"] as? Int ?? 99) < 2 }, text)
        XCTAssertTrue(lines.contains { $0["op"] as? String == "start" && ($0["response"] as? String)?
            .contains("callId") == true }, text)
        XCTAssertTrue(lines.contains { $0["type"] as? String == "push" && $0["push_type"] as? String == "voip" }, text)
        XCTAssertTrue(lines.contains { $0["op"] as? String == "get" }, text)
        let html = try String(contentsOfFile: outcome.reportPath, encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"trace\">") && html.contains("&quot;op&quot;:&quot;start&quot;"),
                      "report.html shows the trace")
    }

    func testFirstContactNamesAGatewayNoPushReached() throws {
        let closed = try CustomAPIExample.freePort()
        let outcome = try shortRun(pushTo: "http://127.0.0.1:\(closed)")
        let diagnosis = outcome.result.notes.first ?? ""
        XCTAssertTrue(diagnosis.hasPrefix("first contact: no push reached the gateway at https://127.0.0.1:"),
                      "\(outcome.result.notes)")
        XCTAssertTrue(diagnosis.contains("and trust /") && diagnosis.contains("ca.pem, or set HTTPS_PROXY"), diagnosis)
        XCTAssertTrue(diagnosis.contains("docs/YOUR-SERVER.md"), diagnosis)
        let html = try String(contentsOfFile: outcome.reportPath, encoding: .utf8)
        XCTAssertTrue(html.contains("<p class=\"diagnosis\">no push reached the gateway"), "banner")
    }

    func testFirstContactNamesTheOneReasonEveryPushWasRejectedFor() throws {
        let outcome = try shortRun(pushesRefused: true) {
            $0.replacingOccurrences(of: "deadline: 2s, auth:", with: "deadline: 2s, bundle_id: com.other.app, auth:")
        }
        let notes = outcome.result.notes.filter { $0.hasPrefix("first contact: every push") }
        XCTAssertEqual(notes.count, 1, "\(outcome.result.notes)")
        XCTAssertTrue(notes.first?.contains("apns-topic") == true, "\(notes)")
    }

    func testFirstContactNamesPollsAnswered404AndACaptureThatNeverMatched() throws {
        let outcome = try shortRun {
            $0.replacingOccurrences(of: "path: \"/calls/${conversation.id}\", expect: 200",
                                    with: "path: \"/callz/${conversation.id}\", expect: 200")
                .replacingOccurrences(of: "expect: 201 }", with: "expect: 201, capture: { call.number: \"$.call.no\" } }")
        }
        let notes = outcome.result.notes.filter { $0.hasPrefix("first contact: ") }
        XCTAssertTrue(notes.contains { $0.contains("every poll") && $0.contains("404") }, "\(outcome.result.notes)")
        XCTAssertTrue(notes.contains { $0.contains("capture 'call.number' never matched") }, "\(notes)")
    }

    func testEveryBuiltinFlowItsAPISupportsCompletesObservingOnlyByPolling() throws {
        var gets = 0
        let outcome = try foreignRun(probe: { gets = $0.gets.load(ordering: .relaxed) }) { $0 }
        let c = outcome.result.recorder.counters
        let started = c["calls.started"] ?? 0
        let completed = c["calls.completed"] ?? 0
        XCTAssertGreaterThan(started, 200, "\(c)")
        XCTAssertGreaterThanOrEqual(Double(completed), 0.99 * Double(started), "\(c) \(outcome.result.notes)")
        let errors = c.filter { $0.key.hasPrefix("errors.") }.values.reduce(0, +)
        // Requests: every action and every poll (registrations aside).
        let requests = c.filter { $0.key.hasPrefix("action.") && $0.key.hasSuffix(".started") }.values.reduce(0, +)
            + (c["observe.polls"] ?? 0)
        XCTAssertGreaterThan(requests, 1000)
        XCTAssertLessThan(Double(errors), 0.01 * Double(requests), "\(c)")
        for flow in ["incoming-1to1", "outgoing-1to1", "declined", "hold-resume", "group-call", "merge-unmerge",
                     "group-merge"] {
            XCTAssertGreaterThan(c["flow.\(flow).completed"] ?? 0, 0, "\(flow): \(c)")
        }
        XCTAssertGreaterThan(c["observe.polls"] ?? 0, 0)
        XCTAssertGreaterThan(gets, 0)
        XCTAssertEqual(c["views.mismatched"] ?? 0, 0, "\(outcome.result.notes)")
        let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
    }

    func testWithoutAVersionTheCheckerSaysWhichRulesCouldNotRun() throws {
        let outcome = try foreignRun {
            $0.replacingOccurrences(of: "      version: \"$.rev\"\n", with: "")
                .replacingOccurrences(of: "rate: 40/s, for: 6s", with: "rate: 20/s, for: 2s")
        }
        let c = outcome.result.recorder.counters
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c)")
        let check = try XCTUnwrap(HistoryCheck.run(outcome.runDirectory))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
        XCTAssertFalse(check.report.rulesChecked.contains(.versionsIncrease))
        // Nor is the unmerge policy declared: its rule is skipped too.
        XCTAssertEqual(check.report.rulesChecked.count, Rule.allCases.count - 2)
        XCTAssertNotNil(check.report.rulesSkipped?[Rule.versionsIncrease.rawValue])
        XCTAssertNotNil(check.report.rulesSkipped?[Rule.unmergePolicy.rawValue])
        XCTAssertTrue(check.lines.contains { $0.contains("not checked: versions-only-increase") }, "\(check.lines)")
        let json = try String(contentsOf: outcome.runDirectory.appendingPathComponent("checker.json"), encoding: .utf8)
        XCTAssertTrue(json.contains("rulesSkipped"), json)
    }

    func testTheGuidesExampleValidatesAndTheGuideNamesIt() throws {
        let example = CustomAPIExample.root.appendingPathComponent("Scenarios/examples/foreign-server.yaml").path
        let saved = dup(1)
        let null = open("/dev/null", O_WRONLY)
        dup2(null, 1)
        let code = Command.run(["validate", example])
        dup2(saved, 1)
        close(saved)
        close(null)
        XCTAssertEqual(code, .passed)
        let guide = try String(contentsOf: CustomAPIExample.root.appendingPathComponent("docs/YOUR-SERVER.md"),
                               encoding: .utf8)
        XCTAssertTrue(guide.contains("callstorm validate Scenarios/examples/foreign-server.yaml"))
        let yaml = try String(contentsOfFile: example, encoding: .utf8)
        // Every mapping line the guide shows is in the example the tests run.
        for line in ["already_ended: [410]", "observe: { poll: 250ms }", "response: \"$.call\"", "split: \"$.newCall\"",
                     "member_states: { idle: [invited], joined: [connected], paused: [onhold], left: [gone] }"] {
            XCTAssertTrue(guide.contains(line) && yaml.contains(line), line)
        }
    }

    func testValidateLocatesFivePlantedMappingMistakesAndExitsTwo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml")
        try MappingMistakes.planted.write(to: file, atomically: true, encoding: .utf8)
        let pipe = Pipe()
        let saved = dup(2)
        dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
        let code = Command.run(["validate", file.path])
        dup2(saved, 2)
        close(saved)
        pipe.fileHandleForWriting.closeFile()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(code.rawValue, 2)
        XCTAssertEqual(text.components(separatedBy: "p.yaml:").count - 1, 5, text)
        XCTAssertTrue(text.contains("p.yaml:6:36: error: unknown variable '${device.idd}'"), text)
        XCTAssertTrue(text.contains("did you mean 'device.id'?"), text)
        XCTAssertTrue(text.contains("p.yaml:7:70: error: 'conversation.id' must be a JSON path"), text)
        XCTAssertTrue(text.contains("p.yaml:11:27: error: 'conversation' must be a JSON path"), text)
        XCTAssertTrue(text.contains("p.yaml:13:7: error: 'target.api.view' is missing the required key 'id'"), text)
        XCTAssertTrue(text.contains("p.yaml:4:3: error: flow 'hold-resume' step 'hold' needs 'target.api.pause'"),
                      text)
    }
}

/// Five planted mistakes: an unknown variable, a JSON path that cannot parse (a capture and a push field), a view
/// mapping without an id path, and a flow step whose operation is not mapped (hold-resume's pause).
enum MappingMistakes {
    static let planted = """
        name: planted
        devices: 10
        target:
          url: "http://127.0.0.1:9000"
          api:
            register: { method: PUT, path: "/users/${device.idd}" }
            start: { method: POST, path: /calls, capture: { conversation.id: "call.id" } }
            join: { method: POST, path: "/calls/${conversation.id}/answer" }
            end: { method: POST, path: "/calls/${conversation.id}/leave" }
            resume: { method: POST, path: "/calls/${conversation.id}/resume" }
            push: { conversation: "$..callId" }
            view:
              members: "$.participants"
              member: { id: "$.user", status: "$.st" }
        load: [ { hold: { rate: 1/s, for: 1s } } ]
        mix: { hold-resume: 100 }
        """
}
