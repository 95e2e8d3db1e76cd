/// A relaunched app's SIP stack (issue 37): the process that held the calls is gone, so are its calls and dialogs.
/// Nothing is sent for them; a request the peer sends in one of them later is answered 481 (Call/Transaction Does
/// Not Exist, RFC 3261 §12.2.2), as for any dialog this agent does not know.
extension SIPUserAgent {
    /// Forgets every call and dialog without a word on the wire or an event; the registration and socket stay.
    public func forgetCalls() {
        for callID in Array(sessions.calls.keys) { sessions.dropCall(callID) }
    }
}
