import XCTest
@testable import Notifier
final class NotifierPlaceholderTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
