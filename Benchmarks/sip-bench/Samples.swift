/// The messages both parsers are timed on: what a UA sees most in one call (an INVITE with SDP as Kamailio
/// forwards it, a 200 OK with SDP, a REGISTER challenge response), byte-identical in osip_parse.c.
enum Samples {
    static let invite = """
    INVITE sip:bob@127.0.0.1:5070;transport=udp SIP/2.0\r
    Record-Route: <sip:127.0.0.1:5060;lr>\r
    Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK4a1f.5d2e0c61000000000000000000000000.0\r
    Via: SIP/2.0/UDP 127.0.0.1:5080;received=127.0.0.1;rport=5080;branch=z9hG4bK-524287-1---7f1c0d2b\r
    Max-Forwards: 69\r
    From: "Alice" <sip:alice@127.0.0.1>;tag=9fxced76sl\r
    To: <sip:bob@127.0.0.1>\r
    Call-ID: 3848276298220188511@127.0.0.1\r
    CSeq: 1 INVITE\r
    Contact: <sip:alice@127.0.0.1:5080;transport=udp>\r
    Content-Type: application/sdp\r
    Allow: INVITE, ACK, CANCEL, BYE, OPTIONS\r
    User-Agent: callstorm\r
    Content-Length: 151\r
    \r
    v=0\r
    o=- 1 1 IN IP4 127.0.0.1\r
    s=-\r
    c=IN IP4 127.0.0.1\r
    t=0 0\r
    m=audio 40000 RTP/AVP 0 8 101\r
    a=rtpmap:0 PCMU/8000\r
    a=rtpmap:101 telephone-event/8000\r
    a=sendrecv\r

    """

    static let ok = """
    SIP/2.0 200 OK\r
    Via: SIP/2.0/UDP 127.0.0.1:5080;received=127.0.0.1;rport=5080;branch=z9hG4bK-524287-1---7f1c0d2b\r
    Record-Route: <sip:127.0.0.1:5060;lr>\r
    From: "Alice" <sip:alice@127.0.0.1>;tag=9fxced76sl\r
    To: <sip:bob@127.0.0.1>;tag=8321234356\r
    Call-ID: 3848276298220188511@127.0.0.1\r
    CSeq: 1 INVITE\r
    Contact: <sip:bob@127.0.0.1:5070;transport=udp>\r
    Content-Type: application/sdp\r
    Content-Length: 0\r
    \r

    """

    static let register = """
    REGISTER sip:127.0.0.1 SIP/2.0\r
    Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-2-1;rport\r
    Max-Forwards: 70\r
    From: <sip:dev1@127.0.0.1>;tag=a73kszlfl\r
    To: <sip:dev1@127.0.0.1>\r
    Call-ID: 1j9FpLxk3uxtm8tn@127.0.0.1\r
    CSeq: 2 REGISTER\r
    Contact: <sip:dev1@127.0.0.1:5070;pn-provider=apns;\
    pn-prid=00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0;\
    pn-param=ABCD123456.com.example.app.voip>;expires=600\r
    Authorization: Digest username="dev1", realm="callstorm", nonce="Z2a1bWbVpc0y2EC7ZPcZYCn5D8dX0E6g", \
    uri="sip:127.0.0.1", response="e2a7e1f0c1b6f8b9e3a41d4c11fa1e1d", algorithm=MD5\r
    Expires: 600\r
    Content-Length: 0\r
    \r

    """

    static let all = [invite, ok, register]
}
