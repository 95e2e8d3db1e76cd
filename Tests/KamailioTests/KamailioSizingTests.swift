import Kamailio
import XCTest

/// The size of a Kamailio started for a run: shared memory grows with the peak rate and the transactions per
/// call (tm keeps each for 5 s after it ends), with the devices, and with the push route's parked INVITEs; the
/// scenario's explicit sizes win.
final class KamailioSizingTests: XCTestCase {
    func testTheHoldCallAt400PerSecondGetsFarMoreThanThe64MBThatRanOut() {
        let sizing = KamailioSizing.sized(for: .init(devices: 1200, peakCallsPerSecond: 400, transactionsPerCall: 4))
        // 64 MB ran out (3,228 "out of mem"); 256 MB ran out at 800/s, so 400/s needs well over 128.
        XCTAssertGreaterThanOrEqual(sizing.sharedMemoryMB, 256)
        XCTAssertEqual(sizing.sharedMemoryMB % 64, 0, "rounded to 64 MB")
        XCTAssertEqual(sizing.privateMemoryMB, 8)
        XCTAssertEqual(sizing.children, 2)
        XCTAssertTrue(sizing.basis.contains("400 calls/s peak × 4 transactions per call, 1200 devices"),
                      sizing.basis)
    }

    func testSharedMemoryGrowsWithRateTransactionsAndDevicesAndNeverFallsBelowTheDefault() {
        let small = KamailioSizing.sized(for: .init(devices: 10, peakCallsPerSecond: 5))
        XCTAssertEqual(small.sharedMemoryMB, 64, "Kamailio's own default is the floor")
        XCTAssertEqual(small.children, 2)
        let rate = { (r: Double) in KamailioSizing.sized(for: .init(devices: 100, peakCallsPerSecond: r)) }
        XCTAssertLessThan(rate(400).sharedMemoryMB, rate(800).sharedMemoryMB)
        XCTAssertGreaterThanOrEqual(rate(800).sharedMemoryMB, 512, "256 MB ran out at 800/s in the bench")
        let longer = KamailioSizing.sized(for: .init(devices: 100, peakCallsPerSecond: 400, transactionsPerCall: 8))
        XCTAssertGreaterThan(longer.sharedMemoryMB, rate(400).sharedMemoryMB)
        let many = KamailioSizing.sized(for: .init(devices: 100_000, peakCallsPerSecond: 5))
        XCTAssertGreaterThanOrEqual(many.sharedMemoryMB, 100_000 * 4 / 1024, "a binding per device")
        XCTAssertEqual(many.privateMemoryMB, 16)
    }

    func testThePushRouteKeepsINVITEsLongerAndNeedsMoreWorkers() {
        let awake = KamailioSizing.sized(for: .init(devices: 300, peakCallsPerSecond: 800))
        let asleep = KamailioSizing.sized(for: .init(devices: 300, peakCallsPerSecond: 800, pushTimeoutSeconds: 10))
        XCTAssertGreaterThan(asleep.sharedMemoryMB, awake.sharedMemoryMB)
        XCTAssertEqual(awake.children, 2)
        XCTAssertEqual(asleep.children, 4, "a woken device's REGISTERs add SIP work to each call")
        XCTAssertEqual(KamailioSizing.sized(for: .init(devices: 1, peakCallsPerSecond: 100_000)).children, 16)
    }

    func testTheScenariosSizesWinAndTheBasisSaysWhichWereSet() {
        let computed = KamailioSizing.sized(for: .init(devices: 1200, peakCallsPerSecond: 400))
        let set = computed.overridden(sharedMemoryMB: 12, privateMemoryMB: nil, children: 6)
        XCTAssertEqual(set.sharedMemoryMB, 12)
        XCTAssertEqual(set.privateMemoryMB, computed.privateMemoryMB)
        XCTAssertEqual(set.children, 6)
        XCTAssertTrue(set.basis.hasSuffix("; set by the scenario: shared_memory_mb, children"), set.basis)
        XCTAssertEqual(computed.overridden(sharedMemoryMB: nil, privateMemoryMB: nil, children: nil), computed)
    }

    func testTheCommandLineCarriesTheWorkersOnlyWhenSized() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/k.cfg"), sharedMemoryMB: 448)
        XCTAssertFalse(options.arguments(modules: "/m", runDirectory: "/r", port: 1).contains("-n"))
        options.children = 3
        let args = options.arguments(modules: "/m", runDirectory: "/r", port: 1)
        XCTAssertEqual(Array(args[args.firstIndex(of: "-m")!...]),
                       ["-m", "448", "-M", "8", "-x", "tlsf", "-X", "tlsf", "-n", "3", "-N", "3"])
        options.defines = KamailioOptions.pushDefines(url: "http://h:1", token: "secret.jwt")
        XCTAssertEqual(options.shownDefines, ["WITH_PUSH", "PUSH_URL=\"http://h:1\"", "PUSH_JWT=\"<provider token>\""])
    }

    /// The tls module's reader count (Debian's 5.6.3 double-frees with two or more) goes as `-N` alone, after the
    /// SIP workers' `-n`.
    func testTheTLSReadersGoAsTheirOwnCount() {
        var options = KamailioOptions(configuration: URL(fileURLWithPath: "/k.cfg"), sharedMemoryMB: 64)
        options.children = 4
        options.tcpChildren = 1
        let args = options.arguments(modules: "/m", runDirectory: "/r", port: 1)
        XCTAssertEqual(Array(args[args.firstIndex(of: "-m")!...]),
                       ["-m", "64", "-M", "8", "-x", "tlsf", "-X", "tlsf", "-n", "4", "-N", "1"])
        options.children = nil
        let alone = options.arguments(modules: "/m", runDirectory: "/r", port: 1)
        XCTAssertFalse(alone.contains("-n"))
        XCTAssertEqual(Array(alone[alone.firstIndex(of: "-N")!...].prefix(2)), ["-N", "1"])
    }
}
