import TextEscape

/// The `<!DOCTYPE>` line every introspection document starts with.
public let introspectionDoctype = """
<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
"""

/// The annotation that carries documentation (as gdbus-codegen reads it).
public let docStringAnnotation = "org.gtk.GDBus.DocString"

/// The introspection XML of an object with `interfaces` and child nodes `children`.
/// Deterministic: the same table always gives the same bytes. The standard interfaces
/// (Introspectable, Peer, Properties) come first unless `includeStandardInterfaces` is false.
public func introspectionXML(interfaces: [Interface], children: [String] = [],
                             includeStandardInterfaces: Bool = true) -> String {
    var out = introspectionDoctype + "\n<node>\n"
    let all = (includeStandardInterfaces ? StandardInterface.descriptions : []) + interfaces
    for interface in all {
        out += "  <interface name=\"\(TextEscape.attribute(interface.name))\">\n"
        for method in interface.methods {
            var body = ""
            for arg in method.inArgs { body += argXML(arg, direction: "in", indent: "      ") }
            for arg in method.outArgs { body += argXML(arg, direction: "out", indent: "      ") }
            body += annotationsXML(method.annotations, doc: method.doc, indent: "      ")
            out += element("method", name: method.name, extra: "", body: body, indent: "    ")
        }
        for signal in interface.signals {
            var body = ""
            for arg in signal.args { body += argXML(arg, direction: nil, indent: "      ") }
            body += annotationsXML([:], doc: signal.doc, indent: "      ")
            out += element("signal", name: signal.name, extra: "", body: body, indent: "    ")
        }
        for property in interface.properties {
            var annotations: [String: String] = [:]
            if property.emitsChange != .true {
                annotations["org.freedesktop.DBus.Property.EmitsChangedSignal"] = property.emitsChange.rawValue
            }
            let body = annotationsXML(annotations, doc: property.doc, indent: "      ")
            let extra = " type=\"\(TextEscape.attribute(property.signature))\" access=\"\(property.access.rawValue)\""
            out += element("property", name: property.name, extra: extra, body: body, indent: "    ")
        }
        out += annotationsXML(interface.annotations, doc: nil, indent: "    ")
        out += "  </interface>\n"
    }
    for child in children {
        out += "  <node name=\"\(TextEscape.attribute(child))\"/>\n"
    }
    out += "</node>\n"
    return out
}

private func element(_ tag: String, name: String, extra: String, body: String, indent: String) -> String {
    if body.isEmpty {
        return "\(indent)<\(tag) name=\"\(TextEscape.attribute(name))\"\(extra)/>\n"
    }
    return "\(indent)<\(tag) name=\"\(TextEscape.attribute(name))\"\(extra)>\n\(body)\(indent)</\(tag)>\n"
}

private func argXML(_ arg: Argument, direction: String?, indent: String) -> String {
    let dir = direction.map { " direction=\"\($0)\"" } ?? ""
    return "\(indent)<arg type=\"\(TextEscape.attribute(arg.signature))\" name=\"\(TextEscape.attribute(arg.name))\"\(dir)/>\n"
}

private func annotationsXML(_ annotations: [String: String], doc: String?, indent: String) -> String {
    var out = ""
    for (name, value) in annotations.sorted(by: { $0.key < $1.key }) {
        out += "\(indent)<annotation name=\"\(TextEscape.attribute(name))\" value=\"\(TextEscape.attribute(value))\"/>\n"
    }
    if let doc {
        out += "\(indent)<annotation name=\"\(docStringAnnotation)\" value=\"\(TextEscape.attribute(doc))\"/>\n"
    }
    return out
}

