// The Store on SQLite (the default, embedded): the connection, its prepared
// statements, the migrations and batches; the methods are SqlStore's.
#include <sqlite3.h>

#include <map>

#include "server/stores/sql_store.h"

namespace makruk::server {

namespace {

// Versioned schema; each step runs once, in order, inside a transaction.
constexpr const char* MIGRATIONS[] = {
    R"sql(
    CREATE TABLE parties (
      code TEXT PRIMARY KEY,
      variant TEXT NOT NULL,
      counting TEXT NOT NULL,
      show_legal INTEGER NOT NULL,
      swap_colors INTEGER NOT NULL,
      labels INTEGER NOT NULL,
      cpu_level INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      start_fen TEXT NOT NULL
    );
    CREATE TABLE seats (
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      name TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      PRIMARY KEY (code, seat)
    );
    CREATE TABLE games (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      code TEXT NOT NULL REFERENCES parties(code),
      number INTEGER NOT NULL,
      white_seat INTEGER NOT NULL,
      start_fen TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (code, number)
    );
    CREATE TABLE actions (
      game INTEGER NOT NULL REFERENCES games(id),
      version INTEGER NOT NULL,
      action TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (game, version)
    );
    )sql",
    // 2: turn-based tables, scheduled starts, Web Push subscriptions.
    R"sql(
    ALTER TABLE parties ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
    ALTER TABLE parties ADD COLUMN starts_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE parties ADD COLUMN expired_at INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE push_subscriptions (
      endpoint TEXT NOT NULL,
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      p256dh TEXT NOT NULL,
      auth TEXT NOT NULL,
      lang TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (endpoint, code, seat)
    );
    CREATE INDEX push_subscriptions_by_code ON push_subscriptions(code);
    )sql",
    // 3: rematch offers, and invite keys (tables made before get one now).
    R"sql(
    ALTER TABLE parties ADD COLUMN rematch_offer INTEGER NOT NULL DEFAULT -1;
    ALTER TABLE parties ADD COLUMN invite_key TEXT NOT NULL DEFAULT '';
    UPDATE parties SET invite_key = lower(hex(randomblob(8)));
    )sql",
    // 4: the public feedback board.
    R"sql(
    CREATE TABLE feedback (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      kind TEXT NOT NULL,
      text TEXT NOT NULL,
      name TEXT NOT NULL,
      table_code TEXT NOT NULL,
      lang TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'new',
      reply TEXT NOT NULL DEFAULT '',
      hidden INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      replied_at INTEGER NOT NULL DEFAULT 0
    );
    )sql",
    // 5: recommendations written after a game.
    R"sql(
    CREATE TABLE recommendations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      name TEXT NOT NULL,
      variant TEXT NOT NULL,
      stars INTEGER NOT NULL,
      text TEXT NOT NULL,
      lang TEXT NOT NULL,
      hidden INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (code, seat)
    );
    )sql",
    // 6: tables are read when opened. What the server does unasked comes from
    // indexed columns: the last action (turn-based expiry), whether the CPU
    // must act (after a restart), and when a live table was left.
    R"sql(
    ALTER TABLE parties ADD COLUMN last_action_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE parties ADD COLUMN cpu_turn INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE parties ADD COLUMN left_at INTEGER NOT NULL DEFAULT 0;
    UPDATE parties SET
      last_action_at = max(created_at,
        COALESCE((SELECT MAX(g.created_at) FROM games g WHERE g.code = parties.code), 0),
        COALESCE((SELECT MAX(a.at) FROM actions a JOIN games g ON a.game = g.id
                  WHERE g.code = parties.code AND a.action <> 'expire'), 0)),
      cpu_turn = (cpu_level > 0 AND expired_at = 0);
    CREATE INDEX parties_turn_based_due ON parties(mode, expired_at, last_action_at);
    CREATE INDEX parties_cpu_turn ON parties(cpu_turn) WHERE cpu_turn = 1;
    )sql",
    // 7: the lease of the instance searching a CPU turn.
    R"sql(
    ALTER TABLE parties ADD COLUMN cpu_lease_until INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 8: each game's own link (games played before get one now).
    R"sql(
    ALTER TABLE games ADD COLUMN public_id TEXT NOT NULL DEFAULT '';
    UPDATE games SET public_id = lower(hex(randomblob(6)));
    CREATE UNIQUE INDEX games_public_id ON games(public_id);
    )sql",
    // 9: a declined rematch is shown after a restart too.
    R"sql(
    ALTER TABLE parties ADD COLUMN rematch_declined_by INTEGER NOT NULL DEFAULT -1;
    )sql",
    // 10: the clock house rule.
    R"sql(
    ALTER TABLE parties ADD COLUMN clock_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE parties ADD COLUMN increment_ms INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 11: tournaments by code, their events, and the tables of their games.
    R"sql(
    CREATE TABLE tournaments (
      code TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      variant TEXT NOT NULL,
      counting TEXT NOT NULL,
      mode TEXT NOT NULL,
      format TEXT NOT NULL,
      rounds INTEGER NOT NULL,
      arena_ms INTEGER NOT NULL,
      clock_ms INTEGER NOT NULL,
      increment_ms INTEGER NOT NULL,
      host_hash TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE tournament_events (
      code TEXT NOT NULL REFERENCES tournaments(code),
      version INTEGER NOT NULL,
      event TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (code, version)
    );
    ALTER TABLE parties ADD COLUMN tournament TEXT NOT NULL DEFAULT '';
    )sql",
};

