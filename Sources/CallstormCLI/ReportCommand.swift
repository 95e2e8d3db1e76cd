import Foundation
import Metrics
import Reports
import Results

/// `callstorm report RUN_DIR`: rebuilds every report file from the run's raw results, so a run killed with
/// SIGKILL, or one whose report was deleted, still has its report (everything up to the last checkpoint).
enum ReportCommand {
    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        let parsed = try Arguments(args, valued: [], boolean: ["help"])
        if parsed.has("help") {
            print(Help.report)
            return .passed
        }
        guard parsed.positional.count == 1, let path = parsed.positional.first else {
            throw .usage("report takes exactly one run directory")
        }
        let written = try rebuild(run: URL(fileURLWithPath: path))
        for item in written.thresholds { print(item.summary) }
        written.books.lines.forEach { print($0) }
        print("report: \(written.files.html.path)")
        if !written.books.balanced {
            for problem in written.books.problems {
                FileHandle.standardError.write(Data("accounting does not balance: \(problem)\n".utf8))
            }
            return .harnessFailure
        }
        // A Kamailio callstorm started ran out of memory: the harness's configuration, as the run itself exited.
        if written.kamailioExhausted { return .harnessFailure }
        return exitCode(written)
    }

    /// As the run itself would have exited (after the books and a launched Kamailio out of memory, both 3): 1 when a
    /// threshold failed (on what was measured), 130 when every
    /// threshold held but the run never finished (killed or crashed: the results are partial), 4 when it did
    /// nothing (no device registered, no call started, or nothing connected: none answered and none ended
    /// unanswered as its flow declares; a run of calls abandoned by their callers did something), else 0.
    static func exitCode(_ written: RunReporting.Written) -> ExitCode {
        if written.thresholds.contains(where: { !$0.passed }) { return .thresholdsFailed }
        return .of(written.verdict, interrupted: written.interrupted)
    }

    static func rebuild(run: URL) throws(CLIError) -> RunReporting.Written {
        let recorder: Recorder
        do {
            recorder = try RunResults.loadRecorder(run: run)
        } catch {
            throw .cannotRead(what: "the raw results to rebuild the report from", path: run.path, cause: error)
        }
        let finished = FileManager.default.fileExists(atPath: RunReporting.finishedURL(run).path)
        var notes = RunReporting.load([String].self, from: RunReporting.notesURL(run)) ?? []
        let lastSecond = (recorder.intervals.values.flatMap(\.keys)
            + recorder.counterNames.compactMap { recorder.counterSeries($0).last?.second }).max() ?? 0
        var facts = RunReporting.load(RunFacts.self, from: RunReporting.factsURL(run)) ?? RunFacts(
            scenario: run.lastPathComponent, scenarioFile: "", seed: 0, version: Command.version,
            startedAt: Date(timeIntervalSince1970: 0), durationSeconds: 0, machine: "unknown", workers: 0,
            devices: 0, target: "unknown", pushDeadlineMicros: 0, commandLine: "")
        if !finished {
            facts.interrupted = true
            facts.durationSeconds = Double(lastSecond + 1)
            notes.append("Rebuilt by 'callstorm report' from the checkpoints in raw/: the run ended without "
                + "finishing (killed or crashed), so measurements after the last checkpoint (taken every 2 s) "
                + "are missing.")
        }
        var thresholdNotes: [String] = []
        let thresholds = RunReporting.thresholds(run: run, notes: &thresholdNotes)
        // The launched Kamailio's memory, read again from its log (the run's notes already say it in full).
        let exhaustion = KamailioExhaustion(run: run, facts: facts)
        do {
            var written = try RunReporting.write(run: run, facts: facts, recorder: recorder, thresholds: thresholds,
                                                 notes: notes + thresholdNotes,
                                                 extraFailures: exhaustion.map { [$0.failure] } ?? [])
            written.kamailioExhausted = exhaustion != nil
            return written
        } catch {
            throw .cannotWrite(what: "the report", directory: run.path, cause: error)
        }
    }
}
