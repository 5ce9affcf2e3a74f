#include <libnotify/notify.h>