// Parameters written $1, $2, … as SQLite's numbered ?1, ?2, ….
std::string numbered(std::string_view sql) {
  std::string out(sql);
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i] == '$' && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '?';
  return out;
}

class SqliteStore final : public SqlStore {
 public:
  SqliteStore(const std::string& path, bool full_sync) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error("cannot open database '" + path + "': " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    // WAL with synchronous=NORMAL: a committed action survives the process
    // being killed; only an operating-system crash or a power loss may undo
    // the last commits (never corrupt the database). FULL syncs every commit.
    exec(full_sync ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
                   : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    migrate();
  }
  ~SqliteStore() override {
    for (auto& [sql, statement] : prepared_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }

  // Group commit: the writes of a batch share one transaction and one commit
  // (the disk's flush, with --sqlite-full-sync).
  void in_one_commit(const std::vector<std::function<void()>>& pieces,
                     std::vector<std::exception_ptr>& outcomes) override {
    {
      std::lock_guard lock(mutex_);
      exec("BEGIN IMMEDIATE");
      in_batch_ = in_transaction_ = true;
    }
    Store::in_one_commit(pieces, outcomes);
    std::lock_guard lock(mutex_);
    in_batch_ = in_transaction_ = false;
    // Some failures (a full disk) end the whole transaction at once.
    if (sqlite3_get_autocommit(db_)) throw std::runtime_error("sqlite: the batch's transaction was rolled back");
    try {
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

 private:
  // Each statement is prepared once and kept (by its text).
  sql::Rows run(std::string_view statement, const sql::Params& params) override {
    auto found = prepared_.find(statement);
    if (found == prepared_.end()) {
      sqlite3_stmt* prepared = nullptr;
      const std::string text = numbered(statement);
      if (sqlite3_prepare_v3(db_, text.c_str(), int(text.size()), SQLITE_PREPARE_PERSISTENT, &prepared, nullptr) !=
          SQLITE_OK)
        throw std::runtime_error(std::string("sqlite prepare: ") + sqlite3_errmsg(db_));
      found = prepared_.emplace(std::string(statement), prepared).first;
    }
    sqlite3_stmt* q = found->second;
    struct Reset {
      sqlite3_stmt* q;
      ~Reset() {
        sqlite3_reset(q);
        sqlite3_clear_bindings(q);
      }
    } reset{q};
    for (size_t i = 0; i < params.values.size(); ++i) {
      const int at = int(i) + 1;
      if (const auto* v = std::get_if<int64_t>(&params.values[i])) sqlite3_bind_int64(q, at, *v);
      else {
        const std::string& s = std::get<std::string>(params.values[i]);
        sqlite3_bind_text(q, at, s.data(), int(s.size()), SQLITE_STATIC);  // alive until the reset
      }
    }
    sql::Rows out;
    const int columns = sqlite3_column_count(q);
    for (;;) {
      const int rc = sqlite3_step(q);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) throw std::runtime_error(std::string("sqlite step: ") + sqlite3_errmsg(db_));
      auto& row = out.rows.emplace_back();
      row.reserve(size_t(columns));
      for (int c = 0; c < columns; ++c) {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(q, c));
        row.emplace_back(p ? std::string(p, size_t(sqlite3_column_bytes(q, c))) : std::string());
      }
    }
    out.affected = sqlite3_stmt_readonly(q) ? 0 : sqlite3_changes(db_);
    return out;
  }

  const char* begin_statement() const override { return "BEGIN IMMEDIATE"; }

  void roll_back(bool savepoint) override {
    sqlite3_exec(db_, savepoint ? "ROLLBACK TO method; RELEASE method" : "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw std::runtime_error("sqlite: " + msg);
    }
  }

  void migrate() {
    std::lock_guard lock(mutex_);
    exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const int64_t have = run("SELECT COALESCE(MAX(version), 0) FROM schema_version", {}).integer(0, 0);
    constexpr int64_t want = int64_t(sizeof MIGRATIONS / sizeof MIGRATIONS[0]);
    if (have > want)
      throw std::runtime_error("the database's schema (version " + std::to_string(have) +
                               ") is newer than this server's (" + std::to_string(want) + ")");
    for (int64_t v = have; v < want; ++v) {
      Transaction t(*this);
      exec(MIGRATIONS[v]);
      run("INSERT INTO schema_version VALUES ($1)", sql::Params()(v + 1));
      t.commit();
    }
  }

  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> prepared_;
};

}  // namespace

int64_t sqlite_schema_version() { return int64_t(sizeof MIGRATIONS / sizeof MIGRATIONS[0]); }

std::unique_ptr<Store> open_sqlite_store(const std::string& path, bool full_sync) {
  return std::make_unique<SqliteStore>(path, full_sync);
}

bool is_postgres_url(const std::string& url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

std::unique_ptr<Store> open_store(const std::string& url, const std::string& data_dir, bool sqlite_full_sync) {
  if (is_postgres_url(url)) return open_postgres_store(url);
  if (!url.empty()) throw std::runtime_error("--store must be a postgresql:// URL (or left out for SQLite)");
  return open_sqlite_store(data_dir + "/makruk.db", sqlite_full_sync);
}

}  // namespace makruk::server
