/// One stream's measurements at a moment: what it sent, what it received from the far end and how (loss,
/// jitter, transit), its one-way-audio findings and timings, and its own send lag, plus the MOS they give.
public struct MediaStreamReport: Sendable, Equatable {
    public var sent: SentCounts
    public var receiver: RTPReceiverStatistics
    public var detector: OneWayAudioDetector
    public var malformed: MediaMalformedCounts
    public var strays: StrayCounts
    public var sendLag: SendLag

    public init(sent: SentCounts, receiver: RTPReceiverStatistics, detector: OneWayAudioDetector,
                malformed: MediaMalformedCounts, strays: StrayCounts, sendLag: SendLag) {
        self.sent = sent
        self.receiver = receiver
        self.detector = detector
        self.malformed = malformed
        self.strays = strays
        self.sendLag = sendLag
    }

    /// The one-way delay the E-model is given: the measured mean transit (0 when the ends do not share a clock)
    /// plus the assumed jitter buffer (`EModel.jitterBufferMillis`) plus `fixedMillis` (packetisation, playout).
    public func mouthToEarMillis(fixedMillis: Double = 0) -> Double {
        (receiver.transit.meanMillis ?? 0) + EModel.jitterBufferMillis(jitterMillis: receiver.jitter.jitterMillis)
            + fixedMillis
    }

    /// MOS of what this end received (nil before anything arrived).
    public func mos(model: EModel = EModel(), fixedDelayMillis: Double = 0) -> Double? {
        guard receiver.received > 0 else { return nil }
        return model.mos(delayMillis: mouthToEarMillis(fixedMillis: fixedDelayMillis),
                         lossPercent: receiver.lossPercent)
    }
}
