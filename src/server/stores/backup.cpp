// Backups of the SQLite store: SQLite's online backup into a new file, checked
// before it is named; a restore checks the file, keeps the database it
// replaces, and moves the copy in with a rename.
#include "server/stores/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "server/stores/store.h"

namespace makruk::server {

namespace fs = std::filesystem;

namespace {

// A connection closed when it goes.
struct Db {
  sqlite3* db = nullptr;
  ~Db() { sqlite3_close(db); }
  bool open(const std::string& path, int flags, std::string* error) {
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(db, 5000);
      return true;
    }
    *error = "cannot open '" + path + "': " + (db ? sqlite3_errmsg(db) : "out of memory");
    return false;
  }
  // The first column of the first row of `sql`, as text ("" when none or on error).
  std::string one(const char* sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(st, 0);
      if (text) out = reinterpret_cast<const char*>(text);
    }
    sqlite3_finalize(st);
    return out;
  }
};

// Whether the database at `path` is sound and one this server reads: its
// integrity, a schema no newer than ours, and the tables' counts.
bool check(const std::string& path, BackupFigures* figures, std::string* error) {
  Db db;
  if (!db.open(path, SQLITE_OPEN_READONLY, error)) return false;
  const std::string integrity = db.one("PRAGMA integrity_check");
  if (integrity != "ok") {
    *error = "'" + path + "' is not a sound SQLite database" + (integrity.empty() ? "" : ": " + integrity);
    return false;
  }
  const std::string version = db.one("SELECT MAX(version) FROM schema_version");
  if (version.empty()) {
    *error = "'" + path + "' is not a makruk database (no schema version)";
    return false;
  }
  if (std::stoll(version) > sqlite_schema_version()) {
    *error = "'" + path + "' has a newer schema (version " + version + ") than this server's (" +
             std::to_string(sqlite_schema_version()) + ")";
    return false;
  }
  if (figures) {
    auto count = [&](const char* sql) {
      const std::string n = db.one(sql);
      return n.empty() ? int64_t(0) : std::stoll(n);
    };
    figures->tables = count("SELECT COUNT(*) FROM parties");
    figures->games = count("SELECT COUNT(*) FROM games");
    figures->actions = count("SELECT COUNT(*) FROM actions");
    std::error_code ec;
    figures->bytes = int64_t(fs::file_size(path, ec));
  }
  return true;
}

// Flushes a file (or a folder's entries) to the disk.
bool sync_path(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

std::string now_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace

bool backup_sqlite(const std::string& data_dir, const std::string& to, BackupFigures* figures, std::string* error) {
  const fs::path from = fs::path(data_dir) / "makruk.db";
  std::error_code ec;
  if (!fs::exists(from, ec)) {
    *error = "no database in '" + data_dir + "' (makruk.db)";
    return false;
  }
  if (fs::exists(to, ec)) {
    *error = "'" + to + "' exists: a backup never overwrites a file";
    return false;
  }
  const std::string partial = to + ".partial";
  fs::remove(partial, ec);
  {
    Db source, target;
    // Read-write, as a WAL database's reader needs its shared memory; nothing is written.
    if (!source.open(from, SQLITE_OPEN_READWRITE, error)) return false;
    if (!target.open(partial, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, error)) return false;
    sqlite3_backup* b = sqlite3_backup_init(target.db, "main", source.db, "main");
    if (!b) {
      *error = std::string("cannot back up: ") + sqlite3_errmsg(target.db);
      fs::remove(partial, ec);
      return false;
    }
    // All pages in one step: one read transaction, so one consistent snapshot
    // (a writer goes on meanwhile: WAL lets it).
    int rc;
    while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(50);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
      *error = std::string("the backup stopped: ") + sqlite3_errstr(rc);
      fs::remove(partial, ec);
      return false;
    }
    // A file on its own: no write-ahead log beside it.
    sqlite3_exec(target.db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
  }
  if (!check(partial, figures, error) || !sync_path(partial)) {
    if (error->empty()) *error = "cannot write '" + partial + "' to the disk";
    fs::remove(partial, ec);
    return false;
  }
  fs::permissions(partial, fs::perms::owner_read | fs::perms::owner_write, ec);  // seat tokens, push secrets
  // Named only once whole; a name taken meanwhile is not overwritten.
  if (::link(partial.c_str(), to.c_str()) != 0) {
    *error = "cannot name the backup '" + to + "': " + std::error_code(errno, std::generic_category()).message();
    fs::remove(partial, ec);
    return false;
  }
  fs::remove(partial, ec);
  sync_path(fs::absolute(to).parent_path());
  return true;
}

bool restore_sqlite(const std::string& from, const std::string& data_dir, BackupFigures* figures,
                    std::string* error) {
  if (!check(from, figures, error)) return false;
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  DataFolderLock lock(data_dir);
  if (!lock.held()) {
    *error = "a server is running on '" + data_dir + "': stop it first";
    return false;
  }
  const fs::path db = fs::path(data_dir) / "makruk.db";
  const fs::path incoming = fs::path(data_dir) / "makruk.db.restoring";
  fs::remove(incoming, ec);
  if (!fs::copy_file(from, incoming, ec) || !sync_path(incoming)) {
    *error = "cannot copy '" + from + "' into '" + data_dir + "': " + ec.message();
    fs::remove(incoming, ec);
    return false;
  }
  fs::permissions(incoming, fs::perms::owner_read | fs::perms::owner_write, ec);
  fs::path kept;
  if (fs::exists(db, ec)) {
    // The database replaced, whole: its write-ahead log folded in first.
    {
      Db old;
      if (!old.open(db, SQLITE_OPEN_READWRITE, error) ||
          sqlite3_exec(old.db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr) != SQLITE_OK) {
        if (error->empty()) *error = std::string("cannot close the database's log: ") + sqlite3_errmsg(old.db);
        fs::remove(incoming, ec);
        return false;
      }
    }
    kept = fs::path(data_dir) / ("makruk.db.replaced-" + now_stamp());
    fs::rename(db, kept, ec);
    if (ec) {
      kept.clear();
      *error = "cannot set the database aside: " + ec.message();
      fs::remove(incoming, ec);
      return false;
    }
  }
  for (const char* side : {"makruk.db-wal", "makruk.db-shm"}) fs::remove(fs::path(data_dir) / side, ec);
  fs::rename(incoming, db, ec);
  if (ec) {
    *error = "cannot put the backup in place: " + ec.message();
    if (!kept.empty()) fs::rename(kept, db, ec);  // the database as it was
    fs::remove(incoming, ec);
    return false;
  }
  sync_path(fs::path(data_dir));
  return true;
}

DataFolderLock::DataFolderLock(const std::string& data_dir) {
  const std::string path = (fs::path(data_dir) / "makruk.lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

DataFolderLock::~DataFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace makruk::server
