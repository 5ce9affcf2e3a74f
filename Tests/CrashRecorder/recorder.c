/*
 * The crash recorder: an LD_PRELOAD library that writes down, in order, every file-system
 * operation a process makes under one folder, so that a test can build the states a power cut
 * could leave behind (see Tests/AgentTests/CrashStates.swift).
 *
 *   TIME_CRASH_ROOT    the folder whose files are recorded (paths that begin with it)
 *   TIME_CRASH_LOG     the log, appended one line per operation:
 *                        C <path> <ino>        a file created          (namespace)
 *                        R <from> <to> <ino>   a rename                (namespace)
 *                        L <from> <to> <ino>   a hard link             (namespace)
 *                        U <path>              an unlink               (namespace)
 *                        M <path>              a folder made           (namespace)
 *                        W <ino> <off> <hex>   bytes written           (data)
 *                        T <ino> <size>        a file cut to size      (data)
 *                        S <ino>               fsync/fdatasync of a file
 *                        D <path>              fsync of a folder
 *                        F                     syncfs from a descriptor under the root:
 *                                              everything written so far is durable
 *                      Without a log, only the flushes are counted: time_crash_recorder_flushes()
 *                      (looked up with dlsym by time-bench, for its "flushes per change" rows).
 *   TIME_CRASH_SKIP_FLUSH  a planted fault for the tests that expect a failure: fsync and
 *                      fdatasync of files whose path contains this text do nothing.
 *   TIME_CRASH_DISK_FAILS  a failing disk, for the tests of what a refused change leaves: while
 *                      the file it names exists, fsync and fdatasync of files whose path contains
 *                      TIME_CRASH_FAIL_FLUSH fail with EIO; once one has, every write to a file
 *                      whose path contains TIME_CRASH_FAIL_WRITES fails with EIO too (as a disk
 *                      that went bad between two calls), until that file is removed.
 * sendfile into a recorded file fails with ENOSYS, so that the caller copies with write().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/sendfile.h>
#include <unistd.h>
#include <pthread.h>
#include "crash_recorder.h"

#define MAX_FDS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *paths[MAX_FDS];          /* path at open, for recorded descriptors */
static int log_fd = -1;
static const char *root;
static size_t root_length;
static const char *skip_flush;
static const char *disk_fails, *fail_flush, *fail_writes;
static int flush_failed;
static int ready;

static unsigned long flush_count;

int time_crash_recorder_loaded(void) { return 1; }

/* fsync and fdatasync calls that completed on files and folders under the root. */
unsigned long time_crash_recorder_flushes(void) { return flush_count; }

