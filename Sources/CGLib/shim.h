#include <glib.h>
#include <glib-object.h>
#include <glib-unix.h>
