import Driver
import Foundation
import Locking
import Media
import Metrics
import Results
import RTPEngine

/// The rtpengine a run started (`target.sip.rtpengine`): the server, the book of its calls' counts, each read shortly
/// after its ends closed (`RelayCallBook`), and callstorm's own per-stream tallies handed over by the workers as each
/// stream closes. At the run's end, before it is stopped, the two are compared (`RelayComparison`) into
/// media-relay.csv, the counters `media.relay.*` and a note per disagreeing call.
///
/// Thread safety: `add` from any worker thread; the rest from the run's thread.
final class LaunchedRelay: @unchecked Sendable {
    let server: RTPEngineServer
    let book: RelayCallBook
    private let legs = Mutex<[MediaLegTally]>([])
    private var compared = false

    init(server: RTPEngineServer, book: RelayCallBook) {
        self.server = server
        self.book = book
    }

    /// A stream's tally (a worker's thread).
    func add(_ tally: MediaLegTally) {
        legs.withLock { $0.append(tally) }
        book.closed(tally.callID)
    }

    /// Reads the relay's counts back, compares them with the tallies, writes `bundle.mediaRelay` and puts the
    /// counters (also kept in raw/ as `recorder-relay`, so `callstorm report` finds them) and notes into
    /// `result`. Once; before `stop`.
    func compare(into result: inout LoadDriver.Result, bundle: RunBundle, runStartNanos: UInt64, nowNanos: UInt64) {
        guard !compared else { return }
        compared = true
        let tallies = legs.withLock { $0 }
        let (calls, unanswered) = book.finish(extra: Set(tallies.map(\.callID)))
        let comparison = RelayComparison(legs: tallies, relay: calls)
        var counted = Recorder(runStartNanos: runStartNanos)
        counted.count(.mediaRelayCallsCompared, by: Int64(comparison.callsCompared), atNanos: nowNanos)
        counted.count(.mediaRelayMismatch, by: Int64(comparison.mismatchedCalls.count), atNanos: nowNanos)
        if unanswered > 0 { counted.count(.mediaRelayUnanswered, by: Int64(unanswered), atNanos: nowNanos) }
        if let files = try? RecorderCheckpointer(directory: bundle.raw, stem: RunBundle.relayRecorderStem) {
            counted = files.close(counted)
        }
        result.recorder.merge(counted)
        if unanswered > 0 {
            result.notes.append("media relay: \(unanswered) ng queries to rtpengine went unanswered; its counts "
                + "for some calls may be missing")
        }
        result.notes += comparison.notes()
        if !comparison.mismatchedCalls.isEmpty {
            result.notes.append("media relay: \(comparison.mismatchedCalls.count) of \(comparison.callsCompared) "
                + "calls' packet counts disagree with rtpengine's beyond the packets sent in each stream's last "
                + "100 ms (\(RunBundle.mediaRelayFileName))")
        }
        do {
            try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
            try Data(comparison.csv.utf8).write(to: bundle.mediaRelay)
        } catch {
            result.notes.append("media relay: could not write \(RunBundle.mediaRelayFileName): \(error)")
        }
    }

    /// Stops the book's thread and the relay (by PID). Idempotent; its log stays in the run directory.
    func stop() {
        book.stopPolling()
        server.stop()
    }
}
