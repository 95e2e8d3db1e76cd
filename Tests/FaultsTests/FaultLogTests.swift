import Faults
import XCTest

final class FaultLogTests: XCTestCase {
    func testTheCSVIsSortedByTimeCallRoleAndSeqAndNamesDevicesUnlessASubjectIsGiven() {
        let log = FaultLog()
        log.add(.init(sinceLoadNanos: 2_000_000_000, window: "w", kind: "push.dropped", device: 4, seq: 2, call: 7,
                      role: 1))
        log.add(.init(sinceLoadNanos: 1_500_000, window: "n", kind: "network.reset_peer", device: -1, seq: 3,
                      subject: "conn-3"))
        XCTAssertEqual(log.csv(), """
            t_s,window,kind,subject,call,role,seq
            0.001500,n,network.reset_peer,conn-3,-1,-1,3
            2.000000,w,push.dropped,dev-4,7,1,2

            """)
    }
}
