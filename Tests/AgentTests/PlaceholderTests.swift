import XCTest
@testable import TimeAgent
final class TimeAgentPlaceholderTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
