import Foundation
import TestSupport
import XCTest

/// scripts/otlp_decode.py, run with PyPI's opentelemetry-proto and SDK (scripts/test-deps.sh installs them): the
/// reference decoder and the reference encoder callstorm's bytes are compared with.
enum ReferenceCodec {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = repository.appendingPathComponent("scripts/otlp_decode.py").path

    /// Skips when python's opentelemetry packages are missing (scripts/test-deps.sh installs them, best effort).
    static func require() throws {
        let probe = try ExternalTool.run("python3", ["-c", "import opentelemetry.proto, opentelemetry.sdk, "
            + "opentelemetry.exporter.otlp.proto.common"])
        if probe.status != 0 {
            throw XCTSkip("PyPI opentelemetry-proto/sdk are not installed (scripts/test-deps.sh installs them)")
        }
    }

    /// The request decoded by opentelemetry-proto, as otlp_decode.py prints it.
    static func decode(_ kind: String, _ body: [UInt8]) throws -> [String: Any] {
        let dir = try TemporaryDirectory.make("otlp-decode")
        defer { TemporaryDirectory.remove(dir) }
        let file = dir.appendingPathComponent("body.bin")
        try Data(body).write(to: file)
        let run = try ExternalTool.run("python3", [script, "decode", kind, file.path])
        guard run.status == 0, let data = run.stdout.data(using: .utf8),
              let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            XCTFail("opentelemetry-proto could not decode the \(kind) request: \(run.stderr)")
            return [:]
        }
        return json
    }

    /// What the SDK's exporter encoder writes for `spec` (otlp_decode.py's `sdk` command).
    static func sdkBytes(_ kind: String, spec: [String: Any]) throws -> [UInt8] {
        let dir = try TemporaryDirectory.make("otlp-sdk")
        defer { TemporaryDirectory.remove(dir) }
        let specFile = dir.appendingPathComponent("spec.json")
        let out = dir.appendingPathComponent("sdk.bin")
        try JSONSerialization.data(withJSONObject: spec).write(to: specFile)
        let run = try ExternalTool.run("python3", [script, "sdk", kind, specFile.path, out.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        return [UInt8](try Data(contentsOf: out))
    }
}
