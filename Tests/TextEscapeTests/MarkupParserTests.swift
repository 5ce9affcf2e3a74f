import CGLib
import TextEscape
import XCTest

/// The escaped text read back by GLib's markup parser, the one Pango (tooltips, waybar, the
/// window's rows) and notification servers use: a document `<t a="…">…</t>` must parse, and
/// give back the text and the attribute as they were (characters XML forbids as U+FFFD).
final class MarkupParserTests: XCTestCase {
    private final class Found {
        var text = ""
        var attribute: String?
    }

    /// Text and attribute as GMarkup reads them, or nil when it refuses the document.
    private func parse(_ document: String) -> (text: String, attribute: String?)? {
        var parser = GMarkupParser()
        parser.start_element = { _, _, names, values, data, _ in
            let found = Unmanaged<Found>.fromOpaque(data!).takeUnretainedValue()
            if let names, let values, let name = names[0], String(cString: name) == "a", let value = values[0] {
                found.attribute = String(cString: value)
            }
        }
        parser.text = { _, text, length, data, _ in
            let found = Unmanaged<Found>.fromOpaque(data!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
            found.text += String(decoding: bytes, as: UTF8.self)
        }
        let found = Found()
        let context = g_markup_parse_context_new(&parser, GMarkupParseFlags(rawValue: 0), Unmanaged.passUnretained(found).toOpaque(), nil)
        defer { g_markup_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(document.utf8)
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_markup_parse_context_parse(context, $0.baseAddress, gssize($0.count), &error) } != 0
                && g_markup_parse_context_end_parse(context, &error) != 0
        }
        if let error { g_error_free(error) }
        return parsed ? (found.text, found.attribute) : nil
    }

    private func readBack(_ text: String) -> (text: String, attribute: String?)? {
        parse("<t a=\"\(TextEscape.attribute(text))\">\(TextEscape.markup(text))</t>")
    }

    /// What the parser gives back: the text, with the characters XML forbids as U+FFFD.
    private func expected(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar -> Unicode.Scalar in
            let v = scalar.value
            let forbidden = (v < 0x20 && v != 0x9 && v != 0xA && v != 0xD) || v == 0xFFFE || v == 0xFFFF
            return forbidden ? "\u{FFFD}" : scalar
        }))
    }

    func testTheParserCheckItself() {
        XCTAssertNil(parse("<t>R&D</t>"), "an unescaped & is refused")
        XCTAssertNil(parse("<t>a<b</t>"), "an unescaped < is refused")
        XCTAssertNil(parse("<t a=\"x\"y\">z</t>"), "an unescaped quote ends the attribute")
    }

    func testEveryHostileStringReadsBackAsItWas() throws {
        let hostile = [
            #"<b>R&D "lab"</b>"#, "it's", "&amp; &lt; &#x41; & &unknown;", "<a href=\"javascript:alert(1)\">x</a>",
            "<![CDATA[x]]>", "<!--", "</t>", "'\"'\"", "R&\u{301}D", "a\nb\tc", "עברית 🚀", "\u{7F}\u{85}",
            "\u{1}\u{8}\u{B}\u{C}\u{1B}[1m\u{1F}", "\u{FFFE}\u{FFFF}", String(repeating: "&<>", count: 1000),
            String(decoding: [0x3C, 0xED, 0xA0, 0x80, 0x26, 0xFF, 0x22, 0xC0, 0xAF], as: UTF8.self),
        ]
        for text in hostile {
            let back = try XCTUnwrap(readBack(text), "GMarkup refused the escaped \(text.debugDescription)")
            XCTAssertEqual(back.text, expected(text), text.debugDescription)
            XCTAssertEqual(back.attribute, expected(text), text.debugDescription)
        }
    }

    /// Every scalar of the Basic Multilingual Plane but the surrogates (no Swift String holds one).
    func testEveryCharacterOfTheBasicPlane() throws {
        var scalars = String.UnicodeScalarView()
        for value in UInt32(1)...0xFFFF {
            if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
        }
        let text = String(scalars)
        let back = try XCTUnwrap(readBack(text))
        XCTAssertEqual(back.text, expected(text))
        XCTAssertEqual(back.attribute, expected(text))
    }
}
