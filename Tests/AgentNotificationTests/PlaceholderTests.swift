import XCTest
final class AgentNotificationPlaceholderTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
