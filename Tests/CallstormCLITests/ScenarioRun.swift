@testable import CallstormCLI
import Foundation

/// A whole in-process run of scenario text, as most CLI tests make one: the YAML saved as `<dir>/<file>.yaml` and
/// run quietly into `<dir>/<out>`; `adjust` sets any other option first.
func runScenario(_ yaml: String, in dir: URL, file: String = "scenario", out: String = "run",
                 adjust: (inout RunCommand.Options) -> Void = { _ in }) throws -> RunCommand.Outcome {
    let path = dir.appendingPathComponent("\(file).yaml")
    let client = ProcessInfo.processInfo.environment["CALLSTORM_TEST_TARGET_CLIENT"]
    try (client.map { settingTargetClient(yaml, $0) } ?? yaml).write(to: path, atomically: true, encoding: .utf8)
    var options = RunCommand.Options(file: path.path)
    options.out = dir.appendingPathComponent(out).path
    options.quiet = true
    adjust(&options)
    return try RunCommand.perform(options)
}

/// `yaml` with `target.client` set to `client`, for running a test's scenario through the other HTTP client:
/// written into a top-level `target: { … }` or `target:` block, or as a `target` of its own (the embedded one,
/// the default) when there is none. `CALLSTORM_TEST_TARGET_CLIENT=wire` has `runScenario` do this to every
/// scenario, so the classes that run HTTP devices in-process can be run once through each client.
func settingTargetClient(_ yaml: String, _ client: String) -> String {
    var lines = yaml.components(separatedBy: "\n")
    if let i = lines.firstIndex(where: { $0.hasPrefix("target:") }) {
        if let brace = lines[i].firstIndex(of: "{") {
            lines[i].insert(contentsOf: " client: \(client),", at: lines[i].index(after: brace))
        } else {
            lines.insert("  client: \(client)", at: i + 1)
        }
        return lines.joined(separator: "\n")
    }
    return yaml + (yaml.hasSuffix("\n") ? "" : "\n") + "target: { embedded: true, client: \(client) }\n"
}
