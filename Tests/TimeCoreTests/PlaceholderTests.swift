import XCTest
@testable import TimeCore
final class TimeCorePlaceholderTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
