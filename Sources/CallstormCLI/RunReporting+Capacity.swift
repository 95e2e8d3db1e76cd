import Dispatch
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

/// Watches a `capacity:` ramp during the run from the workers' checkpoints (no lock on any worker) and ends the
/// arrivals once a window breaks the limit, so an overloaded target's collapse does not fill the rest of the run.
final class CapacityWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "callstorm.capacity")
    private let timer: DispatchSourceTimer
    /// Written on `queue`, read after `stop()`.
    private var knee: CapacityResult?

    init?(spec: CapacitySpec?, runDirectory: URL, onKnee: @escaping @Sendable () -> Void) {
        guard let spec, spec.stopAtKnee else { return nil }
        timer = DispatchSource.makeTimerSource(queue: queue)
        let follower = RecorderFollower(run: runDirectory)
        timer.setEventHandler { [unowned self] in
            guard knee == nil, let recorder = try? follower.load() else { return }
            let result = CapacityAnalysis.analyze(recorder, spec: spec)
            if result.broken != nil {
                knee = result
                onKnee()
            }
        }
        timer.schedule(deadline: .now() + 2, repeating: 2)
        timer.resume()
    }

    /// Stops watching; returns the analysis that ended the arrivals, if the knee was found during the run.
    func stop() -> CapacityResult? {
        timer.cancel()
        return queue.sync { knee }
    }
}

/// Judges callstorm's own scheduler lag during the run from the workers' checkpoints (no lock on any worker). The
/// first time a window passes the `harness:` limit it says so on the terminal, and with `on_saturation:
/// end_arrivals` or `abort` it ends the arrivals or the run: figures after that point measure callstorm.
final class SaturationWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "callstorm.saturation")
    private let timer: DispatchSourceTimer
    /// Written on `queue`, read after `stop()`.
    private var found: HarnessSaturation?

    /// Nil when the scenario only reports saturation (the default): the report judges it from the full series
    /// at the end, and no run pays for reading its checkpoints every two seconds.
    init?(limit: HarnessLimit, runDirectory: URL, quiet: Bool,
          onSaturation: @escaping @Sendable (HarnessSaturation) -> Void) {
        guard limit.action != .report else { return nil }
        timer = DispatchSource.makeTimerSource(queue: queue)
        let follower = RecorderFollower(run: runDirectory)
        timer.setEventHandler { [unowned self] in
            guard found == nil, let recorder = try? follower.load(),
                  let saturation = HarnessSaturationAnalysis.analyze(recorder, limit: limit) else { return }
            found = saturation
            if !quiet { FileHandle.standardError.write(Data("callstorm: \(saturation.summary)\n".utf8)) }
            onSaturation(saturation)
        }
        timer.schedule(deadline: .now() + 2, repeating: 2)
        timer.resume()
    }

    /// Stops watching; returns the saturation seen during the run, if any.
    func stop() -> HarnessSaturation? {
        timer.cancel()
        return queue.sync { found }
    }
}
