import Foundation
import TestSupport
import XCTest

/// Acceptance 3 of issue 9: deploy/kubernetes/ passes an offline schema check (kubernetes-validate from PyPI,
/// installed by scripts/test-deps-distributed.sh), the check is not vacuous, and the docs give the commands.
final class DeployManifestTests: XCTestCase {
    static let repository = MetricsEndpointTests.repository
    static let manifests = ["configmap.yaml", "results-pvc.yaml", "shards-job.yaml", "merge-job.yaml"]

    private func validate(_ paths: [String]) throws -> (status: Int32?, out: String, err: String) {
        let logs = FileManager.default.temporaryDirectory
        return try ChildProcess.run("/usr/bin/env", ["python3", "-m", "kubernetes_validate", "--strict"] + paths,
                                    in: Self.repository, logs: logs, name: "kubernetes-validate-\(UUID().uuidString)",
                                    seconds: 120)
    }

    private func requireValidator() throws {
        let check = try ChildProcess.run("/usr/bin/env", ["python3", "-c", "import kubernetes_validate"],
                                         in: Self.repository, logs: FileManager.default.temporaryDirectory,
                                         name: "kv-check", seconds: 30)
        guard check.status == 0 else {
            throw XCTSkip("kubernetes-validate is not installed (make test installs it: scripts/test-deps-distributed.sh)")
        }
    }

    func testManifestsPassOfflineStrictValidation() throws {
        try requireValidator()
        let paths = Self.manifests.map { Self.repository.appendingPathComponent("deploy/kubernetes/\($0)").path }
        let result = try validate(paths)
        XCTAssertEqual(result.status, 0, result.out + result.err)
        for name in Self.manifests { XCTAssertTrue((result.out + result.err).contains("\(name) passed"), result.out) }
    }

    func testValidatorRejectsABrokenJob() throws {
        try requireValidator()
        let job = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/shards-job.yaml"),
                             encoding: .utf8)
        let broken = job.replacingOccurrences(of: "completionMode: Indexed", with: "completionMode: Indexed\n  completion: 4")
            .replacingOccurrences(of: "parallelism: 4", with: "parallelism: four")
        let path = TemporaryDirectory.path("broken", suffix: ".yaml")
        try broken.write(to: path, atomically: true, encoding: .utf8)
        defer { TemporaryDirectory.remove(path) }
        XCTAssertNotEqual(try validate([path.path]).status, 0)
    }

    func testShardJobMapsTheCompletionIndexToTheShardFlag() throws {
        let job = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/shards-job.yaml"),
                             encoding: .utf8)
        XCTAssertTrue(job.contains("completionMode: Indexed"))
        XCTAssertTrue(job.contains("--shard \"$JOB_COMPLETION_INDEX/$SHARDS\""))
        XCTAssertTrue(job.contains("completions: 4") && job.contains("parallelism: 4") && job.contains("value: \"4\""))
    }

    func testDocsShowTheClusterCommandsAndTheDashboardParses() throws {
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("docs/DISTRIBUTED.md"), encoding: .utf8)
        for command in ["docker build -f deploy/Containerfile", "kubectl apply -f deploy/kubernetes/configmap.yaml",
                        "kubectl wait --for=condition=complete job/callstorm-shards",
                        "kubectl apply -f deploy/kubernetes/merge-job.yaml", "callstorm merge", "--shard",
                        "--start-at", "--metrics-listen"] {
            XCTAssertTrue(docs.contains(command), "docs/DISTRIBUTED.md lacks `\(command)`")
        }
        let data = try Data(contentsOf: Self.repository.appendingPathComponent("deploy/grafana/callstorm-dashboard.json"))
        let dashboard = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let panels = dashboard["panels"] as! [[String: Any]]
        XCTAssertGreaterThanOrEqual(panels.count, 6)
        let exported = ["callstorm_events_total", "callstorm_latency_seconds_bucket", "callstorm_latency_quantile_seconds",
                        "callstorm_active_conversations", "callstorm_run_info", "callstorm_run_final",
                        "callstorm_elapsed_seconds", "callstorm_latency_max_seconds"]
        for panel in panels {
            for target in panel["targets"] as! [[String: Any]] {
                let expr = target["expr"] as! String
                XCTAssertTrue(exported.contains { expr.contains($0) }, "panel query uses no exported metric: \(expr)")
            }
        }
    }
}
