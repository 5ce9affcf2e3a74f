import CRsvg

/// Why an SVG could not become a PNG.
public struct RasterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Rasterises an SVG document to PNG bytes with librsvg and cairo (linked only by the agent, so
/// `timectl` starts without them).
public enum PNGRenderer {
    /// The PNG of `svg` at its own size times `scale`.
    public static func png(svg: String, scale: Double = 1) throws -> [UInt8] {
        let handle = try SVGHandle(svg)
        var width = 0.0, height = 0.0
        guard rsvg_handle_get_intrinsic_size_in_pixels(handle.raw, &width, &height) != 0, width > 0, height > 0 else {
            throw RasterError("The SVG has no size in pixels (it needs width and height).")
        }
        let pixelWidth = Int32((width * scale).rounded(.up)), pixelHeight = Int32((height * scale).rounded(.up))
        guard pixelWidth <= 8192, pixelHeight <= 8192 else { throw RasterError("The SVG is too large to rasterise (\(pixelWidth)×\(pixelHeight)).") }
        let surface = try ImageSurface(width: pixelWidth, height: pixelHeight)
        guard let cairo = cairo_create(surface.raw) else { throw RasterError("cairo could not draw on the image.") }
        defer { cairo_destroy(cairo) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(pixelWidth), height: Double(pixelHeight))
        var error: UnsafeMutablePointer<GError>?
        guard rsvg_handle_render_document(handle.raw, cairo, &viewport, &error) != 0 else {
            throw RasterError("librsvg could not draw the SVG: \(takeMessage(error))")
        }
        cairo_surface_flush(surface.raw)
        return try surface.pngBytes()
    }
}

/// Takes a GError's message and frees it.
private func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}

/// An `RsvgHandle*`, unreferenced on deinit.
private final class SVGHandle {
    let raw: UnsafeMutablePointer<RsvgHandle>

    init(_ svg: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(svg.utf8)
        let handle = bytes.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let handle else { throw RasterError("librsvg could not read the SVG: \(takeMessage(error))") }
        raw = handle
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(raw)) }
}

/// A cairo ARGB32 image surface, destroyed on deinit.
private final class ImageSurface {
    let raw: OpaquePointer

    init(width: Int32, height: Int32) throws {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw RasterError("cairo could not make a \(width)×\(height) image.")
        }
        raw = surface
    }

    deinit { cairo_surface_destroy(raw) }

    func pngBytes() throws -> [UInt8] {
        let sink = ByteSink()
        let status = cairo_surface_write_to_png_stream(raw, appendPNGBytes, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else { throw RasterError("cairo could not encode the PNG (status \(status.rawValue)).") }
        return sink.bytes
    }
}

private final class ByteSink { var bytes: [UInt8] = [] }

private func appendPNGBytes(_ closure: UnsafeMutableRawPointer?, _ data: UnsafePointer<UInt8>?, _ length: UInt32) -> cairo_status_t {
    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
    Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return CAIRO_STATUS_SUCCESS
}
