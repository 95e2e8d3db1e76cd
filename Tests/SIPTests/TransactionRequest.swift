import SIP

extension SIPMessage {
    /// The request the transaction tests start a transaction with: one Via branch, the dialog's From tag, a Call-ID
    /// and a CSeq of `method`, no body (TransactionTests, TransactionSpentTests).
    static func transactionRequest(_ method: SIPMethod) -> SIPMessage {
        var m = SIPMessage.request(method, uri: "sip:bob@127.0.0.1")
        m.addHeader(.via, "SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1")
        m.addHeader(.from, "<sip:alice@127.0.0.1>;tag=a")
        m.addHeader(.to, "<sip:bob@127.0.0.1>")
        m.addHeader(.callID, "c1")
        m.addHeader(.cseq, SIPCSeq(1, method).text)
        return m
    }
}
