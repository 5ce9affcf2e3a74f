PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE activities(id integer primary key, name varchar2(500), work integer, activity_order integer, deleted integer, category_id integer, search_name varchar2);
INSERT INTO activities VALUES(1,'Writing',NULL,NULL,NULL,1,'writing');
INSERT INTO activities VALUES(2,'Client, "Big"',NULL,NULL,NULL,-1,'client, "big"');
INSERT INTO activities VALUES(3,'Night',NULL,NULL,NULL,-1,'night');
INSERT INTO activities VALUES(4,'Spring',NULL,NULL,NULL,-1,'spring');
INSERT INTO activities VALUES(5,'Running',NULL,NULL,NULL,-1,'running');
CREATE TABLE version(version integer);
INSERT INTO version VALUES(9);
CREATE TABLE categories
                                            (id integer primary key,
                                             name varchar2(500),
                                             color_code varchar2(50),
                                             category_order integer, search_name varchar2);
INSERT INTO categories VALUES(1,'Work',NULL,NULL,'work');
CREATE TABLE tags (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
                                               name TEXT NOT NULL,
                                               autocomplete BOOL DEFAULT true);
INSERT INTO tags VALUES(1,'tag with space',1);
INSERT INTO tags VALUES(2,'draft',1);
CREATE TABLE fact_tags(fact_id integer, tag_id integer);
INSERT INTO fact_tags VALUES(1,2);
INSERT INTO fact_tags VALUES(1,1);
CREATE TABLE IF NOT EXISTS "facts" (id integer primary key autoincrement,
                                                          activity_id integer,
                                                          start_time timestamp,
                                                          end_time timestamp,
                                                          description varchar2);
INSERT INTO facts VALUES(1,1,'2025-11-24 22:00:00','2025-11-25 01:30:00',replace('Draft, "chapter 2"\nsecond line','\n',char(10)));
INSERT INTO facts VALUES(2,2,'2025-11-25 09:00:00','2025-11-25 10:15:00','');
INSERT INTO facts VALUES(4,1,'2025-11-27 14:00:00','2025-11-27 15:30:00','');
INSERT INTO facts VALUES(5,3,'2025-10-26 01:30:00','2025-10-26 02:30:00','');
INSERT INTO facts VALUES(6,3,'2025-10-26 02:40:00','2025-10-26 03:40:00','');
INSERT INTO facts VALUES(7,4,'2025-03-30 02:30:00','2025-03-30 04:00:00','');
INSERT INTO facts VALUES(8,5,'2025-11-28 09:00:00',NULL,'');
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','fact_index','fact_index',0,'CREATE VIRTUAL TABLE fact_index
                                           USING fts3(id, name, category, description, tag)');
CREATE TABLE IF NOT EXISTS 'fact_index_content'(docid INTEGER PRIMARY KEY, 'c0id', 'c1name', 'c2category', 'c3description', 'c4tag');
CREATE TABLE IF NOT EXISTS 'fact_index_segments'(blockid INTEGER PRIMARY KEY, block BLOB);
CREATE TABLE IF NOT EXISTS 'fact_index_segdir'(level INTEGER,idx INTEGER,start_block INTEGER,leaves_end_block INTEGER,end_block INTEGER,root BLOB,PRIMARY KEY(level, idx));
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('facts',8);
INSERT INTO sqlite_sequence VALUES('tags',2);
CREATE INDEX idx_tags_name ON tags(name);
CREATE INDEX idx_fact_tags_fact ON fact_tags(fact_id);
CREATE INDEX idx_fact_tags_tag ON fact_tags(tag_id);
PRAGMA writable_schema=OFF;
COMMIT;
