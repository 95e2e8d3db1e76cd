/// One end of one call's audio, without I/O: what it sends and when (`SendSchedule`, the payload with its
/// signature), what it received (`RTPReceiverStatistics`), whether the far end's audio is missing
/// (`OneWayAudioDetector`), and what was not RTP (malformed, by kind). Both `MediaStreams` implementations in
/// MediaIO drive one per stream, so the real sockets and the embedded twin judge alike.
///
/// Order of use: `start` at the answer with this end's negotiated direction; `setDirection` on each re-INVITE
/// (hold, resume); `nextPacket` while it yields bytes whenever `nextDeadline` comes, `receive` for each datagram,
/// `advance` at `nextDeadline`; `stop` at the end of the call. Every step takes the owner's clock reading.
public struct MediaSession: Sendable {
    public let settings: MediaStreamSettings
    public private(set) var direction = MediaDirection.inactive
    public private(set) var sent = SentCounts()
    public private(set) var receiver = RTPReceiverStatistics()
    /// The far end's SSRC: the first RTP source heard.
    public private(set) var remoteSSRC: UInt32?
    public private(set) var detector: OneWayAudioDetector
    public private(set) var malformed = MediaMalformedCounts()
    public private(set) var strays = StrayCounts()
    public private(set) var answeredAt: UInt64?
    public private(set) var stoppedAt: UInt64?
    private var schedule: SendSchedule?
    /// The next packet starts a talkspurt (marker bit, RFC 3551 §4.1): the first after the start or a resume.
    private var talkspurt = true

    public init(settings: MediaStreamSettings) {
        self.settings = settings
        detector = OneWayAudioDetector(thresholdNanos: settings.oneWayThresholdNanos)
        sent.nextSequence = settings.initialSequence
    }

    /// The lag of this stream's sends behind their plan.
    public var sendLag: SendLag { schedule?.lag ?? SendLag() }

    /// The call was answered at `now`; this end's negotiated direction says whether it sends and listens. Its first
    /// packet goes `sendAfterNanos` later (the app's audio session starting, `device.audio_session`); it listens,
    /// and its answer → audio clock runs, from `now`.
    public mutating func start(at now: UInt64, direction: MediaDirection, sendAfterNanos: UInt64 = 0) {
        guard answeredAt == nil, stoppedAt == nil else { return }
        answeredAt = now
        self.direction = direction
        schedule = SendSchedule(startNanos: now &+ sendAfterNanos, intervalNanos: settings.intervalNanos)
        detector.answered(at: now, expecting: direction.receives)
    }

    /// This end's direction changed at `now` (hold or resume); may end an episode the hold explains.
    public mutating func setDirection(_ new: MediaDirection, at now: UInt64) -> MediaEvent? {
        guard answeredAt != nil, stoppedAt == nil else {
            direction = new
            return nil
        }
        if new.sends, !direction.sends {
            schedule?.skip(to: now)
            talkspurt = true
        }
        direction = new
        return detector.expect(new.receives, at: now)
    }

    /// This end sent an offer with `direction` (a re-INVITE); the direction itself changes at the answer
    /// (`setDirection`). A resume's offer readies the detector for the answerer's audio (`OneWayAudioDetector.offered`).
    public mutating func offered(_ direction: MediaDirection) {
        guard answeredAt != nil, stoppedAt == nil else { return }
        detector.offered(receiving: direction.receives)
    }

    /// Writes the next packet due at `now` into `out` (cleared first) and returns true; false when none is due.
    public mutating func nextPacket(now: UInt64, into out: inout [UInt8]) -> Bool {
        guard stoppedAt == nil, direction.sends, let slot = schedule?.take(now: now) else { return false }
        out.removeAll(keepingCapacity: true)
        let timestamp = settings.initialTimestamp
            &+ UInt32(truncatingIfNeeded: slot.index &* UInt64(MediaCodec.samplesPerPacket))
        let header = RTPHeader(payloadType: settings.codec.payloadType, sequence: sent.nextSequence,
                               timestamp: timestamp, ssrc: settings.ssrc, marker: talkspurt)
        header.write(into: &out)
        MediaPayload.append(codec: settings.codec, pattern: settings.pattern, ssrc: settings.ssrc,
                            sequence: sent.nextSequence, sentNanos: now, into: &out)
        talkspurt = false
        sent.packets += 1
        sent.octets += out.count - header.byteCount
        sent.nextSequence &+= 1
        sent.lastTimestamp = timestamp
        return true
    }

