// libosip2 side of the SIP parser comparison (docs/SIP.md): the same three messages as Samples.swift, parsed N
// times each with osip_message_parse, reading Call-ID and the top Via's branch as the Swift side does.
// Build: gcc -O2 -o /tmp/osip_parse Benchmarks/sip-bench/osip_parse.c -losipparser2
#include <malloc.h>
#include <osipparser2/osip_parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *invite =
    "INVITE sip:bob@127.0.0.1:5070;transport=udp SIP/2.0\r\n"
    "Record-Route: <sip:127.0.0.1:5060;lr>\r\n"
    "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK4a1f.5d2e0c61000000000000000000000000.0\r\n"
    "Via: SIP/2.0/UDP 127.0.0.1:5080;received=127.0.0.1;rport=5080;branch=z9hG4bK-524287-1---7f1c0d2b\r\n"
    "Max-Forwards: 69\r\n"
    "From: \"Alice\" <sip:alice@127.0.0.1>;tag=9fxced76sl\r\n"
    "To: <sip:bob@127.0.0.1>\r\n"
    "Call-ID: 3848276298220188511@127.0.0.1\r\n"
    "CSeq: 1 INVITE\r\n"
    "Contact: <sip:alice@127.0.0.1:5080;transport=udp>\r\n"
    "Content-Type: application/sdp\r\n"
    "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS\r\n"
    "User-Agent: callstorm\r\n"
    "Content-Length: 151\r\n"
    "\r\n"
    "v=0\r\n"
    "o=- 1 1 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "t=0 0\r\n"
    "m=audio 40000 RTP/AVP 0 8 101\r\n"
    "a=rtpmap:0 PCMU/8000\r\n"
    "a=rtpmap:101 telephone-event/8000\r\n"
    "a=sendrecv\r\n";

static const char *ok =
    "SIP/2.0 200 OK\r\n"
    "Via: SIP/2.0/UDP 127.0.0.1:5080;received=127.0.0.1;rport=5080;branch=z9hG4bK-524287-1---7f1c0d2b\r\n"
    "Record-Route: <sip:127.0.0.1:5060;lr>\r\n"
    "From: \"Alice\" <sip:alice@127.0.0.1>;tag=9fxced76sl\r\n"
    "To: <sip:bob@127.0.0.1>;tag=8321234356\r\n"
    "Call-ID: 3848276298220188511@127.0.0.1\r\n"
    "CSeq: 1 INVITE\r\n"
    "Contact: <sip:bob@127.0.0.1:5070;transport=udp>\r\n"
    "Content-Type: application/sdp\r\n"
    "Content-Length: 0\r\n"
    "\r\n";

static const char *reg =
    "REGISTER sip:127.0.0.1 SIP/2.0\r\n"
    "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-2-1;rport\r\n"
    "Max-Forwards: 70\r\n"
    "From: <sip:dev1@127.0.0.1>;tag=a73kszlfl\r\n"
    "To: <sip:dev1@127.0.0.1>\r\n"
    "Call-ID: 1j9FpLxk3uxtm8tn@127.0.0.1\r\n"
    "CSeq: 2 REGISTER\r\n"
    "Contact: <sip:dev1@127.0.0.1:5070;pn-provider=apns;pn-prid=00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0;pn-param=ABCD123456.com.example.app.voip>;expires=600\r\n"
    "Authorization: Digest username=\"dev1\", realm=\"callstorm\", nonce=\"Z2a1bWbVpc0y2EC7ZPcZYCn5D8dX0E6g\", uri=\"sip:127.0.0.1\", response=\"e2a7e1f0c1b6f8b9e3a41d4c11fa1e1d\", algorithm=MD5\r\n"
    "Expires: 600\r\n"
    "Content-Length: 0\r\n"
    "\r\n";

static osip_message_t *parse(const char *text) {
    osip_message_t *m = NULL;
    if (osip_message_init(&m) != 0) return NULL;
    if (osip_message_parse(m, text, strlen(text)) != 0) {
        osip_message_free(m);
        return NULL;
    }
    return m;
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 10000;
    const char *samples[] = {invite, ok, reg};
    long checksum = 0;
    parser_init();
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < count; i++) {
            osip_message_t *m = parse(samples[s]);
            if (!m) continue;
            osip_call_id_t *cid = osip_message_get_call_id(m);
            if (cid && cid->number) checksum += strlen(cid->number);
            osip_via_t *via = NULL;
            osip_generic_param_t *branch = NULL;
            if (osip_message_get_via(m, 0, &via) >= 0 && via &&
                osip_via_param_get_byname(via, "branch", &branch) >= 0 && branch && branch->gvalue)
                checksum += strlen(branch->gvalue);
            checksum += osip_list_size(&m->headers);
            osip_message_free(m);
        }
    }
    struct mallinfo2 before = mallinfo2();
    osip_message_t **kept = calloc(10000, sizeof(*kept));
    for (int i = 0; i < 10000; i++) kept[i] = parse(invite);
    struct mallinfo2 after = mallinfo2();
    printf("parsed %d x 3 messages, checksum %ld\n", count, checksum);
    printf("heap per parsed INVITE: %zu bytes\n", (after.uordblks - before.uordblks) / 10000 - sizeof(*kept));
    return 0;
}
