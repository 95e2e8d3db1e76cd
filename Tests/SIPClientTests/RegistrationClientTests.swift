@testable import SIPClient
import SIP
import XCTest

/// The registration client alone, over a `FakeCore`: the REGISTER it writes, its digest answer, its refresh, and
/// RFC 8599's push parameters in its Contact.
final class RegistrationClientTests: XCTestCase {
    private let core = FakeCore()
    private let account = SIPAccount(user: "alice", domain: "example.com", password: "secret", expires: 60)

    private func client(_ account: SIPAccount? = nil) -> RegistrationClient {
        RegistrationClient(account: account ?? self.account, ids: SIPIdentifiers(seed: 5))
    }

    func testTheRegisterNamesTheAddressOfRecordTheContactAndTheLifetime() throws {
        let registration = client()
        registration.register(now: 0, core: core)
        let request = try XCTUnwrap(core.started.first)
        XCTAssertEqual(request.requestURI, "sip:example.com")
        XCTAssertEqual(request.header(.to), "<sip:alice@example.com>")
        XCTAssertEqual(request.from?.uri, "sip:alice@example.com")
        XCTAssertNotNil(request.from?.tag)
        XCTAssertEqual(request.header(.contact), "<sip:alice@127.0.0.1:5071;transport=udp>")
        XCTAssertEqual(request.header(.expires), "60")
        XCTAssertEqual(request.via?.text, SIPVia(transport: "UDP", sentBy: "127.0.0.1:5071",
                                                 branch: request.branch ?? "").text)
        XCTAssertEqual(registration.inFlight, request.branch)
        XCTAssertEqual(registration.callID, request.callID)
    }

    func testAChallengeIsAnsweredOnceWithTheSameCallIDAndASecondOneFails() throws {
        let registration = client()
        registration.register(now: 0, core: core)
        let first = try XCTUnwrap(core.started.last)
        var challenge = first.response(401, toTag: "r")
        challenge.addHeader(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n1\", qop=\"auth\"")
        registration.receive(challenge, now: 1, core: core)
        let second = try XCTUnwrap(core.started.last)
        XCTAssertEqual(core.started.count, 2)
        XCTAssertEqual(second.callID, first.callID)
        XCTAssertEqual(second.cseq?.number, 2)
        XCTAssertNotEqual(second.branch, first.branch)
        let authorization = try XCTUnwrap(second.header(.authorization))
        XCTAssertTrue(authorization.contains("username=\"alice\"") && authorization.contains("nc=00000001"),
                      authorization)
        var again = second.response(401, toTag: "r")
        again.addHeader(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n2\"")
        registration.receive(again, now: 2, core: core)
        XCTAssertEqual(core.started.count, 2, "a challenge to the answer is not answered again")
        XCTAssertEqual(core.events, [.registrationFailed(status: 401)])
    }

    func testTheGrantOfItsOwnContactSetsTheRefreshAtEightyPercentAndTheRefreshRaisesCSeq() throws {
        let registration = client()
        registration.register(now: 0, core: core)
        let request = try XCTUnwrap(core.started.last)
        var ok = request.response(200, toTag: "r")
        ok.addHeader(.contact, "<sip:alice@10.0.0.9:5060>;expires=300, <sip:alice@127.0.0.1:5071>;expires=30")
        registration.receive(ok, now: 1_000, core: core)
        XCTAssertEqual(core.events, [.registered(expires: 30)], "its own binding's lifetime, not another's")
        XCTAssertEqual(registration.refreshAt, 1_000 + 24_000_000_000)
        registration.advance(to: 24_000_000_999, core: core)
        XCTAssertEqual(core.started.count, 1)
        registration.advance(to: 24_000_001_000, core: core)
        XCTAssertEqual(core.started.last?.cseq?.number, 2)
        XCTAssertEqual(core.started.last?.callID, request.callID)
        XCTAssertNil(registration.refreshAt, "the next refresh is planned by the next grant")
    }

    func testATimedOutRegisterIsReportedAs408() {
        let registration = client()
        registration.register(now: 0, core: core)
        registration.timedOut(core: core)
        XCTAssertNil(registration.inFlight)
        XCTAssertEqual(core.events, [.registrationFailed(status: 408)])
    }

    func testTheContactCarriesRFC8599PushParametersInsideItsURI() throws {
        let push = PushContactParameters.apnsVoIP(token: "00fc13ad", team: "ABCD123456", bundle: "com.example.app")
        core.local = SIPAccount(user: "dev1", domain: "example.com", password: "p", push: push)
            .localHeaders(transport: .udp, host: "127.0.0.1", port: 5070)
        client(SIPAccount(user: "dev1", domain: "example.com", password: "p", push: push)).register(now: 0, core: core)
        let contact = try XCTUnwrap(core.started.last?.header(.contact))
        XCTAssertEqual(contact, "<sip:dev1@127.0.0.1:5070;transport=udp;pn-provider=apns;pn-prid=00fc13ad;"
            + "pn-param=ABCD123456.com.example.app.voip>")
        let parsed = try XCTUnwrap(SIPAddress(contact + ";expires=600"))
        XCTAssertEqual(PushContactParameters(uri: parsed.uri), push)
        XCTAssertEqual(parsed.parameters["expires"], "600")
        XCTAssertNil(PushContactParameters(uri: "sip:dev1@127.0.0.1:5070;pn-provider=apns"))
    }

    /// The answer of an account kept across wakes (its HA1 and HA2 kept from the last answer) is the answer a new
    /// account would give, for the same challenge and for one from another realm, and after a new password.
    func testAKeptAccountAnswersEachChallengeAsANewAccountWould() throws {
        func answer(_ account: SIPAccount, realm: String, nonce: String) throws -> String {
            var request = SIPMessage.request(.register, uri: "sip:example.com")
            let value = "Digest realm=\"\(realm)\", nonce=\"\(nonce)\", qop=\"auth\""
            let challenge = try XCTUnwrap(DigestChallenge(value))
            account.authorize(&request, answering: (challenge, false), uri: "sip:example.com",
                              ids: SIPIdentifiers(seed: 9))
            return try XCTUnwrap(request.header(.authorization))
        }
        var kept = SIPAccount(user: "alice", domain: "example.com", password: "secret")
        let challenges = [("example.com", "n1"), ("example.com", "n2"), ("other.org", "n3"), ("example.com", "n4")]
        for (realm, nonce) in challenges {
            let fresh = SIPAccount(user: "alice", domain: "example.com", password: "secret")
            XCTAssertEqual(try answer(kept, realm: realm, nonce: nonce), try answer(fresh, realm: realm, nonce: nonce))
        }
        let expected = DigestCredentials(username: "alice", password: "secret").response(
            to: DigestChallenge(realm: "example.com", nonce: "n1", qop: "auth"), method: "REGISTER",
            uri: "sip:example.com", nonceCount: 1, cnonce: SIPIdentifiers(seed: 9).token())
        XCTAssertTrue(try answer(kept, realm: "example.com", nonce: "n1").contains("response=\"\(expected)\""))
        kept.password = "changed"
        let fresh = SIPAccount(user: "alice", domain: "example.com", password: "changed")
        XCTAssertEqual(try answer(kept, realm: "example.com", nonce: "n5"), try answer(fresh, realm: "example.com",
                                                                                    nonce: "n5"))
        XCTAssertEqual(kept, fresh, "the kept answers are not part of what the account is")
    }
}
