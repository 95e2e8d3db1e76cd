@testable import Driver
import XCTest

/// Whose a SIP device's datagram is, for attributing a fault on it: a call's messages excuse that call, a
/// registration refresh's excuse none (`SIPRegistrationFaults`).
final class SIPDatagramOwnerTests: XCTestCase {
    private func owner(_ label: String, _ callID: String?, ofDevicesCall: Bool = false,
                       registeringForCall: Bool = false) -> SIPDatagramOwner {
        SIPDatagramOwner.of(label: label, callID: callID, registrationCallID: "reg-1", ofDevicesCall: ofDevicesCall,
                            registeringForCall: registeringForCall)
    }

    func testARegisterRefreshAndItsAnswersDuringACallAreTheRegistrationsNotTheCalls() {
        XCTAssertEqual(owner("REGISTER", "reg-1"), .registration)
        XCTAssertEqual(owner("401", "reg-1"), .registration)
        XCTAssertEqual(owner("200", "reg-1"), .registration)
    }

    func testTheWakeRegisterAskedForByACallIsOnThatCallsPath() {
        XCTAssertEqual(owner("REGISTER", "reg-1", registeringForCall: true), .call)
        XCTAssertEqual(owner("200", "reg-1", registeringForCall: true), .call)
    }

    func testTheCallsOwnMessagesAndANewINVITEAreTheCalls() {
        XCTAssertEqual(owner("INVITE", "call-9", ofDevicesCall: true), .call, "the INVITE its caller placed")
        XCTAssertEqual(owner("180", "call-9", ofDevicesCall: true), .call)
        XCTAssertEqual(owner("BYE", "call-9", ofDevicesCall: true), .call)
    }

    func testAnOptionsAWaitingCallAStrayOfACallOverAndGarbageBelongToNoCall() {
        XCTAssertEqual(owner("INVITE", "call-waiting"), .none, "another call's INVITE, declined busy")
        XCTAssertEqual(owner("OPTIONS", "ping-3"), .none)
        XCTAssertEqual(owner("200", "ping-3"), .none)
        XCTAssertEqual(owner("BYE", "call-old"), .none)
        XCTAssertEqual(owner("?", nil), .none)
    }
}
