@testable import CallstormCLI
import Foundation
import HTTPServer
import TestSupport
import XCTest

/// Runs the shipped Scenarios/examples/custom-api.yaml in-process against a call server of the test's own (the
/// `target.api` tests and the APNs client library runs share it).
enum CustomAPIExample {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A port nothing listens on right now, for a gateway that must be known before the run starts: below the
    /// kernel's ephemeral range, so no outgoing connection takes it before the gateway binds (`freePort()`).
    static func freePort() throws -> Int {
        try XCTUnwrap(KamailioProcess.freePort())
    }

    /// The example with its gateway on `gatewayPort`, rewritten by `edit`, run against the server on `serverPort`;
    /// the run directory is `dir/run`.
    static func run(serverPort: Int, gatewayPort: Int, in dir: URL,
                    edit: (String) -> String = { $0 }) throws -> RunCommand.Outcome {
        let example = try String(contentsOf: root.appendingPathComponent("Scenarios/examples/custom-api.yaml"),
                                 encoding: .utf8)
            .replacingOccurrences(of: "127.0.0.1:2197", with: "127.0.0.1:\(gatewayPort)")
        return try runScenario(edit(example), in: dir, file: "custom-api") {
            $0.targetURL = "http://127.0.0.1:\(serverPort)"
        }
    }
}
