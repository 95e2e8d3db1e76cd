@testable import SIPClient
import SIP
import XCTest

/// What a device of a user with several says and reads (issue 36): its REGISTER's RFC 5626 instance (and reg-id
/// on a connection), stable per device and seed; and the RFC 3326 Reason a forking proxy's CANCEL carries.
final class SIPInstanceAndReasonTests: XCTestCase {
    func testTheRegisterCarriesTheInstanceAndOnAConnectionItsRegID() throws {
        let instance = SIPAccount.instanceURN(device: "dev-3", seed: 42)
        let account = SIPAccount(user: "bob", domain: "example.com", password: "p", instance: instance)
        // The agent's own headers are its account's (`SIPUserAgent` makes them so): they carry the binding.
        let udp = FakeCore()
        udp.local = account.localHeaders(transport: .udp, host: "127.0.0.1", port: 5071)
        RegistrationClient(account: account, ids: SIPIdentifiers(seed: 1)).register(now: 0, core: udp)
        XCTAssertEqual(try XCTUnwrap(udp.started.first).header(.contact),
                       "<sip:bob@127.0.0.1:5071;transport=udp>;+sip.instance=\"<\(instance)>\"")
        let tcp = FakeCore()
        tcp.local = account.localHeaders(transport: .tcp, host: "127.0.0.1", port: 5072)
        RegistrationClient(account: account, ids: SIPIdentifiers(seed: 1)).register(now: 0, core: tcp)
        let contact = try XCTUnwrap(try XCTUnwrap(tcp.started.first).contacts.first)
        XCTAssertEqual(contact.parameters["+sip.instance"], "\"<\(instance)>\"")
        XCTAssertEqual(contact.parameters["reg-id"], "1")
        let none = FakeCore()
        RegistrationClient(account: SIPAccount(user: "bob", domain: "example.com", password: "p"),
                           ids: SIPIdentifiers(seed: 1)).register(now: 0, core: none)
        XCTAssertFalse(try XCTUnwrap(none.started.first).header(.contact)?.contains("instance") ?? true)
    }

    func testTheInstanceIsAUUIDURNTheSameForADeviceAndSeedAndApartOtherwise() {
        let one = SIPAccount.instanceURN(device: "dev-1", seed: 7)
        XCTAssertEqual(one, SIPAccount.instanceURN(device: "dev-1", seed: 7))
        XCTAssertNotEqual(one, SIPAccount.instanceURN(device: "dev-2", seed: 7))
        XCTAssertNotEqual(one, SIPAccount.instanceURN(device: "dev-1", seed: 8))
        let uuid = one.dropFirst("urn:uuid:".count)
        XCTAssertTrue(one.hasPrefix("urn:uuid:"))
        XCTAssertEqual(uuid.split(separator: "-").map(\.count), [8, 4, 4, 4, 12], one)
        XCTAssertEqual(uuid.split(separator: "-")[2].first, "4", "version 4 layout")
    }

    func testTheSIPReasonIsReadBesideAQ850OneAndOtherCausesAreNotElsewhere() {
        var cancel = SIPMessage.request(.cancel, uri: "sip:bob@127.0.0.1")
        cancel.addHeader(SIPReason.header, "Q.850;cause=16;text=\"Terminated\"")
        cancel.addHeader(SIPReason.header, "SIP ;cause=200;text=\"Call completed elsewhere\"")
        XCTAssertEqual(SIPReason(cancel), SIPReason(cause: 200, text: "Call completed elsewhere"))
        XCTAssertEqual(InviteSessions.endReason(cancel, otherwise: .cancelled), .elsewhere(cause: 200))
        var declined = SIPMessage.request(.cancel, uri: "sip:bob@127.0.0.1")
        declined.addHeader(SIPReason.header, "SIP;cause=603;text=\"Decline\", Q.850;cause=21")
        XCTAssertEqual(InviteSessions.endReason(declined, otherwise: .cancelled), .elsewhere(cause: 603))
        var other = SIPMessage.request(.bye, uri: "sip:bob@127.0.0.1")
        other.addHeader(SIPReason.header, "SIP;cause=480")
        XCTAssertEqual(InviteSessions.endReason(other, otherwise: .remoteBye), .remoteBye)
        XCTAssertEqual(InviteSessions.endReason(SIPMessage.request(.cancel, uri: "sip:b@h"), otherwise: .cancelled),
                       .cancelled)
        XCTAssertEqual(SIPReason.completedElsewhere.value, "SIP;cause=200;text=\"Call completed elsewhere\"")
    }
}
