-- A store as Time wrote it at schema version 4 (exact segments, no undo history): the fixture for
-- scripts/test-schema-migration.sh, written with the sqlite3 command line.
PRAGMA journal_mode = WAL;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE categories(id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE);
CREATE TABLE projects(id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL UNIQUE, color TEXT NOT NULL,
    category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL, archived INTEGER NOT NULL DEFAULT 0);
CREATE TABLE sessions(id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES projects(id), start INTEGER NOT NULL,
    end INTEGER, unrecorded_seconds INTEGER NOT NULL DEFAULT 0, note TEXT NOT NULL DEFAULT '');
CREATE INDEX sessions_by_start ON sessions(start);
CREATE TABLE segments(id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    start INTEGER NOT NULL, end INTEGER);
CREATE INDEX segments_by_session ON segments(session_id, start);
CREATE INDEX sessions_open ON sessions(end) WHERE end IS NULL;
INSERT INTO meta VALUES('reminder_minutes', '45');
INSERT INTO meta VALUES('longest_span', '5400');
INSERT INTO meta VALUES('last_session_id', '4');
INSERT INTO categories VALUES(1, 'Work', 'work');
INSERT INTO projects VALUES(1, 'Writing', 'writing', '#3366cc', 1, 0);
INSERT INTO projects VALUES(2, 'Reading', 'reading', '#dc3912', NULL, 0);
INSERT INTO projects VALUES(3, 'Écriture', 'écriture', '#ff9900', NULL, 1);
INSERT INTO sessions VALUES(1, 1, 1794000000, 1794005400, 5400, 'drafting, line one' || char(10) || 'line two');
INSERT INTO sessions VALUES(2, 2, 1794100000, 1794103600, 1800, '');
INSERT INTO sessions VALUES(3, 3, 1794200000, 1794200000, 0, 'zero seconds');
INSERT INTO sessions VALUES(4, 1, 1794989400, NULL, 600, 'open');
INSERT INTO segments VALUES(1, 4, 1794990000, NULL);
PRAGMA user_version = 4;
