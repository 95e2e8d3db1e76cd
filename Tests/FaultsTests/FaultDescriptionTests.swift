import Faults
import XCTest

final class FaultDescriptionTests: XCTestCase {
    func testAWindowIsDescribedSectionBySection() {
        var w = FaultFixtures.window(push: FaultFixtures.push { $0.drop = 0.1; $0.brownout = .stall },
                                     device: FaultFixtures.device { $0.offline = 0.05 },
                                     target: TargetFaults(restartAfterNanos: 2_000_000_000))
        w.devices = 0.5
        XCTAssertEqual(FaultDescription.describe(w), "push: drop 10%, brownout (stall) · device: offline 5% · "
            + "target: kill (SIGKILL), restart after 2s · on 50% of devices")
    }

    func testASIPSectionSaysWhatItLosesWhichWayAndTheWakeFaults() {
        let sip = FaultFixtures.sip {
            $0.loss = 0.1
            $0.direction = .receive
            $0.messages = ["INVITE", "200"]
            $0.lateWake = LateWakeFaults(probability: 0.5, after: .constant(12_000_000_000))
            $0.lostRegister = 0.2
        }
        let described = FaultDescription.describe(FaultFixtures.window(sip: sip))
        XCTAssertTrue(described.hasPrefix("sip: loss 10% (receive: INVITE, 200), late_wake 50% after "), described)
        XCTAssertTrue(described.hasSuffix(", lost_register 20%"), described)
    }

    func testInjectedFaultsAreCountedPerWindowWithoutTheProxyMarkers() {
        let csv = #"""
            t_s,window,kind,subject,call,role,seq
            0.1,a,push.dropped,dev-1,1,0,1
            0.2,a,push.dropped,dev-2,2,0,1
            0.3,b,network.on,proxy,-1,-1,0
            0.4,b,network.latency,conn-1,-1,-1,1
            0.5,"c, ""quoted""",push.dropped,dev-3,3,0,1

            """#
        XCTAssertEqual(FaultDescription.injectedByWindow(faultsCSV: csv),
                       ["a": ["push.dropped": 2], "b": ["network.latency": 1], "c, \"quoted\"": ["push.dropped": 1]])
    }
}
