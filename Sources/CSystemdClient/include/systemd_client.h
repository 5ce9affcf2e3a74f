// What a statically linked libdbus-1.a needs from libsystemd in a client (see client.c).
#ifndef TIME_SYSTEMD_CLIENT_H
#define TIME_SYSTEMD_CLIENT_H

int sd_listen_fds(int unset_environment);
int sd_is_socket(int fd, int family, int type, int listening);

#endif
