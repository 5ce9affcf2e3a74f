// timectl links libdbus-1.a in, with glibc its only shared library (Package.swift: it starts in a
// fraction of the time a program that loads libstdc++, libdbus and libsystemd's libraries takes).
// Debian ships libdbus-1.a, but
// no static libsystemd, and libdbus-1.a's dbus-sysdeps-unix.o names two libsystemd functions, used
// only by a bus *server* started by systemd's socket activation (a "systemd:" listen address).
// timectl is a client and never listens, so these answer what libsystemd answers in a process
// that systemd did not start with sockets: no sockets were passed, this fd is not one of them.
// Linked into timectl only: the agent keeps the real ones through the shared libdbus.

#include "systemd_client.h"

int sd_listen_fds(int unset_environment) {
    (void)unset_environment;
    return 0;
}

int sd_is_socket(int fd, int family, int type, int listening) {
    (void)fd;
    (void)family;
    (void)type;
    (void)listening;
    return 0;
}