#define REAL(name, ret, ...) \
    static ret (*real_##name)(__VA_ARGS__); \
    if (!real_##name) real_##name = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static ssize_t raw_write(int fd, const void *buffer, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    return real(fd, buffer, count);
}

static void setup(void) {
    if (ready) return;
    ready = 1;
    root = getenv("TIME_CRASH_ROOT");
    const char *log = getenv("TIME_CRASH_LOG");
    skip_flush = getenv("TIME_CRASH_SKIP_FLUSH");
    if (skip_flush && !*skip_flush) skip_flush = NULL;
    disk_fails = getenv("TIME_CRASH_DISK_FAILS");
    fail_flush = getenv("TIME_CRASH_FAIL_FLUSH");
    fail_writes = getenv("TIME_CRASH_FAIL_WRITES");
    if (!disk_fails || !*disk_fails || !fail_flush || !*fail_flush) disk_fails = NULL;
    if (!root || !*root) { root = NULL; return; }
    root_length = strlen(root);
    if (!log || !*log) return;   /* counting only */
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    log_fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

static int under_root(const char *path) {
    setup();
    return root && path && strncmp(path, root, root_length) == 0 &&
           (path[root_length] == '/' || path[root_length] == 0);
}

/* One line, written with one write() on an O_APPEND descriptor, so lines never interleave. */
static void emit(const char *line, size_t length) {
    if (log_fd < 0) return;
    size_t done = 0;
    while (done < length) {
        ssize_t n = raw_write(log_fd, line + done, length - done);
        if (n < 0) { if (errno == EINTR) continue; return; }
        done += (size_t)n;
    }
}

static void record(const char *format, ...) {
    char line[8192];
    va_list list;
    va_start(list, format);
    int n = vsnprintf(line, sizeof line, format, list);
    va_end(list);
    if (n > 0 && (size_t)n < sizeof line) emit(line, (size_t)n);
}

static unsigned long long inode_of_fd(int fd) {
    struct stat info;
    return fstat(fd, &info) == 0 ? (unsigned long long)info.st_ino : 0;
}

static long long inode_of_path(const char *path) {
    struct stat info;
    return lstat(path, &info) == 0 ? (long long)info.st_ino : -1;
}

static int tracked(int fd) { return fd >= 0 && fd < MAX_FDS && paths[fd] != NULL; }

/* TIME_CRASH_DISK_FAILS: whether the failing disk is switched on (its file exists). */
static int disk_failing(void) {
    if (!disk_fails) return 0;
    struct stat info;
    if (stat(disk_fails, &info) == 0) return 1;
    flush_failed = 0;
    return 0;
}

/* A write to `fd` that the failing disk refuses (errno set). */
static int write_refused(int fd) {
    if (!flush_failed || !fail_writes || !*fail_writes || !strstr(paths[fd], fail_writes) || !disk_failing()) return 0;
    errno = EIO;
    return 1;
}

static void record_write(int fd, const void *buffer, ssize_t count, off_t offset) {
    if (count <= 0 || log_fd < 0) return;
    size_t length = 64 + (size_t)count * 2;
    char *line = malloc(length);
    if (!line) return;
    int head = snprintf(line, length, "W %llu %lld ", inode_of_fd(fd), (long long)offset);
    static const char digits[] = "0123456789abcdef";
    const unsigned char *bytes = buffer;
    char *out = line + head;
    for (ssize_t i = 0; i < count; i++) { *out++ = digits[bytes[i] >> 4]; *out++ = digits[bytes[i] & 15]; }
    *out++ = '\n';
    emit(line, (size_t)(out - line));
    free(line);
}

static int after_open(const char *path, int flags, int fd, int existed) {
    if (fd < 0 || fd >= MAX_FDS || !under_root(path)) return fd;
    pthread_mutex_lock(&lock);
    free(paths[fd]);
    paths[fd] = strdup(path);
    if ((flags & O_CREAT) && !existed) record("C %s %llu\n", path, inode_of_fd(fd));
    else if ((flags & O_TRUNC) && (flags & (O_WRONLY | O_RDWR))) record("T %llu 0\n", inode_of_fd(fd));
    pthread_mutex_unlock(&lock);
    return fd;
}

#define OPEN_BODY(realname, call) \
    mode_t mode = 0; \
    if (flags & (O_CREAT | O_TMPFILE)) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); } \
    int existed = under_root(path) ? access(path, F_OK) == 0 : 1; \
    REAL(realname, int, const char *, int, ...); \
    int fd = call; \
    return after_open(path, flags, fd, existed);

int open(const char *path, int flags, ...) { OPEN_BODY(open, real_open(path, flags, mode)) }
int open64(const char *path, int flags, ...) { OPEN_BODY(open64, real_open64(path, flags, mode)) }

int openat(int dir, const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); }
    int existed = under_root(path) ? access(path, F_OK) == 0 : 1;
    REAL(openat, int, int, const char *, int, ...);
    int fd = real_openat(dir, path, flags, mode);
    return path[0] == '/' ? after_open(path, flags, fd, existed) : fd;
}

int openat64(int dir, const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) { va_list list; va_start(list, flags); mode = va_arg(list, mode_t); va_end(list); }
    int existed = under_root(path) ? access(path, F_OK) == 0 : 1;
    REAL(openat64, int, int, const char *, int, ...);
    int fd = real_openat64(dir, path, flags, mode);
    return path[0] == '/' ? after_open(path, flags, fd, existed) : fd;
}

