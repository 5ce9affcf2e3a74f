import TextEscape
import XCTest

/// The one escaping of text for Pango markup, XML and SVG. Expected strings are written out by
/// hand from the languages' rules (XML 1.0 §2.2 Char, §2.4 and §3.3.3; GMarkup's five entities).
final class TextEscapeTests: XCTestCase {
    /// The five characters every one of the languages reserves, in text and in attributes.
    func testEveryReservedCharacterInTextAndAttributes() {
        let reserved: [(String, String)] = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&apos;")]
        for (character, entity) in reserved {
            XCTAssertEqual(TextEscape.markup(character), entity, character)
            XCTAssertEqual(TextEscape.attribute(character), entity, character)
            XCTAssertEqual(TextEscape.markup("a\(character)b"), "a\(entity)b", character)
        }
        XCTAssertEqual(TextEscape.markup("&<>\"'"), "&amp;&lt;&gt;&quot;&apos;")
    }

    func testANameThatLooksLikeMarkup() {
        XCTAssertEqual(TextEscape.markup(#"<b>R&D "lab"</b>"#), "&lt;b&gt;R&amp;D &quot;lab&quot;&lt;/b&gt;")
        XCTAssertEqual(TextEscape.attribute(#"<b>R&D "lab"</b>"#), "&lt;b&gt;R&amp;D &quot;lab&quot;&lt;/b&gt;")
        // Text that is already escaped is text like any other: escaped again, shown as typed.
        XCTAssertEqual(TextEscape.markup("&amp; &#x41; &unknown;"), "&amp;amp; &amp;#x41; &amp;unknown;")
        XCTAssertEqual(TextEscape.markup("<![CDATA[x]]><!--"), "&lt;![CDATA[x]]&gt;&lt;!--")
    }

    /// Text keeps its line feeds and tabs (tooltips and notification bodies have lines); a
    /// carriage return is a reference (a parser reads a bare one as a line feed); an attribute
    /// writes all three as references, which attribute-value normalisation would make spaces.
    func testLineBreaksAndTabs() {
        XCTAssertEqual(TextEscape.markup("a\nb\tc\r\nd"), "a\nb\tc&#13;\nd")
        XCTAssertEqual(TextEscape.attribute("a\nb\tc\r\nd"), "a&#10;b&#9;c&#13;&#10;d")
    }

    /// XML 1.0 allows no C0 control but tab, line feed and carriage return, not even as a
    /// character reference, and neither U+FFFE nor U+FFFF: each becomes U+FFFD.
    func testCharactersXMLForbidsBecomeTheReplacementCharacter() {
        let allowed: Set<UInt32> = [0x09, 0x0A, 0x0D]
        for value in UInt32(0)..<0x20 where !allowed.contains(value) {
            let text = "a" + String(Unicode.Scalar(value)!) + "b"
            XCTAssertEqual(TextEscape.markup(text), "a\u{FFFD}b", "U+\(String(value, radix: 16))")
            XCTAssertEqual(TextEscape.attribute(text), "a\u{FFFD}b", "U+\(String(value, radix: 16))")
        }
        XCTAssertEqual(TextEscape.markup("\u{FFFE}\u{FFFF}"), "\u{FFFD}\u{FFFD}")
        XCTAssertEqual(TextEscape.attribute("x\u{FFFF}"), "x\u{FFFD}")
        XCTAssertFalse(TextEscape.isXMLCharacter("\u{0}"))
        XCTAssertTrue(TextEscape.isXMLCharacter("\u{D7FF}"))
    }

    /// What XML allows passes untouched: DEL and the C1 controls, other characters of U+EFxxx
    /// (whose UTF-8 starts like U+FFFE's), the replacement character, the last code point.
    func testAllowedCharactersPassUntouched() {
        for text in ["\u{7F}", "\u{85}\u{9F}", "\u{FFFD}", "\u{FFFC}", "\u{EFFF}", "\u{10FFFF}", "עברית 🚀", "Écriture", "e\u{301}", "👩‍👩‍👧"] {
            XCTAssertEqual(TextEscape.markup(text), text)
            XCTAssertEqual(TextEscape.attribute(text), text)
        }
        XCTAssertEqual(TextEscape.markup(""), "")
    }

    /// A combining mark after `&` makes one Character of the two, but a markup parser still
    /// reads an `&`: escaping goes by Unicode scalar.
    func testAReservedCharacterUnderACombiningMark() {
        XCTAssertEqual(TextEscape.markup("R&\u{301}D"), "R&amp;\u{301}D")
        XCTAssertEqual(TextEscape.markup("<\u{338}"), "&lt;\u{338}")
        XCTAssertEqual(TextEscape.markup("\"\u{20DD}"), "&quot;\u{20DD}")
    }

    /// Text decoded from bytes that are not UTF-8 (an unpaired surrogate written as UTF-8, a
    /// truncated sequence, a byte UTF-8 never uses): Swift's decoding makes valid text of it
    /// (U+FFFD each), and escaping it gives valid text again, with every reserved character escaped.
    func testTextDecodedFromInvalidUTF8() {
        let bytes: [UInt8] = [0x3C, 0xED, 0xA0, 0x80, 0x26, 0xE2, 0x82, 0x22, 0xFF, 0xC0, 0xAF, 0x3E]
        let text = String(decoding: bytes, as: UTF8.self)
        let escaped = TextEscape.markup(text)
        XCTAssertFalse(escaped.unicodeScalars.contains { (0xD800...0xDFFF).contains($0.value) })
        XCTAssertEqual(escaped.unicodeScalars.filter { $0 == "\u{FFFD}" }.count, text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count)
        XCTAssertTrue(escaped.hasPrefix("&lt;\u{FFFD}"), escaped)
        XCTAssertTrue(escaped.hasSuffix("&gt;"), escaped)
        XCTAssertTrue(escaped.contains("&amp;") && escaped.contains("&quot;"), escaped)
    }

    /// JSON's writer shares the loop: `substituting` keeps what the table leaves and replaces
    /// per scalar, appending to what is there.
    func testSubstitutingAppendsScalarByScalar() {
        var out = "start:"
        TextEscape.substituting("a&\u{301}b", into: &out) { $0 == "&" ? "+" : nil }
        XCTAssertEqual(out, "start:a+\u{301}b")
        var empty = ""
        TextEscape.substituting("", into: &empty) { _ in "x" }
        XCTAssertEqual(empty, "")
    }
}
