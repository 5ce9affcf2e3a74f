/* The durable path's own floor: what one Pause costs in this design with nothing but the work
 * durability needs, written in C against the same store (docs/durable-path.md, round eight).
 *
 * Each round: BEGIN IMMEDIATE; the running segment's UPDATE; a slot of SLOT_BYTES written in place
 * and its writeback started; the undo step's INSERT while the disk takes it; one fdatasync; the
 * slot read back and compared; COMMIT. Beside it, in turn, the bench's floor: 4 KiB written in
 * place and flushed. No Swift, no D-Bus, no snapshot serialised or hashed, no undo recording.
 *
 *   design-floor STORE SLOT-FILE FLOOR-FILE ROUNDS
 * STORE: a copy of a bench store (time-bench --generate). Prints the medians in µs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SLOT_BYTES = 10240, STEP_BYTES = 150 };

static double microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *values, int count) {
    qsort(values, count, sizeof *values, ascending);
    return values[count / 2];
}

static void fail(const char *what) {
    fprintf(stderr, "design-floor: %s\n", what);
    exit(1);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) fail(sqlite3_errmsg(db));
    return statement;
}

static void run(sqlite3_stmt *statement) {
    int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) fail("a statement failed");
}

int main(int argc, char **argv) {
    if (argc != 5) fail("usage: design-floor STORE SLOT-FILE FLOOR-FILE ROUNDS");
    int rounds = atoi(argv[4]);
    if (rounds < 1) fail("ROUNDS must be at least 1");
    sqlite3 *db;
    if (sqlite3_open(argv[1], &db) != SQLITE_OK) fail("cannot open the store");
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;", NULL, NULL, NULL);
    sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE"), *commit = prepare(db, "COMMIT");
    sqlite3_stmt *pause = prepare(db, "UPDATE segments SET end = ? WHERE session_id = ? AND end IS NULL");
    sqlite3_stmt *step = prepare(db, "INSERT INTO undo_steps(time, description, undone, changeset) VALUES(?, 'Paused', 0, ?)");
    sqlite3_stmt *newest = prepare(db, "SELECT session_id, id FROM segments ORDER BY id DESC LIMIT 1");
    if (sqlite3_step(newest) != SQLITE_ROW) fail("the store has no segment");
    sqlite3_int64 session = sqlite3_column_int64(newest, 0), segment = sqlite3_column_int64(newest, 1);
    sqlite3_finalize(newest);
    char reopen[128];  /* the segment running again for the next round (not timed) */
    snprintf(reopen, sizeof reopen, "UPDATE segments SET end = NULL WHERE id = %lld", (long long)segment);
    sqlite3_exec(db, reopen, NULL, NULL, NULL);

    int slot = open(argv[2], O_RDWR | O_CREAT, 0600), floor = open(argv[3], O_RDWR | O_CREAT, 0600);
    if (slot < 0 || floor < 0) fail("cannot open the slot or the floor's file");
    static unsigned char bytes[SLOT_BYTES], back[SLOT_BYTES], page[4096], changeset[STEP_BYTES];
    memset(bytes, 'x', sizeof bytes);
    memset(page, 'y', sizeof page);
    memset(changeset, 1, sizeof changeset);
    if (pwrite(slot, bytes, sizeof bytes, 0) != sizeof bytes || pwrite(floor, page, sizeof page, 0) != sizeof page) fail("write");
    fsync(slot);
    fsync(floor);

    double *change = malloc(rounds * sizeof *change), *flush = malloc(rounds * sizeof *flush);
    for (int round = 0; round < rounds; round++) {
        page[0]++;
        double start = microseconds();
        if (pwrite(floor, page, sizeof page, 0) != sizeof page || fdatasync(floor) != 0) fail("the floor's write");
        flush[round] = microseconds() - start;

        bytes[round % SLOT_BYTES]++;
        start = microseconds();
        run(begin);
        sqlite3_bind_int64(pause, 1, round);
        sqlite3_bind_int64(pause, 2, session);
        run(pause);
        if (pwrite(slot, bytes, sizeof bytes, 0) != sizeof bytes) fail("the slot's write");
        sync_file_range(slot, 0, sizeof bytes, SYNC_FILE_RANGE_WRITE);
        sqlite3_bind_int64(step, 1, round);
        sqlite3_bind_blob(step, 2, changeset, sizeof changeset, SQLITE_STATIC);
        run(step);
        if (fdatasync(slot) != 0) fail("the slot's flush");
        if (pread(slot, back, sizeof back, 0) != sizeof back || memcmp(back, bytes, sizeof back) != 0) fail("the read-back");
        run(commit);
        change[round] = microseconds() - start;

        sqlite3_exec(db, reopen, NULL, NULL, NULL);
        if (round % 500 == 499) sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    }
    printf("rounds %d: floor (4 KiB written and flushed) %.1f µs, a Pause with only its durable work %.1f µs\n",
           rounds, median(flush, rounds), median(change, rounds));
    sqlite3_close(db);
    return 0;
}
