import CGLib
import Glibc

/// Why an SVG could not become a PNG.
public struct RasterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Rasterises an SVG document to PNG bytes with librsvg and cairo.
///
/// librsvg is loaded with `dlopen` the first time a picture is asked for, never at start: linked
/// in, it and its dependencies (cairo, pango, harfbuzz, libxml2, …) add about 4.5 MB to the idle
/// agent's memory for a feature used once a week. It stays loaded afterwards (librsvg registers
/// GObject types, which must never be unloaded). timectl never loads it at all.
public enum PNGRenderer {
    /// The PNG of `svg` at its own size times `scale`.
    public static func png(svg: String, scale: Double = 1) throws -> [UInt8] {
        let rsvg = try Librsvg.shared()
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(svg.utf8)
        guard let handle = bytes.withUnsafeBufferPointer({ rsvg.newFromData($0.baseAddress, gsize($0.count), &error) }) else {
            throw RasterError("librsvg could not read the SVG: \(takeMessage(error))")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        var width = 0.0, height = 0.0
        guard rsvg.intrinsicSize(handle, &width, &height) != 0, width > 0, height > 0 else {
            throw RasterError("The SVG has no size in pixels (it needs width and height).")
        }
        let pixelWidth = Int32((width * scale).rounded(.up)), pixelHeight = Int32((height * scale).rounded(.up))
        guard pixelWidth <= 8192, pixelHeight <= 8192 else {
            throw RasterError("The SVG is too large to rasterise (\(pixelWidth)×\(pixelHeight)).")
        }
        guard let surface = rsvg.imageSurfaceCreate(cairoFormatARGB32, pixelWidth, pixelHeight) else {
            throw RasterError("cairo could not make a \(pixelWidth)×\(pixelHeight) image.")
        }
        defer { rsvg.surfaceDestroy(surface) }
        guard rsvg.surfaceStatus(surface) == cairoStatusSuccess, let cairo = rsvg.cairoCreate(surface) else {
            throw RasterError("cairo could not draw on a \(pixelWidth)×\(pixelHeight) image.")
        }
        defer { rsvg.cairoDestroy(cairo) }
        // An RsvgRectangle: x, y, width, height as four doubles.
        let viewport: [Double] = [0, 0, Double(pixelWidth), Double(pixelHeight)]
        guard viewport.withUnsafeBytes({ rsvg.renderDocument(handle, cairo, $0.baseAddress, &error) }) != 0 else {
            throw RasterError("librsvg could not draw the SVG: \(takeMessage(error))")
        }
        rsvg.surfaceFlush(surface)
        let sink = ByteSink()
        let status = rsvg.writeToPNGStream(surface, appendPNGBytes, Unmanaged.passUnretained(sink).toOpaque())
        guard status == cairoStatusSuccess else { throw RasterError("cairo could not encode the PNG (status \(status)).") }
        return sink.bytes
    }
}

// MARK: - librsvg and cairo, loaded on first use

private let cairoFormatARGB32: Int32 = 0     // CAIRO_FORMAT_ARGB32
private let cairoStatusSuccess: Int32 = 0    // CAIRO_STATUS_SUCCESS
private let cairoStatusWriteError: Int32 = 11 // CAIRO_STATUS_WRITE_ERROR

typealias PNGWriteFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, UInt32) -> Int32

/// The few entry points used, resolved once from librsvg's handle (cairo comes with it).
private final class Librsvg {
    typealias NewFromData = @convention(c) (UnsafePointer<UInt8>?, gsize, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer?
    typealias IntrinsicSize = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> gboolean
    typealias RenderDocument = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean
    typealias SurfaceCreate = @convention(c) (Int32, Int32, Int32) -> OpaquePointer?
    typealias SurfaceFunction = @convention(c) (OpaquePointer?) -> Void
    typealias SurfaceStatus = @convention(c) (OpaquePointer?) -> Int32
    typealias CairoCreate = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias WriteToPNGStream = @convention(c) (OpaquePointer?, PNGWriteFunction?, UnsafeMutableRawPointer?) -> Int32

    let newFromData: NewFromData
    let intrinsicSize: IntrinsicSize
    let renderDocument: RenderDocument
    let imageSurfaceCreate: SurfaceCreate
    let surfaceStatus: SurfaceStatus
    let surfaceFlush: SurfaceFunction
    let surfaceDestroy: SurfaceFunction
    let cairoCreate: CairoCreate
    let cairoDestroy: SurfaceFunction
    let writeToPNGStream: WriteToPNGStream

    nonisolated(unsafe) private static var loaded: Librsvg?

    /// Only the agent's main thread draws pictures, so no lock is needed.
    static func shared() throws -> Librsvg {
        if let loaded { return loaded }
        let library = try Librsvg()
        loaded = library
        return library
    }

    private init() throws {
        guard let handle = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw RasterError("librsvg is not installed (\(reason)); install the librsvg2-2 package to get pictures of the week.")
        }
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            guard let address = dlsym(handle, name) else { throw RasterError("librsvg has no \(name); it is too old (2.52 or newer is needed).") }
            return unsafeBitCast(address, to: type)
        }
        newFromData = try symbol("rsvg_handle_new_from_data", NewFromData.self)
        intrinsicSize = try symbol("rsvg_handle_get_intrinsic_size_in_pixels", IntrinsicSize.self)
        renderDocument = try symbol("rsvg_handle_render_document", RenderDocument.self)
        imageSurfaceCreate = try symbol("cairo_image_surface_create", SurfaceCreate.self)
        surfaceStatus = try symbol("cairo_surface_status", SurfaceStatus.self)
        surfaceFlush = try symbol("cairo_surface_flush", SurfaceFunction.self)
        surfaceDestroy = try symbol("cairo_surface_destroy", SurfaceFunction.self)
        cairoCreate = try symbol("cairo_create", CairoCreate.self)
        cairoDestroy = try symbol("cairo_destroy", SurfaceFunction.self)
        writeToPNGStream = try symbol("cairo_surface_write_to_png_stream", WriteToPNGStream.self)
    }
}

/// Takes a GError's message and frees it.
private func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}

private final class ByteSink { var bytes: [UInt8] = [] }

private func appendPNGBytes(_ closure: UnsafeMutableRawPointer?, _ data: UnsafePointer<UInt8>?, _ length: UInt32) -> Int32 {
    guard let closure, let data else { return cairoStatusWriteError }
    Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return cairoStatusSuccess
}
