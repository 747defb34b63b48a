// Backing up and restoring the SQLite store (`makruk backup`, `makruk restore`),
// and the lock that keeps one server on a data folder. PostgreSQL is backed up
// with its own tools (pg_dump, pg_restore: docs/deploy.md).
#pragma once

#include <cstdint>
#include <string>

namespace makruk::server {

// What a backup holds.
struct BackupFigures {
  int64_t bytes = 0;
  int64_t tables = 0;   // the players' tables (parties)
  int64_t games = 0;
  int64_t actions = 0;  // moves and the other actions, every game together
};

// Copies the database of `data_dir` (its makruk.db) into a new file `to`,
// while a server may be writing it: SQLite's online backup, a consistent
// snapshot of every commit made before it began (and perhaps some after).
// The copy is checked (integrity, the schema) before it is given its name;
// an existing `to` is never overwritten. False, with the reason in `error`.
bool backup_sqlite(const std::string& data_dir, const std::string& to, BackupFigures* figures, std::string* error);

// Puts the backup `from` in place of the database of `data_dir`, after
// checking it (integrity, a schema this server reads). Refused while a server
// holds the folder (DataFolderLock). The database replaced, if any, is kept
// beside it as makruk.db.replaced-TIME. False, changing nothing, with the
// reason in `error`.
bool restore_sqlite(const std::string& from, const std::string& data_dir, BackupFigures* figures,
                    std::string* error);

// A lock on a data folder (its file makruk.lock) held for an object's life:
// one server per SQLite data folder, and no restore under a running server.
// The operating system lets it go when the process ends, however it ends.
class DataFolderLock {
 public:
  // Takes the lock without waiting; held() says whether it was had.
  explicit DataFolderLock(const std::string& data_dir);
  ~DataFolderLock();
  DataFolderLock(const DataFolderLock&) = delete;
  DataFolderLock& operator=(const DataFolderLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace makruk::server