int creat(const char *path, mode_t mode) { return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

int close(int fd) {
    REAL(close, int, int);
    if (fd >= 0 && fd < MAX_FDS && paths[fd]) {
        pthread_mutex_lock(&lock);
        free(paths[fd]);
        paths[fd] = NULL;
        pthread_mutex_unlock(&lock);
    }
    return real_close(fd);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    if (!tracked(fd)) return raw_write(fd, buffer, count);
    if (write_refused(fd)) return -1;
    pthread_mutex_lock(&lock);
    ssize_t n = raw_write(fd, buffer, count);
    if (n > 0) record_write(fd, buffer, n, lseek(fd, 0, SEEK_CUR) - n);
    pthread_mutex_unlock(&lock);
    return n;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite, ssize_t, int, const void *, size_t, off_t);
    if (!tracked(fd)) return real_pwrite(fd, buffer, count, offset);
    if (write_refused(fd)) return -1;
    pthread_mutex_lock(&lock);
    ssize_t n = real_pwrite(fd, buffer, count, offset);
    record_write(fd, buffer, n, offset);
    pthread_mutex_unlock(&lock);
    return n;
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    REAL(pwrite64, ssize_t, int, const void *, size_t, off64_t);
    if (!tracked(fd)) return real_pwrite64(fd, buffer, count, offset);
    if (write_refused(fd)) return -1;
    pthread_mutex_lock(&lock);
    ssize_t n = real_pwrite64(fd, buffer, count, offset);
    record_write(fd, buffer, n, (off_t)offset);
    pthread_mutex_unlock(&lock);
    return n;
}

static int truncated(int fd, long long size, int result) {
    if (result == 0 && tracked(fd)) record("T %llu %lld\n", inode_of_fd(fd), size);
    return result;
}

int ftruncate(int fd, off_t size) {
    REAL(ftruncate, int, int, off_t);
    pthread_mutex_lock(&lock);
    int result = truncated(fd, (long long)size, real_ftruncate(fd, size));
    pthread_mutex_unlock(&lock);
    return result;
}

int ftruncate64(int fd, off64_t size) {
    REAL(ftruncate64, int, int, off64_t);
    pthread_mutex_lock(&lock);
    int result = truncated(fd, (long long)size, real_ftruncate64(fd, size));
    pthread_mutex_unlock(&lock);
    return result;
}

