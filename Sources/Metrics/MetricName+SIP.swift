/// SIP devices' figures (docs/SIP.md): the wake-up path's latencies, the call setup seen from the caller, and
/// the user agents' books of requests, responses, retransmissions, timeouts and malformed input.
extension MetricName {
    /// Caller's INVITE sent → the VoIP push accepted at callstorm's gateway (only when the caller is one of ours).
    public static let inviteToPush = "invite_to_push"
    /// The push reported → the wake REGISTER answered 200.
    public static let pushToRegister = "push_to_register"
    /// `push_to_register`'s parts on a connection (tcp, tls, ws, wss), which add up to it: the push reported → the
    /// new TCP connection up (the app's `wake_after` inside); → the TLS and/or WebSocket handshake done (tls, ws,
    /// wss); → the wake REGISTER answered 200 (from the connection able to carry it).
    public static let wakeConnect = "wake.connect"
    public static let wakeHandshake = "wake.handshake"
    public static let wakeRegister = "wake.register"
    /// The wake REGISTER answered → the INVITE it was woken for received.
    public static let registerToInvite = "register_to_invite"
    /// Post-dial delay: the caller's INVITE sent → 180 Ringing back.
    public static let postDialDelay = "sip.post_dial_delay"
    /// The callee's 200 OK sent → its ACK received.
    public static let answerToAck = "sip.answer_to_ack"
    /// The whole setup: the caller's INVITE sent → 200 OK received (and ACK sent).
    public static let setupTime = "sip.setup"
    /// The user answered before the INVITE reached the woken device: the answer waited for it.
    public static let answerBeforeInvite = "answer_before_invite"
    /// A device's connection that failed before carrying SIP, by cause (`tls_certificate`, `tls_handshake`,
    /// `ws_handshake`), or a WebSocket the proxy closed (`ws_close_<code>`, `ws_protocol`).
    public static func sipTransportFailed(_ cause: String) -> String { "sip.transport_failed.\(cause)" }
    /// Flow recovery (`device.reconnect`, docs/SIP.md "A proxy restart"): connections reopened after a loss; the
    /// connection lost → the re-REGISTER's 200, per device (its p90 / p99 / max: the time to 90 %, 99 % and all
    /// re-registered); the re-REGISTERs refused during recovery, by status code (408: timed out).
    public static let sipReconnects = "sip.reconnects"
    public static let sipReregister = "sip.reregister"
    public static func sipReregisterFailed(_ status: Int) -> String { "sip.reregister_failed.\(status)" }
    public static let sipLatencies = [inviteToPush, pushToRegister, wakeConnect, wakeHandshake, wakeRegister,
                                      registerToInvite, postDialDelay, answerToAck, setupTime, sipReregister]
}

extension Metric {
    public static let inviteToPush = Metric(named: MetricName.inviteToPush)
    public static let pushToRegister = Metric(named: MetricName.pushToRegister)
    public static let registerToInvite = Metric(named: MetricName.registerToInvite)
    public static let wakeConnect = Metric(named: MetricName.wakeConnect)
    public static let wakeHandshake = Metric(named: MetricName.wakeHandshake)
    public static let wakeRegister = Metric(named: MetricName.wakeRegister)
    public static let postDialDelay = Metric(named: MetricName.postDialDelay)
    public static let answerToAck = Metric(named: MetricName.answerToAck)
    public static let setupTime = Metric(named: MetricName.setupTime)
    public static let answerBeforeInvite = Metric(named: MetricName.answerBeforeInvite)
    public static let sipReconnects = Metric(named: MetricName.sipReconnects)
    public static let sipReregister = Metric(named: MetricName.sipReregister)
    public static func sipReregisterFailed(_ status: Int) -> Metric {
        Metric(named: MetricName.sipReregisterFailed(status))
    }

    /// A SIP user agent's count: `book` is one of `requests_sent`, `requests_received`, `responses_sent`,
    /// `responses_received`, `retransmissions_sent`, `retransmissions_received`, `malformed`, `timeouts`, `stray`,
    /// `misdirected`, `transport_failed`, `forks`; `key` the method, status code, malformed kind, timer letter or transport
    /// failure cause (`tls_certificate`, `tls_handshake`: `MetricName.sipTransportFailed`).
    public static func sip(_ book: String, _ key: String) -> Metric { Metric(named: "sip.\(book).\(key)") }
    /// A SIP device's registration event: `registered`, `register_failed`, `unregistered`.
    public static func sipRegistration(_ event: String) -> Metric { Metric(named: "sip.registration.\(event)") }
    /// Made once: counted at every wake REGISTER's 200.
    public static let sipRegistered = sipRegistration("registered")
}
