/// Calls that did not complete, split by whether an injected fault sat on their path (docs/ADDING-A-FAULT.md,
/// "Attribution"), and the SIP message faults by what they hit. Counted only in runs with fault windows.
extension MetricName {
    /// Failed or missed calls with at least one fault logged against them (faults.csv rows naming the call).
    public static let callsAttributedToFaults = "calls.attributed_to_faults"
    /// The same per fault kind: `calls.attributed_to_faults.push.dropped` (a call met by two kinds counts under both).
    public static func callsAttributed(to kind: String) -> String { "\(callsAttributedToFaults).\(kind)" }
    /// Failed or missed calls no injected fault touched: the target's (or the harness's, when it says it was
    /// saturated), never excused.
    public static let callsFailedWithoutFault = "calls.failed_without_fault"

    /// A SIP message fault by direction and message: `faults.sip.message_lost.sent.INVITE`,
    /// `faults.sip.message_delayed.received.200`, beside `sip.retransmissions_sent.INVITE`.
    public static func sipMessageFault(_ kind: String, sending: Bool, label: String) -> String {
        "\(fault(kind)).\(sending ? "sent" : "received").\(label)"
    }
}

extension Metric {
    public static let callsAttributedToFaults = Metric(named: MetricName.callsAttributedToFaults)
    public static func callsAttributed(to kind: String) -> Metric {
        Metric(named: MetricName.callsAttributed(to: kind))
    }
    public static let callsFailedWithoutFault = Metric(named: MetricName.callsFailedWithoutFault)
    public static func sipMessageFault(_ kind: String, sending: Bool, label: String) -> Metric {
        Metric(named: MetricName.sipMessageFault(kind, sending: sending, label: label))
    }
}
