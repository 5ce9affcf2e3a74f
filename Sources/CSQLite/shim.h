/* The session extension (changesets, used for undo) is declared only with these defined;
   Debian's libsqlite3 is built with both. */
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
