import CallModel
@testable import Driver
import Scenario
import XCTest

/// Device handles of every kind (`device.handles`) and the caller-handle check of VoIP pushes.
final class CallerHandleCheckTests: XCTestCase {
    private let mixed = HandleBook(seed: 9, mix: HandleMix(shares: [0.7, 0.2, 0.1], supported: ["phone", "email"]))

    func testEachKindNamesItsDeviceAndMapsBack() {
        for kind in 0..<3 {
            let handle = DeviceIdentity.handle(index: 42, kind: kind)
            XCTAssertEqual(DeviceIdentity.id(forHandleValue: handle.value), "dev-42", handle.value)
        }
        XCTAssertEqual(DeviceIdentity.handle(index: 42, kind: 1).kind, .emailAddress)
        XCTAssertEqual(DeviceIdentity.handle(index: 42, kind: 2).kind, .generic)
        XCTAssertEqual(DeviceIdentity.id(forHandleValue: "someone@else.example"), "someone@else.example")
    }

    func testKindsFollowTheSharesAndTheSeedAndEveryReaderAgrees() {
        var counts = [0, 0, 0]
        for index in 0..<2000 { counts[mixed.kind(index: index)] += 1 }
        XCTAssertEqual(Double(counts[0]) / 2000, 0.7, accuracy: 0.05)
        XCTAssertEqual(Double(counts[1]) / 2000, 0.2, accuracy: 0.05)
        XCTAssertEqual(Double(counts[2]) / 2000, 0.1, accuracy: 0.05)
        let identity = DeviceIdentity(index: 7, seed: 9, handles: mixed)
        XCTAssertEqual(identity.handle, mixed.handle(forID: "dev-7"))
        XCTAssertEqual(DeviceIdentity(index: 7, seed: 1).handle, DeviceIdentity.handle(index: 7), "default: phones")
    }

    func testEachDefectOfACallerHandleIsFound() {
        let check = CallerHandleCheck(handles: mixed)
        let phone = DeviceIdentity.handle(index: 1, kind: 0)
        XCTAssertEqual(check.defects(phone, registered: phone, previous: nil), [])
        XCTAssertEqual(check.defects(nil, registered: phone, previous: nil), [.missing])
        XCTAssertEqual(check.defects(Handle(kind: .phoneNumber, value: "", displayName: ""), registered: phone,
                                     previous: nil), [.missing])
        let generic = Handle(kind: .generic, value: phone.value, displayName: "x")
        XCTAssertEqual(check.defects(generic, registered: phone, previous: nil), [.unsupportedKind])
        let tel = Handle(kind: .phoneNumber, value: "tel:" + phone.value, displayName: "x")
        XCTAssertEqual(check.defects(tel, registered: phone, previous: phone.value), [.notRegistered, .unstable])
    }
}
