/// Media on SIP calls (`media:`, issue 34, docs/MEDIA.md): answer → audio per receiving end, resume → audio, the
/// streams' packet books, one-way audio by cause, and the distributions a stream gives at its close.
extension MetricName {
    /// The answer → the first RTP packet heard by the caller (the callee's audio): the caller's answer is its 2xx.
    public static let answerToAudioCaller = "media.answer_to_audio.caller"
    /// The answer → the first RTP packet heard by the callee (the caller's audio): the callee's answer is its 2xx
    /// sent.
    public static let answerToAudioCallee = "media.answer_to_audio.callee"
    /// Both ends' answer → audio in one histogram (`media.answer_to_audio.p99` judges the worse tail of either).
    public static let answerToAudio = "media.answer_to_audio"
    /// A resume (its re-INVITE answered or answered to) → the first packet after it, either end.
    public static let resumeToAudio = "media.resume_to_audio"
    /// RFC 3550 interarrival jitter per stream at its close, in µs.
    public static let mediaJitter = "media.jitter"
    /// The E-model's MOS of what a stream received, × 1000 (recorded in the histogram's µs: 4409 reads MOS 4.409).
    public static let mosX1000 = "media.mos_x1000"
    /// The harness's own send lag per stream: the largest lag of a packet behind its 20 ms plan, in µs.
    public static let sendLagMax = "media.send_lag_max"
    /// The share of a stream's expected packets lost (RFC 3550 A.3) at its close, in percent × 1000 (recorded in the
    /// histogram's µs: 1000 reads 1 %).
    public static let lossPercentX1000 = "media.loss_percent_x1000"
    /// Calls carrying media (counted once per call, at the caller's stream): the denominator of
    /// `media.one_way_rate`.
    public static let mediaCalls = "media.calls"
    /// Calls with one-way audio, as `media.one_way`.
    public static let mediaOneWay = "media.one_way"
    /// Calls whose one-way audio a media fault explains (it acted on the silent direction of that call during the
    /// silence), and calls whose one-way audio no fault explains (the server's).
    public static let mediaOneWayAttributed = "media.one_way_attributed"
    public static let mediaOneWayWithoutFault = "media.one_way_without_fault"
    /// The callee app's audio session start-up drawn for a call (`device.audio_session`): its answer → its first
    /// packet sent, the app's part of "answer to talking" (the server's is `media.answer_to_audio.callee`).
    public static let audioSessionStart = "media.audio_session_start"
    /// The callee's answer → media flowing both ways at it (its audio session started and the caller's first packet
    /// heard, whichever came last): when `device.join_at: media` fulfils its join. Recorded with `join_at: media` or
    /// `audio_session`.
    public static let answerToTalking = "media.answer_to_talking"
    /// The MOS threshold's name (`media.mos.p5`): the figure recorded as `media.mos_x1000`.
    public static let mos = "media.mos"
    public static let mediaLatencies = [answerToAudio, answerToAudioCaller, answerToAudioCallee, resumeToAudio,
                                        mediaJitter, mosX1000, sendLagMax, lossPercentX1000, audioSessionStart,
                                        answerToTalking]
}

extension Metric {
    public static let answerToAudioCaller = Metric(named: MetricName.answerToAudioCaller)
    public static let answerToAudioCallee = Metric(named: MetricName.answerToAudioCallee)
    public static let resumeToAudio = Metric(named: MetricName.resumeToAudio)
    public static let mediaJitter = Metric(named: MetricName.mediaJitter)
    public static let audioSessionStart = Metric(named: MetricName.audioSessionStart)
    public static let answerToTalking = Metric(named: MetricName.answerToTalking)
    /// Joins `device.join_at: media` failed because no packet from the caller came within `media.one_way_after`.
    public static let mediaJoinNoAudio = Metric(named: "media.join_no_audio")
    public static let mediaMOS = Metric(named: MetricName.mosX1000)
    public static let mediaSendLagMax = Metric(named: MetricName.sendLagMax)
    public static let answerToAudio = Metric(named: MetricName.answerToAudio)
    public static let mediaLoss = Metric(named: MetricName.lossPercentX1000)
    public static let mediaCalls = Metric(named: MetricName.mediaCalls)
    public static let mediaOneWayAttributed = Metric(named: MetricName.mediaOneWayAttributed)
    public static let mediaOneWayWithoutFault = Metric(named: MetricName.mediaOneWayWithoutFault)
    /// Streams opened (one per end of each call that carries media) and closed.
    public static let mediaStreamsOpened = Metric(named: "media.streams_opened")
    public static let mediaStreamsClosed = Metric(named: "media.streams_closed")
    /// A stream could not be opened (no free port, out of descriptors): the call goes on without media.
    public static let mediaOpenFailed = Metric(named: "media.open_failed")
    /// The answer carried no SDP this end could read: the stream never started.
    public static let mediaNoRemoteSDP = Metric(named: "media.no_remote_sdp")
    /// Packets sent, received (counted, duplicates apart), and lost (from sequence gaps, RFC 3550 A.3), summed
    /// over the streams at their close.
    public static let mediaPacketsSent = Metric(named: "media.packets_sent")
    public static let mediaPacketsReceived = Metric(named: "media.packets_received")
    public static let mediaPacketsLost = Metric(named: "media.packets_lost")
    /// Calls with at least one one-way-audio episode (either end), counted once per call.
    public static let mediaOneWayCalls = Metric(named: MetricName.mediaOneWay)
    /// One-way-audio episodes by cause (`no_audio_after_answer`, `no_audio_after_resume`, `stopped_mid_call`).
    public static func mediaOneWay(_ cause: String) -> Metric { Metric(named: "media.one_way.\(cause)") }
    /// Datagrams the kernel refused to send (the run's total, at its end): a closed peer port, no buffer.
    public static let mediaSendErrors = Metric(named: "media.send_errors")
    /// Packets that kept arriving while this end was on hold and expected none (a held member whose media flows).
    public static let mediaWhileHeld = Metric(named: "media.packets_while_held")
}
