#include <sys/timerfd.h>
#include <time.h>
#include <poll.h>
