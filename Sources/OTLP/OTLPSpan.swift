/// One span as OTLP carries it (trace.proto `Span`), with the fields callstorm fills: a call's trace holds a root
/// span for the call and one child span per action; faults and checker findings are its events.
public struct OTLPSpan: Sendable, Equatable {
    /// trace.proto `Span.SpanKind`.
    public enum Kind: Int64, Sendable {
        case unspecified = 0, `internal` = 1, server = 2, client = 3, producer = 4, consumer = 5
    }

    /// trace.proto `Status.StatusCode`.
    public enum StatusCode: Int64, Sendable {
        case unset = 0, ok = 1, error = 2
    }

    /// A timed annotation on a span (`Span.Event`): an injected fault, a checker finding.
    public struct Event: Sendable, Equatable {
        public var timeUnixNanos: UInt64
        public var name: String
        public var attributes: [OTLPAttribute]

        public init(timeUnixNanos: UInt64, name: String, attributes: [OTLPAttribute] = []) {
            self.timeUnixNanos = timeUnixNanos
            self.name = name
            self.attributes = attributes
        }
    }

    public var traceID: TraceID
    public var spanID: SpanID
    public var parentSpanID: SpanID?
    public var name: String
    public var kind: Kind
    public var startUnixNanos: UInt64
    public var endUnixNanos: UInt64
    public var attributes: [OTLPAttribute]
    public var events: [Event]
    public var status: StatusCode
    public var statusMessage: String

    public init(traceID: TraceID, spanID: SpanID, parentSpanID: SpanID? = nil, name: String,
                kind: Kind = .internal, startUnixNanos: UInt64, endUnixNanos: UInt64,
                attributes: [OTLPAttribute] = [], events: [Event] = [], status: StatusCode = .unset,
                statusMessage: String = "") {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startUnixNanos = startUnixNanos
        self.endUnixNanos = endUnixNanos
        self.attributes = attributes
        self.events = events
        self.status = status
        self.statusMessage = statusMessage
    }
}

// MARK: - Encoding

extension OTLPSpan {
    /// `flags` of a local span: SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK set (whether the parent is remote is known)
    /// and IS_REMOTE clear, as the reference SDK writes for every span it made itself.
    static let localSpanFlags: UInt32 = 0x100

    /// trace.proto: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9,
    /// events 11, status 15, flags 16. The status is always present, as the SDK writes it (an unset one empty).
    func encode(into w: inout ProtoWriter) {
        w.data(1, traceID.bytes)
        w.data(2, spanID.bytes)
        if let parentSpanID { w.data(4, parentSpanID.bytes) }
        w.string(5, name)
        w.int64(6, kind.rawValue)
        w.fixed64(7, startUnixNanos)
        w.fixed64(8, endUnixNanos)
        w.attributes(9, attributes)
        for event in events {
            w.message(11) { e in
                e.fixed64(1, event.timeUnixNanos)
                e.string(2, event.name)
                e.attributes(3, event.attributes)
            }
        }
        w.message(15) { s in
            s.string(2, statusMessage)
            s.int64(3, status.rawValue)
        }
        w.fixed32(16, Self.localSpanFlags)
    }
}
