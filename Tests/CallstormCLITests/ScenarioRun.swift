@testable import CallstormCLI
import Foundation

/// A whole in-process run of scenario text, as most CLI tests make one: the YAML saved as `<dir>/<file>.yaml` and
/// run quietly into `<dir>/<out>`; `adjust` sets any other option first.
func runScenario(_ yaml: String, in dir: URL, file: String = "scenario", out: String = "run",
                 adjust: (inout RunCommand.Options) -> Void = { _ in }) throws -> RunCommand.Outcome {
    let path = dir.appendingPathComponent("\(file).yaml")
    try yaml.write(to: path, atomically: true, encoding: .utf8)
    var options = RunCommand.Options(file: path.path)
    options.out = dir.appendingPathComponent(out).path
    options.quiet = true
    adjust(&options)
    return try RunCommand.perform(options)
}
