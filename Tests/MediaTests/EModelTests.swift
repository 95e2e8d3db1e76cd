import Media
import XCTest

final class EModelTests: XCTestCase {
    func testRToMOSMatchesG107AnnexB() {
        // R = 93.2 (G.711, no delay, no loss): 1 + 3.262 + 7e-6 × 93.2 × 33.2 × 6.8 = 4.409285824.
        XCTAssertEqual(EModel.mos(rating: 93.2), 4.409285824, accuracy: 1e-9)
        // Published points: R 80 → 4.02, R 70 → 3.60, R 50 → 2.58.
        XCTAssertEqual(EModel.mos(rating: 80), 4.024, accuracy: 1e-9)
        XCTAssertEqual(EModel.mos(rating: 70), 3.597, accuracy: 1e-9)
        XCTAssertEqual(EModel.mos(rating: 50), 2.575, accuracy: 1e-9)
        XCTAssertEqual(EModel.mos(rating: -5), 1)
        XCTAssertEqual(EModel.mos(rating: 120), 4.5)
    }

    func testNoDelayNoLossIsTheDefaultR() {
        XCTAssertEqual(EModel().rating(delayMillis: 0, lossPercent: 0), 93.2, accuracy: 1e-12)
        XCTAssertEqual(EModel().mos(delayMillis: 0, lossPercent: 0), 4.409285824, accuracy: 1e-9)
    }

    func testDelayImpairment() {
        // Below 177.3 ms only the linear term: 150 ms → 3.6.
        XCTAssertEqual(EModel.delayImpairment(millis: 150), 3.6, accuracy: 1e-12)
        // 200 ms: 0.024 × 200 + 0.11 × 22.7 = 4.8 + 2.497 = 7.297; R = 85.903.
        XCTAssertEqual(EModel.delayImpairment(millis: 200), 7.297, accuracy: 1e-12)
        XCTAssertEqual(EModel().rating(delayMillis: 200, lossPercent: 0), 85.903, accuracy: 1e-9)
    }

    func testLossImpairmentForG711WithAndWithoutConcealment() {
        // 1 % random loss, Bpl 25.1: Ie,eff = 95 × 1 / (1 + 25.1) = 3.6398467…; R = 89.5601532…
        XCTAssertEqual(EModel().rating(delayMillis: 0, lossPercent: 1), 93.2 - 95 / 26.1, accuracy: 1e-12)
        // Bpl 4.3: 95 / 5.3 = 17.9245283…; R = 75.2754716…, MOS = 3.8336512…
        let plain = EModel(codec: .g711)
        XCTAssertEqual(plain.rating(delayMillis: 0, lossPercent: 1), 75.275471698, accuracy: 1e-9)
        XCTAssertEqual(plain.mos(delayMillis: 0, lossPercent: 1), 3.8336511752, accuracy: 1e-9)
        // 2 % in bursts (BurstR 2): 95 × 2 / (1 + 25.1) = 7.2796934…
        XCTAssertEqual(EModel().effectiveEquipmentImpairment(lossPercent: 2, burstRatio: 2), 190 / 26.1,
                       accuracy: 1e-12)
        // All lost: Ie,eff = 95 × 100 / 125.1 = 75.94, R = 17.2607514, MOS = 1.1768624
        XCTAssertEqual(EModel().mos(delayMillis: 0, lossPercent: 100), 1.1768624065, accuracy: 1e-9)
    }

    func testAStreamReportGivesMOSFromItsLossAndJitter() {
        var stats = RTPReceiverStatistics()
        for s in 0..<100 where s != 50 {
            stats.note(sequence: UInt16(s), timestamp: UInt32(s * 160), payloadBytes: 160,
                       arrivalNanos: UInt64(s) * 20_000_000)
        }
        let report = MediaStreamReport(sent: SentCounts(), receiver: stats, detector: OneWayAudioDetector(),
                                       malformed: MediaMalformedCounts(), strays: StrayCounts(), sendLag: SendLag())
        // 1 % loss, no jitter, no transit known: R = 93.2 − 95 / 26.1.
        XCTAssertEqual(report.receiver.lossPercent, 1)
        XCTAssertEqual(report.mos()!, EModel.mos(rating: 93.2 - 95 / 26.1), accuracy: 1e-12)
    }
}
