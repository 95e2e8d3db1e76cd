/// Users with several devices (issue 36, `users:`): how the server stops a user's other devices once one
/// answered or declined a call.
extension MetricName {
    /// Histogram (µs): the answer (or decline) sent on one device → each other device of the user ended.
    public static let elsewhereEndDelay = "elsewhere.end_delay"
    /// Devices still ringing a call that was answered or declined on another device of their user past
    /// `users.ringing_grace` (blamed on the server), and how long each rang after the answer (histogram, µs).
    public static let elsewhereRingingAfterAnswer = "elsewhere.ringing_after_answer"
    public static let elsewhereRingingAfterAnswerDuration = "elsewhere.ringing_after_answer_duration"
    /// Other devices the server ended with a reason other than `joinedElsewhere` / `declinedElsewhere`.
    public static let elsewhereWrongReason = "elsewhere.wrong_reason"
    /// Devices of a caller's user that rang with the user's own outgoing call (the server must not ring them).
    public static let elsewhereOutgoingRang = "elsewhere.outgoing_rang_own_device"
    /// Calls whose device chosen to act never rang while another device of the user did: that one took the call.
    public static let elsewhereTakenOver = "elsewhere.taken_by_ringing_device"
}

extension Metric {
    public static let elsewhereEndDelay = Metric(named: MetricName.elsewhereEndDelay)
    public static let elsewhereRingingAfterAnswer = Metric(named: MetricName.elsewhereRingingAfterAnswer)
    public static let elsewhereRingingAfterAnswerDuration =
        Metric(named: MetricName.elsewhereRingingAfterAnswerDuration)
    public static let elsewhereWrongReason = Metric(named: MetricName.elsewhereWrongReason)
    public static let elsewhereOutgoingRang = Metric(named: MetricName.elsewhereOutgoingRang)
    public static let elsewhereTakenOver = Metric(named: MetricName.elsewhereTakenOver)
}