    /// Takes one datagram that arrived at `now`.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, at now: UInt64) -> MediaEvent? {
        guard stoppedAt == nil else { return nil }
        let parsed: (header: RTPHeader, payload: Range<Int>)
        do {
            parsed = try RTPHeader.parse(bytes)
        } catch {
            malformed.count(error.kind)
            return nil
        }
        let header = parsed.header
        let payload = UnsafeRawBufferPointer(rebasing: bytes[parsed.payload])
        let signature = MediaPayload.signature(payload)
        if header.ssrc == settings.ssrc || signature?.ssrc == settings.ssrc {
            strays.ownPackets += 1
            return nil
        }
        if remoteSSRC == nil { remoteSSRC = header.ssrc }
        guard header.ssrc == remoteSSRC else {
            strays.otherSources += 1
            return nil
        }
        if header.payloadType != settings.codec.payloadType { strays.otherPayloadType += 1 }
        let verdict = receiver.note(sequence: header.sequence, timestamp: header.timestamp,
                                    payloadBytes: payload.count, arrivalNanos: now, sentNanos: signature?.sentNanos)
        switch verdict {
        case .duplicate, .jumpPending: return nil
        case .inOrder, .late, .restarted: return detector.packet(at: now)
        }
    }

    /// When the owner must call `nextPacket` or `advance` next (nil: nothing planned).
    public var nextDeadline: UInt64? {
        guard stoppedAt == nil else { return nil }
        let send = direction.sends ? schedule?.nextDue : nil
        switch (send, detector.nextDeadline) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b): return b
        }
    }

    /// Time passed to `now`: may find one-way audio.
    public mutating func advance(to now: UInt64) -> MediaEvent? {
        guard stoppedAt == nil else { return nil }
        return detector.advance(to: now)
    }

    /// The call ended at `now`: nothing is sent or judged after.
    public mutating func stop(at now: UInt64) -> MediaEvent? {
        guard stoppedAt == nil else { return nil }
        stoppedAt = now
        return detector.stop(at: now)
    }

    /// The report block on `ssrc` from this end's receiver books (starts the next fraction-lost interval).
    mutating func takeReportBlock(ssrc: UInt32) -> RTCPReportBlock {
        receiver.takeReportBlock(ssrc: ssrc)
    }

    /// What this stream has measured so far.
    public var report: MediaStreamReport {
        MediaStreamReport(sent: sent, receiver: receiver, detector: detector, malformed: malformed, strays: strays,
                          sendLag: sendLag)
    }
}

/// What a stream reports as it goes: the detector's findings.
public typealias MediaEvent = OneWayAudioDetector.Finding

/// What one stream sent.
public struct SentCounts: Sendable, Equatable {
    public var packets = 0
    /// Payload octets (RFC 3550's sender octet count: headers excluded).
    public var octets = 0
    public var nextSequence: UInt16 = 0
    public var lastTimestamp: UInt32 = 0

    public init() {}
}

/// Packets that were RTP but not the far end's stream.
public struct StrayCounts: Sendable, Equatable {
    /// Carrying this stream's own SSRC or signature: its own packets looped back (a relay or a stale address).
    public var ownPackets = 0
    /// From another SSRC than the first one heard (media meant for another call).
    public var otherSources = 0
    /// The far end's SSRC with another payload type than the negotiated codec (counted in the stats too).
    public var otherPayloadType = 0

    public init() {}
}