static int flushed(int fd, int (*real)(int)) {
    if (!tracked(fd)) return real(fd);
    struct stat info;
    int folder = fstat(fd, &info) == 0 && S_ISDIR(info.st_mode);
    if (!folder && skip_flush && strstr(paths[fd], skip_flush)) return 0;   /* the planted fault */
    if (!folder && disk_fails && strstr(paths[fd], fail_flush) && disk_failing()) {
        flush_failed = 1;
        errno = EIO;
        return -1;
    }
    pthread_mutex_lock(&lock);
    int result = real(fd);
    if (result == 0) {
        flush_count++;
        if (folder) record("D %s\n", paths[fd]);
        else record("S %llu\n", (unsigned long long)info.st_ino);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int fsync(int fd) { REAL(fsync, int, int); return flushed(fd, real_fsync); }

int syncfs(int fd) {
    REAL(syncfs, int, int);
    if (!tracked(fd)) return real_syncfs(fd);
    pthread_mutex_lock(&lock);
    int result = real_syncfs(fd);
    if (result == 0) {
        flush_count++;
        record("F\n");
    }
    pthread_mutex_unlock(&lock);
    return result;
}
int fdatasync(int fd) { REAL(fdatasync, int, int); return flushed(fd, real_fdatasync); }

static int renamed(const char *from, const char *to, int (*call)(void *), void *context, char kind) {
    if (!under_root(from) && !under_root(to)) return call(context);
    pthread_mutex_lock(&lock);
    long long inode = inode_of_path(from);
    int result = call(context);
    if (result == 0) record("%c %s %s %lld\n", kind, from, to, inode);
    pthread_mutex_unlock(&lock);
    return result;
}

struct pair { const char *from, *to; int dirFrom, dirTo; unsigned flags; };

static int call_rename(void *c) { struct pair *p = c; REAL(rename, int, const char *, const char *); return real_rename(p->from, p->to); }
static int call_renameat(void *c) { struct pair *p = c; REAL(renameat, int, int, const char *, int, const char *); return real_renameat(p->dirFrom, p->from, p->dirTo, p->to); }
static int call_renameat2(void *c) { struct pair *p = c; REAL(renameat2, int, int, const char *, int, const char *, unsigned); return real_renameat2(p->dirFrom, p->from, p->dirTo, p->to, p->flags); }
static int call_link(void *c) { struct pair *p = c; REAL(link, int, const char *, const char *); return real_link(p->from, p->to); }
static int call_linkat(void *c) { struct pair *p = c; REAL(linkat, int, int, const char *, int, const char *, int); return real_linkat(p->dirFrom, p->from, p->dirTo, p->to, (int)p->flags); }

int rename(const char *from, const char *to) { struct pair p = { from, to, AT_FDCWD, AT_FDCWD, 0 }; return renamed(from, to, call_rename, &p, 'R'); }
int renameat(int df, const char *from, int dt, const char *to) { struct pair p = { from, to, df, dt, 0 }; return renamed(from, to, call_renameat, &p, 'R'); }
int renameat2(int df, const char *from, int dt, const char *to, unsigned flags) { struct pair p = { from, to, df, dt, flags }; return renamed(from, to, call_renameat2, &p, 'R'); }
int link(const char *from, const char *to) { struct pair p = { from, to, AT_FDCWD, AT_FDCWD, 0 }; return renamed(from, to, call_link, &p, 'L'); }
int linkat(int df, const char *from, int dt, const char *to, int flags) { struct pair p = { from, to, df, dt, (unsigned)flags }; return renamed(from, to, call_linkat, &p, 'L'); }

static int removed(const char *path, int result) {
    if (result == 0 && under_root(path)) record("U %s\n", path);
    return result;
}

int unlink(const char *path) {
    REAL(unlink, int, const char *);
    pthread_mutex_lock(&lock);
    int result = removed(path, real_unlink(path));
    pthread_mutex_unlock(&lock);
    return result;
}

int unlinkat(int dir, const char *path, int flags) {
    REAL(unlinkat, int, int, const char *, int);
    pthread_mutex_lock(&lock);
    int result = removed(path, real_unlinkat(dir, path, flags));
    pthread_mutex_unlock(&lock);
    return result;
}

int rmdir(const char *path) {
    REAL(rmdir, int, const char *);
    pthread_mutex_lock(&lock);
    int result = removed(path, real_rmdir(path));
    pthread_mutex_unlock(&lock);
    return result;
}

int mkdir(const char *path, mode_t mode) {
    REAL(mkdir, int, const char *, mode_t);
    int result = real_mkdir(path, mode);
    if (result == 0 && under_root(path)) record("M %s\n", path);
    return result;
}

int mkdirat(int dir, const char *path, mode_t mode) {
    REAL(mkdirat, int, int, const char *, mode_t);
    int result = real_mkdirat(dir, path, mode);
    if (result == 0 && under_root(path)) record("M %s\n", path);
    return result;
}

static ssize_t refuse_copy(int out) {
    (void)out;
    errno = ENOSYS;
    return -1;
}

ssize_t sendfile(int out, int in, off_t *offset, size_t count) {
    REAL(sendfile, ssize_t, int, int, off_t *, size_t);
    return tracked(out) ? refuse_copy(out) : real_sendfile(out, in, offset, count);
}

ssize_t sendfile64(int out, int in, off64_t *offset, size_t count) {
    REAL(sendfile64, ssize_t, int, int, off64_t *, size_t);
    return tracked(out) ? refuse_copy(out) : real_sendfile64(out, in, offset, count);
}
