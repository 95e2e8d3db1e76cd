/// One worker's traces in the making: a call's spans are kept here until the call ends, then handed on when the
/// call is exported (sampled, failed, or hit by an injected fault) and dropped otherwise.
///
/// Ownership rule: used only on its worker's loop, like the worker's books; nothing here locks except the
/// hand-over to `TraceDirectory`. Times in are the loop clock's monotonic nanoseconds; spans carry Unix nanoseconds
/// (`unixOffsetNanos` added).
public final class CallTraceBuffer {
    public struct Settings: Sendable {
        public var seed: UInt64
        public var shard: Int
        public var worker: Int
        /// Share of calls traced whatever happens to them, 0...1.
        public var share: Double
        /// Unix time minus the monotonic clock, in nanoseconds, taken once at the start of the run.
        public var unixOffsetNanos: Int64
        /// The header devices' HTTP requests carry the call's trace context in; nil sends none (the template
        /// variable `${trace.parent}` is set either way).
        public var traceparentHeader: String? = "traceparent"
        /// The SIP header a sampled call's SIP requests carry the trace context in; nil sends none (the default).
        public var sipTraceHeader: String?

        public init(seed: UInt64, shard: Int, worker: Int, share: Double, unixOffsetNanos: Int64) {
            self.seed = seed
            self.shard = shard
            self.worker = worker
            self.share = share
            self.unixOffsetNanos = unixOffsetNanos
        }
    }

    struct OpenCall {
        var trace: TraceID
        var sampled: Bool
        var flow: String
        var start: UInt64
        var spans: [OTLPSpan] = []
        /// Index in `spans` of each action still running, by action id.
        var running: [UInt64: Int] = [:]
        /// The action started last, while it runs: the parent a request sent now names.
        var current: UInt64?
        var events: [OTLPSpan.Event] = []
        var failed = false
        var faulted = false
        var conversation: String?
        /// The call's other conversations (a merge's second call), filed too for the checker's findings.
        var otherConversations: [String] = []
        /// Push spans so far, numbering them.
        var pushes: UInt64 = 0
    }

    public let settings: Settings
    private let directory: TraceDirectory?
    private let export: @Sendable ([OTLPSpan]) -> Void
    private var open: [Int: OpenCall] = [:]

    /// - Parameters:
    ///   - directory: where each call's conversation is filed under its trace id, for the checker's findings.
    ///   - export: where an ended call's spans go (the exporter's bounded queue); called on the loop.
    public init(settings: Settings, directory: TraceDirectory?, export: @escaping @Sendable ([OTLPSpan]) -> Void) {
        self.settings = settings
        self.directory = directory
        self.export = export
    }

    /// The calls whose spans are kept.
    public var openCalls: Int { open.count }

    private func unix(_ nanos: UInt64) -> UInt64 {
        UInt64(truncatingIfNeeded: Int64(truncatingIfNeeded: nanos) &+ settings.unixOffsetNanos)
    }

    /// The call's record, opened at its first action: its trace id is drawn from the seed, and whether it is in
    /// the sampled share is decided then, so the `traceparent` of its first request already says so.
    private func call(_ id: Int, flow: String, now: UInt64) -> OpenCall {
        if let existing = open[id] { return existing }
        let trace = TraceIDs.trace(seed: settings.seed, shard: settings.shard, worker: settings.worker, call: id)
        let sampled = settings.share >= 1 || Double(TraceIDs.mix(trace.high) >> 11) < settings.share * 0x1p53
        return OpenCall(trace: trace, sampled: sampled, flow: flow, start: now)
    }

    /// The W3C `traceparent` a request of call `id` sent now carries, when the call is sampled: its running
    /// action's span (the one started last), else the call's root span.
    public func traceparent(call id: Int) -> String? {
        guard let record = open[id], record.sampled else { return nil }
        let span = record.current.map { $0 &+ 1 } ?? 0
        return TraceIDs.traceparent(record.trace, TraceIDs.span(record.trace, span))
    }

    public func actionStarted(call id: Int, flow: String, action: UInt64, name: String, attributes: [OTLPAttribute],
                              now: UInt64) {
        var record = call(id, flow: flow, now: now)
        let root = TraceIDs.span(record.trace, 0)
        record.running[action] = record.spans.count
        record.current = action
        record.spans.append(OTLPSpan(traceID: record.trace, spanID: TraceIDs.span(record.trace, action &+ 1),
                                     parentSpanID: root, name: name, kind: .client, startUnixNanos: unix(now),
                                     endUnixNanos: unix(now), attributes: attributes))
        open[id] = record
    }

