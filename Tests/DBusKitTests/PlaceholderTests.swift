import XCTest
@testable import DBusKit
final class DBusKitPlaceholderTests: XCTestCase { func testBuilds() { XCTAssertTrue(true) } }
