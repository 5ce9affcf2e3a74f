// TimeCore's snapshots and reports are written with the JSON value that timectl shares;
// re-exported so that TimeCore's clients keep seeing `JSON` without importing TimeJSON.
@_exported import TimeJSON
