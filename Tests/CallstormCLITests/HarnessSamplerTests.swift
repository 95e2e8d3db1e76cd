import XCTest
@testable import CallstormCLI

/// The harness's own gauges read /proc over bytes (no Foundation file reading): each reading must still find its
/// field in this very process.
// Not serial (scripts/test-parallel.py): it reads only its own process's /proc files and asserts that each field
// is there, not how much CPU or memory it shows, so other classes' processes cannot change its outcome.
final class HarnessSamplerTests: XCTestCase {
    func testProcReadingsFindThisProcessFields() throws {
        let threads = try XCTUnwrap(HarnessSampler.threadCount())
        XCTAssertGreaterThanOrEqual(threads, 1)
        let cpu = try XCTUnwrap(HarnessSampler.cpuSeconds())
        XCTAssertGreaterThanOrEqual(cpu, 0)
        let rss = try XCTUnwrap(HarnessSampler.residentMiB())
        XCTAssertGreaterThan(rss, 0)
        XCTAssertNil(HarnessSampler.procFile("/proc/self/no-such-file"))
    }

    /// The constant-time count (the size of /proc/self/fd) and the listing agree, and both see a pipe's two ends.
    func testOpenDescriptorCountSeesAPipeByStatAndByListing() throws {
        let before = try XCTUnwrap(HarnessSampler.openFileDescriptors())
        XCTAssertEqual(HarnessSampler.listedFileDescriptors(), before)
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        XCTAssertEqual(HarnessSampler.openFileDescriptors(), before + 2)
        XCTAssertEqual(HarnessSampler.listedFileDescriptors(), before + 2)
    }
}
