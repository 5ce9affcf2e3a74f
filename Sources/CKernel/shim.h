#include <sys/timerfd.h>
#include <time.h>
#include <poll.h>
#include <sys/types.h>

/* sync_file_range(2), which glibc declares only under _GNU_SOURCE (declared here as glibc does). */
int sync_file_range(int fd, __off64_t offset, __off64_t count, unsigned int flags);

/* Starts writing a range of a file's dirty pages to the disk and returns at once: no wait, and no
   promise of durability (only fsync and fdatasync make one); a later fdatasync finds less to do.
   SYNC_FILE_RANGE_WRITE. */
static inline int time_start_writeback(int fd, __off64_t offset, __off64_t count) {
    return sync_file_range(fd, offset, count, 2);
}

/* getrandom(2), <sys/random.h>: one call fills a whole global id's 16 bytes. */
#include <sys/random.h>
