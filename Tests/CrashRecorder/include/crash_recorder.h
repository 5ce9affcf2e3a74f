/* The crash recorder is loaded with LD_PRELOAD; it has no API of its own. */
#ifndef TIME_CRASH_RECORDER_H
#define TIME_CRASH_RECORDER_H
int time_crash_recorder_loaded(void);
unsigned long time_crash_recorder_flushes(void);
#endif
