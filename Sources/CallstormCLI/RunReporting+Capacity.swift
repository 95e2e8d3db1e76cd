import Foundation
import Metrics
import Results
import Scenario
import ScenarioLoading
import Thresholds

extension RunReporting {
    /// The scenario copy in the run directory, so a rebuilt report judges the knee and the harness as the run did.
    static func scenarioCopy(run: URL) -> Scenario? {
        let path = scenarioURL(run).path
        guard FileManager.default.fileExists(atPath: path),
              case .success(let scenario) = ScenarioLoader.load(contentsOf: path, knownFlows: ValidateCommand.knownFlows)
        else { return nil }
        return scenario
    }

    /// The `capacity:` section of the scenario copy.
    static func capacitySpec(run: URL) -> CapacitySpec? { scenarioCopy(run: run)?.capacity }
}

/// The run's live reading of its own checkpoints: every two seconds, on the background thread (`BackgroundTicker`),
/// one `RecorderFollower` read of the workers' checkpoints (no lock on any worker) handed to each watch still
/// looking (`CapacityWatch`, `SaturationWatch`). Nil when no watch is on.
///
/// Why one read for both: each watch had its own follower and timer, so the same snapshots were parsed and the
/// same series merged twice every two seconds, in two bursts on libdispatch's pool threads at the workers' own
/// priority (issue 33's capacity lag clause).
final class CheckpointWatch: @unchecked Sendable {
    /// A watch's look at the recorder; returns whether it wants the next read (false once it has its verdict).
    typealias Check = (Recorder) -> Bool

    private let ticker: BackgroundTicker

    init?(runDirectory: URL, every seconds: Double = 2, checks: [Check]) {
        guard !checks.isEmpty else { return nil }
        let follower = RecorderFollower(run: runDirectory)
        var looking = checks
        ticker = BackgroundTicker(every: seconds) {
            guard !looking.isEmpty, let recorder = try? follower.load() else { return }
            looking = looking.filter { $0(recorder) }
        }
    }

    /// Stops reading; the watches' verdicts may be read once this returns.
    func stop() { ticker.stop() }
}

/// Watches a `capacity:` ramp during the run (through `CheckpointWatch`) and ends the arrivals once a window
/// breaks the limit, so an overloaded target's collapse does not fill the rest of the run.
final class CapacityWatch: @unchecked Sendable {
    private let spec: CapacitySpec
    private let onKnee: @Sendable () -> Void
    /// Written on the background thread, read after `CheckpointWatch.stop()`.
    private(set) var knee: CapacityResult?

    init?(spec: CapacitySpec?, onKnee: @escaping @Sendable () -> Void) {
        guard let spec, spec.stopAtKnee else { return nil }
        (self.spec, self.onKnee) = (spec, onKnee)
    }

    func check(_ recorder: Recorder) -> Bool {
        let result = CapacityAnalysis.analyze(recorder, spec: spec)
        guard result.broken != nil else { return true }
        knee = result
        onKnee()
        return false
    }
}

/// Judges callstorm's own scheduler lag during the run (through `CheckpointWatch`). The first time a window passes
/// the `harness:` limit it says so on the terminal, and with `on_saturation: end_arrivals` or `abort` it ends the
/// arrivals or the run: figures after that point measure callstorm.
final class SaturationWatch: @unchecked Sendable {
    private let limit: HarnessLimit
    private let quiet: Bool
    private let onSaturation: @Sendable (HarnessSaturation) -> Void
    /// Written on the background thread, read after `CheckpointWatch.stop()`.
    private(set) var found: HarnessSaturation?

    /// Nil when the scenario only reports saturation (the default): the report judges it from the full series
    /// at the end, and no run pays for reading its checkpoints every two seconds.
    init?(limit: HarnessLimit, quiet: Bool, onSaturation: @escaping @Sendable (HarnessSaturation) -> Void) {
        guard limit.action != .report else { return nil }
        (self.limit, self.quiet, self.onSaturation) = (limit, quiet, onSaturation)
    }

    func check(_ recorder: Recorder) -> Bool {
        guard let saturation = HarnessSaturationAnalysis.analyze(recorder, limit: limit) else { return true }
        found = saturation
        if !quiet { FileHandle.standardError.write(Data("callstorm: \(saturation.summary)\n".utf8)) }
        onSaturation(saturation)
        return false
    }
}
