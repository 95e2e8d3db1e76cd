/// One end of one call's audio as callstorm counted it, at the stream's close: what a relay's own counts for the
/// call are compared with (docs/MEDIA.md, "The relay's counts beside callstorm's"). A value the worker hands out
/// of the run; nothing here is read on the hot path.
public struct MediaLegTally: Sendable, Equatable {
    /// The SIP Call-ID, which the relay files the call under.
    public var callID: String
    /// The run's call number (the notes' "call N").
    public var call: Int
    /// The caller's end (the offerer), else the callee's.
    public var caller: Bool
    /// The stream's own UDP port: the SDP's `m=audio` port, and the source port of every packet it sends.
    public var localPort: Int
    /// RTP packets this end sent.
    public var sent: Int
    /// RTP packets of the far end this end counted (duplicates apart).
    public var received: Int
    /// At most how many of `sent` left in the last `window` before the stream stopped: packets that may still
    /// have been on their way (to the relay, or from it to a far end that had already closed) when the call
    /// ended, so counts taken at each hop may differ by up to this many.
    public var lastWindowPackets: Int
    /// How many packets of the far end may have sat unread in this end's socket when it closed: those arriving
    /// during its loop's largest stall, ⌊max send lag / interval⌋ (the stream sends and reads on one loop, so its
    /// send lag is that loop's lateness). 0 on a loop that keeps up.
    public var stallPackets: Int

    public init(callID: String, call: Int, caller: Bool, localPort: Int, sent: Int, received: Int,
                lastWindowPackets: Int, stallPackets: Int = 0) {
        self.callID = callID
        self.call = call
        self.caller = caller
        self.localPort = localPort
        self.sent = sent
        self.received = received
        self.lastWindowPackets = lastWindowPackets
        self.stallPackets = stallPackets
    }

    /// The window the comparison allows for: 100 ms (issue 34).
    public static let windowNanos: UInt64 = 100_000_000

    /// A closed stream's tally. Packets are planned every `intervalNanos` and a late loop sends what it owes at
    /// once, so the sends in the last `windowNanos` before the stop are at most the slots planned in the last
    /// `windowNanos + maxLag` (the largest lag the stream's schedule measured): ⌊(window + max lag) / interval⌋ + 1
    /// (the +1 for a slot on the window's edge), never more than the stream sent. 6 at 20 ms with no lag.
    public init(callID: String, call: Int, caller: Bool, localPort: Int, report: MediaStreamReport,
                intervalNanos: UInt64 = MediaCodec.packetNanos, windowNanos: UInt64 = MediaLegTally.windowNanos) {
        let interval = max(1, intervalNanos)
        let slots = Int((windowNanos + report.sendLag.maxNanos) / interval) + 1
        self.init(callID: callID, call: call, caller: caller, localPort: localPort, sent: report.sent.packets,
                  received: report.receiver.received, lastWindowPackets: min(report.sent.packets, slots),
                  stallPackets: Int(report.sendLag.maxNanos / interval))
    }
}