    /// An action's one outcome: `failure` is the reason of a failed or timed-out one (nil when fulfilled).
    public func actionFinished(call id: Int, action: UInt64, outcome: String, failure: String?, conversation: String?,
                               now: UInt64) {
        guard var record = open[id], let index = record.running.removeValue(forKey: action) else { return }
        if record.current == action { record.current = nil }
        record.spans[index].endUnixNanos = unix(now)
        record.spans[index].attributes.append(OTLPAttribute("callstorm.outcome", outcome))
        if let failure {
            record.spans[index].attributes.append(OTLPAttribute("callstorm.reason", failure))
            record.spans[index].status = .error
            record.spans[index].statusMessage = failure
            record.failed = true
        }
        if let conversation, !conversation.isEmpty {
            if record.conversation == nil {
                record.conversation = conversation
            } else if conversation != record.conversation, !record.otherConversations.contains(conversation) {
                record.otherConversations.append(conversation)
            }
        }
        open[id] = record
    }

    /// A push of the call from the gateway's acceptance (sent) to its delivery to the device and, for a VoIP push,
    /// the app's report of the incoming call: a span `push` whose events mark delivered and reported.
    public func push(call id: Int, type: String, device: String, accepted: UInt64, delivered: UInt64,
                     reported: UInt64?, deadlineMissed: Bool) {
        guard var record = open[id] else { return }
        let end = reported ?? delivered
        var events = [OTLPSpan.Event(timeUnixNanos: unix(delivered), name: "delivered", attributes: [])]
        if let reported {
            events.append(OTLPSpan.Event(timeUnixNanos: unix(reported), name: "reported", attributes: []))
        }
        record.pushes &+= 1
        // Span numbers past the actions' (action id + 1): pushes count down from the top of the range.
        let spanID = TraceIDs.span(record.trace, UInt64.max / 2 &- record.pushes)
        record.spans.append(OTLPSpan(
            traceID: record.trace, spanID: spanID, parentSpanID: TraceIDs.span(record.trace, 0), name: "push",
            kind: .consumer, startUnixNanos: unix(accepted), endUnixNanos: unix(end),
            attributes: [OTLPAttribute("callstorm.push.type", type), OTLPAttribute("callstorm.device", device),
                         OTLPAttribute("callstorm.push.deadline_missed", .bool(deadlineMissed))],
            events: events, status: deadlineMissed ? .error : .unset,
            statusMessage: deadlineMissed ? "reported after the push deadline" : ""))
        open[id] = record
    }

    /// An injected fault that hit the call: an event on its root span, and the call is exported.
    public func fault(call id: Int, kind: String, window: String, now: UInt64) {
        guard var record = open[id] else { return }
        record.faulted = true
        record.events.append(OTLPSpan.Event(timeUnixNanos: unix(now), name: "fault", attributes: [
            OTLPAttribute("callstorm.fault.kind", kind), OTLPAttribute("callstorm.fault.window", window)]))
        open[id] = record
    }

    /// The call ended: its spans go to `export` when it was sampled, failed or faulted. `outcome` is the call's as
    /// the books count it (`completed`, `failed`, `missed`): a declared refusal whose start failed is completed
    /// there, and the `call` span says so; without it, any failed action makes the span `failed`.
    public func callEnded(call id: Int, now: UInt64, inFlightAtStop: Bool = false, outcome: String? = nil) {
        guard let record = open.removeValue(forKey: id) else { return }
        if let conversation = record.conversation { directory?.file(conversation, trace: record.trace) }
        for conversation in record.otherConversations { directory?.file(conversation, trace: record.trace) }
        guard record.sampled || record.failed || record.faulted else {
            if let conversation = record.conversation {
                directory?.keep(TraceDirectory.CallStub(startUnixNanos: unix(record.start), endUnixNanos: unix(now),
                                                        flow: record.flow, conversation: conversation),
                                trace: record.trace)
            }
            return
        }
        var spans = record.spans
        for index in record.running.values {
            spans[index].endUnixNanos = unix(now)
            spans[index].attributes.append(OTLPAttribute("callstorm.outcome", "in_flight_at_stop"))
        }
        var attributes = [OTLPAttribute("callstorm.flow", record.flow),
                          OTLPAttribute("callstorm.sampled", .bool(record.sampled))]
        if let conversation = record.conversation {
            attributes.append(OTLPAttribute("callstorm.conversation", conversation))
        }
        let callOutcome = inFlightAtStop ? "in_flight_at_stop" : outcome ?? (record.failed ? "failed" : "completed")
        attributes.append(OTLPAttribute("callstorm.outcome", callOutcome))
        spans.insert(OTLPSpan(traceID: record.trace, spanID: TraceIDs.span(record.trace, 0), name: "call",
                              startUnixNanos: unix(record.start), endUnixNanos: unix(now), attributes: attributes,
                              events: record.events, status: callOutcome == "failed" ? .error : .unset), at: 0)
        export(spans)
    }

    /// The run stopped: calls still open end as in flight.
    public func stop(now: UInt64) {
        for id in Array(open.keys).sorted() { callEnded(call: id, now: now, inFlightAtStop: true) }
    }
}
