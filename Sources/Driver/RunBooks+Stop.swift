import CallModel
import Metrics
import Results
import RunFormats

/// The books' once-a-second checkpoint and their close at stop. The worker decides when these happen (its tick,
/// its `finish`); what they write down is the books' own rule, kept here beside the counts they balance.
extension RunBooks {
    /// Once a second: the active-calls gauge, the live p99 the progress line shows, the journal's checkpoint and the
    /// live snapshot. A checkpoint holds what a stop would count: `inFlight` adds what the worker's parts have in
    /// flight now to the checkpoint's copy (the pushes still owed are added here), so a report rebuilt after a
    /// kill balances its books as of this instant.
    func tick(now: UInt64, activeCalls: Int, inFlight: (inout Recorder) -> Void) {
        recorder.gauge(MetricName.conversationsActive, value: Double(activeCalls), atNanos: now)
        if let p99 = recorder.histogram(.pushToReport)?.value(atPercentile: 99) {
            live.p99Micros.store(Int(p99), ordering: .relaxed)
        }
        let second = recorder.second(atNanos: now)
        journal?.tick(&recorder, second: second) { recorder in
            var snapshot = recorder
            inFlight(&snapshot)
            if pendingDeliveries > 0 {
                snapshot.count(.pushesUndeliveredAtStop, by: pendingDeliveries, atNanos: now)
            }
            return snapshot
        }
        live.slot.publish(recorder, active: activeCalls)
    }

    /// At stop, before the worker's parts close: every call still running and its actions counted as in flight at
    /// stop (with a note for the first few, naming what each waited for), the pushes still owed as undelivered, and
    /// what the devices' conversation managers saw.
    func countAtStop(_ table: CallTable, now: UInt64) {
        table.countInFlight(into: &recorder, now: now, perFlow: true)
        for call in table.calls.values {
            let step = call.log.steps.last ?? "(none)"
            note("\(call.flow.name) call \(call.arrival.index) was still in flight at stop, " +
                 "waiting for \(call.waiting) after step \(step)", limit: 10)
        }
        if pendingDeliveries > 0 { count(.pushesUndeliveredAtStop, by: pendingDeliveries, at: now) }
        // Added up by index over the devices, named once (a dictionary built and merged per device before).
        var tally = ConversationEventTally()
        for device in table.devices.devices { device.manager.addEvents(to: &tally) }
        for (name, n) in tally.byName { count(.deviceEvent(name), by: Int64(n), at: now) }
    }

    /// Last, once the worker's parts closed: the final gauge, the recorder sealed, the history's stop line, the
    /// journal closed and the final snapshot published. Returns the recorder the driver merges.
    func close(activeCalls: Int, now: UInt64) -> Recorder {
        recorder.gauge(MetricName.conversationsActive, value: Double(activeCalls), atNanos: now)
        recorder.seal()
        let t = now &- runStart
        journal?.history { HistoryText.stop(t: t, into: &$0) }
        if let journal { recorder = journal.close(recorder) }
        live.slot.publish(recorder, active: activeCalls, final: true)
        return recorder
    }

    /// Once the driver merged what `close` returned: the books let their recorder go (an empty one in its
    /// place) and hand over their notes. The worker's recorder holds a dense histogram per latency metric
    /// (~190 KB each) and every second held for the close; kept, it stayed in memory beside the merged copy
    /// through the history check and the report, the end-of-run peak (issue 33).
    func handedOver() -> [String] {
        recorder = Recorder(runStartNanos: runStart)
        return notes
    }
}
