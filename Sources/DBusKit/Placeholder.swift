// DBusKit
