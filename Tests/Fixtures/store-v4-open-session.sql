-- A store as Time wrote it at schema version 4 (notes and exact segments, an open session, no away
-- spans): the fixture of AwayTests' migration test, written with the sqlite3 command line.
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
INSERT INTO meta VALUES('longest_span', '7200');
INSERT INTO meta VALUES('last_session_id', '3');
INSERT INTO categories VALUES(1, 'Work', 'work');
INSERT INTO projects VALUES(1, 'Writing', 'writing', '#3366cc', 1, 0);
INSERT INTO projects VALUES(2, 'Reading', 'reading', '#dc3912', NULL, 0);
INSERT INTO sessions VALUES(1, 1, 1794000000, 1794007200, 0, 'drafting');
INSERT INTO segments VALUES(1, 1, 1794000000, 1794003600);
INSERT INTO segments VALUES(2, 1, 1794005400, 1794007200);
INSERT INTO sessions VALUES(2, 2, 1794100000, 1794103600, 1800, 'legacy total');
INSERT INTO sessions VALUES(3, 1, 1794989400, NULL, 0, 'open');
INSERT INTO segments VALUES(3, 3, 1794989400, 1794989700);
INSERT INTO segments VALUES(4, 3, 1794990000, NULL);
PRAGMA user_version = 4;
