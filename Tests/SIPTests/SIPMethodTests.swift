@testable import SIP
import XCTest

/// `SIPMethod` keeps the six methods a user agent uses as numbers and the others by name: it must compare, hash,
/// read and serialize exactly as the names do, whichever way a method was made.
final class SIPMethodTests: XCTestCase {
    private static let six: [(SIPMethod, String)] = [
        (.invite, "INVITE"), (.ack, "ACK"), (.bye, "BYE"), (.cancel, "CANCEL"), (.register, "REGISTER"),
        (.options, "OPTIONS"),
    ]

    func testAMethodMadeFromItsNameIsTheSameAsTheStaticOneAndHashesAsItsName() {
        for (method, name) in Self.six {
            XCTAssertEqual(SIPMethod(name), method)
            XCTAssertEqual(SIPMethod(rawValue: name).rawValue, name)
            XCTAssertEqual(method.description, name)
            XCTAssertEqual(SIPMethod(name).hashValue, method.hashValue)
            XCTAssertEqual(Set([SIPMethod(name), method]).count, 1)
            XCTAssertEqual(name.utf8.withContiguousStorageIfAvailable { SIPMethod.named($0) }, method)
        }
        for (a, _) in Self.six {
            for (b, _) in Self.six { XCTAssertEqual(a == b, a.rawValue == b.rawValue) }
        }
    }

    func testOtherMethodsCompareByNameCaseSensitivelyAndNeverEqualOneOfTheSix() {
        XCTAssertEqual(SIPMethod("MESSAGE"), SIPMethod("MESSAGE"))
        XCTAssertEqual(SIPMethod("MESSAGE").rawValue, "MESSAGE")
        XCTAssertNotEqual(SIPMethod("MESSAGE"), SIPMethod("PUBLISH"))
        XCTAssertNotEqual(SIPMethod("invite"), .invite)  // methods are case-sensitive (§7.1)
        XCTAssertEqual(SIPMethod("invite").rawValue, "invite")
        XCTAssertNotEqual(SIPMethod(""), .options)
        XCTAssertEqual(Array("PUBLISH".utf8).withUnsafeBufferPointer { SIPMethod.named($0) }, SIPMethod("PUBLISH"))
    }

    func testAMessageWithAnExtensionMethodSerializesAndParsesBackTheSame() throws {
        var message = SIPMessage.request(SIPMethod("MESSAGE"), uri: "sip:bob@example.com")
        message.addHeader(.via, "SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1")
        message.addHeader(.cseq, "1 MESSAGE")
        let parsed = try SIPParser.parse(datagram: message.serialized())
        XCTAssertEqual(parsed.method, SIPMethod("MESSAGE"))
        XCTAssertEqual(parsed.cseq?.method, SIPMethod("MESSAGE"))
        XCTAssertEqual(parsed.serialized(), message.serialized())
    }
}
