#include <sqlite3.h>

#include <mutex>

#include "server/stores/store.h"

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
};

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite prepare: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), int(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw std::runtime_error(std::string("sqlite step: ") + sqlite3_errmsg(sqlite3_db_handle(stmt_)));
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::string text(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

#define RECOMMENDATION_COLUMNS "id, code, seat, name, variant, stars, text, lang, hidden, created_at"
#define FEEDBACK_COLUMNS \
  "id, kind, text, name, table_code, lang, status, reply, hidden, created_at, replied_at"

FeedbackRecord feedback_row(const Statement& q) {
  return FeedbackRecord{q.integer(0), q.text(1), q.text(2),        q.text(3),     q.text(4),    q.text(5),
                        q.text(6),    q.text(7), q.integer(8) != 0, q.integer(9), q.integer(10)};
}

class SqliteStore final : public Store {
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
  ~SqliteStore() override { sqlite3_close(db_); }

  // Group commit: the writes of a batch share one transaction and one commit
  // (the disk's flush, with --sqlite-full-sync).
  void in_one_commit(const std::vector<std::function<void()>>& pieces,
                     std::vector<std::exception_ptr>& outcomes) override {
    {
      std::lock_guard lock(mutex_);
      exec("BEGIN IMMEDIATE");
      in_batch_ = true;
    }
    Store::in_one_commit(pieces, outcomes);
    std::lock_guard lock(mutex_);
    in_batch_ = false;
    // Some failures (a full disk) end the whole transaction at once.
    if (sqlite3_get_autocommit(db_)) throw std::runtime_error("sqlite: the batch's transaction was rolled back");
    try {
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  void create_table(const TableRecord& p, const SeatRecord& host) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    Statement(db_,
              "INSERT INTO parties (code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, "
              "start_fen, mode, starts_at, expired_at, rematch_offer, invite_key, last_action_at) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?8)")
        .bind(1, p.code).bind(2, p.variant).bind(3, p.counting).bind(4, int64_t(p.show_legal))
        .bind(5, int64_t(p.swap_colors)).bind(6, int64_t(p.labels)).bind(7, int64_t(p.cpu_level))
        .bind(8, p.created_at).bind(9, p.start_fen).bind(10, p.mode).bind(11, p.starts_at)
        .bind(12, p.expired_at).bind(13, int64_t(p.rematch_offer)).bind(14, p.invite_key).step();
    insert_seat(host);
    t.commit();
  }

  void set_rematch(const std::string& code, int offered_by, int declined_by) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE parties SET rematch_offer = ?1, rematch_declined_by = ?2 WHERE code = ?3")
        .bind(1, int64_t(offered_by))
        .bind(2, int64_t(declined_by))
        .bind(3, code)
        .step();
  }

  void add_seat(const SeatRecord& s) override {
    std::lock_guard lock(mutex_);
    insert_seat(s);
  }

  void rename_seat(const std::string& code, int seat, const std::string& name) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE seats SET name = ?1 WHERE code = ?2 AND seat = ?3")
        .bind(1, name).bind(2, code).bind(3, int64_t(seat)).step();
  }

  int64_t create_game(const std::string& code, int number, int white_seat, const std::string& start_fen,
                      int64_t at, bool cpu_to_act, const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    Statement(db_,
              "INSERT INTO games (code, number, white_seat, start_fen, created_at, public_id) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .bind(1, code).bind(2, int64_t(number)).bind(3, int64_t(white_seat)).bind(4, start_fen).bind(5, at)
        .bind(6, public_id)
        .step();
    int64_t id = sqlite3_last_insert_rowid(db_);
    Statement(db_, "UPDATE parties SET last_action_at = ?1, cpu_turn = ?2, cpu_lease_until = 0 WHERE code = ?3")
        .bind(1, at).bind(2, int64_t(cpu_to_act)).bind(3, code).step();
    t.commit();
    return id;
  }

  void append_action(int64_t game, int expected_version, const std::string& action, int64_t at,
                     bool cpu_to_act) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    insert_action(game, expected_version, action, at);
    Statement(db_, "UPDATE parties SET last_action_at = ?1, cpu_turn = ?2, cpu_lease_until = 0 WHERE code = "
                   "(SELECT code FROM games WHERE id = ?3)")
        .bind(1, at).bind(2, int64_t(cpu_to_act)).bind(3, game).step();
    t.commit();
  }

  bool claim_cpu_turn(const std::string& code, int64_t now, int64_t until) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE parties SET cpu_lease_until = ?1 WHERE code = ?2 AND cpu_turn = 1 AND cpu_lease_until <= ?3")
        .bind(1, until).bind(2, code).bind(3, now).step();
    return sqlite3_changes(db_) == 1;
  }

  void clear_cpu_turn(const std::string& code) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE parties SET cpu_turn = 0 WHERE code = ?1").bind(1, code).step();
  }

  void set_left_at(const std::string& code, int64_t at) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE parties SET left_at = ?1 WHERE code = ?2").bind(1, at).bind(2, code).step();
  }

  std::vector<std::string> cpu_turn_tables(int64_t now, int limit) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, "SELECT code FROM parties WHERE cpu_turn = 1 AND cpu_lease_until <= ?1 LIMIT ?2");
    q.bind(1, now).bind(2, int64_t(limit));
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    return out;
  }

  std::vector<std::string> turn_based_idle_since(int64_t idle_since, int limit) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, "SELECT code FROM parties WHERE mode = 'turn' AND expired_at = 0 AND last_action_at <= ?1 "
                     "AND starts_at <= ?1 LIMIT ?2");
    q.bind(1, idle_since).bind(2, int64_t(limit));
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    return out;
  }

  void expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    if (game) insert_action(game, expected_version, "expire", at);
    Statement(db_, "UPDATE parties SET expired_at = ?1, cpu_turn = 0 WHERE code = ?2 AND expired_at = 0")
        .bind(1, at).bind(2, code).step();
    if (sqlite3_changes(db_) == 0) throw VersionConflict("table " + code + " has ended already");
    t.commit();
  }

  void add_subscription(const SubscriptionRecord& r) override {
    std::lock_guard lock(mutex_);
    Statement(db_,
              "INSERT INTO push_subscriptions VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (endpoint, code, seat) "
              "DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, lang = excluded.lang, "
              "created_at = excluded.created_at")
        .bind(1, r.endpoint).bind(2, r.code).bind(3, int64_t(r.seat)).bind(4, r.p256dh).bind(5, r.auth)
        .bind(6, r.lang).bind(7, r.created_at).step();
  }

  int remove_subscription(const std::string& endpoint) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "DELETE FROM push_subscriptions WHERE endpoint = ?1").bind(1, endpoint).step();
    return sqlite3_changes(db_);
  }

  void remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "DELETE FROM push_subscriptions WHERE endpoint = ?1 AND code = ?2 AND seat = ?3")
        .bind(1, endpoint)
        .bind(2, code)
        .bind(3, int64_t(seat))
        .step();
  }

  std::vector<SubscriptionRecord> load_subscriptions(const std::string& code) override {
    std::lock_guard lock(mutex_);
    std::vector<SubscriptionRecord> out;
    Statement q(db_, "SELECT endpoint, code, seat, p256dh, auth, lang, created_at FROM push_subscriptions "
                     "WHERE code = ?1 ORDER BY seat, created_at");
    q.bind(1, code);
    while (q.step())
      out.push_back({q.text(0), q.text(1), int(q.integer(2)), q.text(3), q.text(4), q.text(5), q.integer(6)});
    return out;
  }

  void add_feedback(FeedbackRecord& f) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "INSERT INTO feedback (kind, text, name, table_code, lang, status, reply, hidden, created_at, "
                   "replied_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
        .bind(1, f.kind).bind(2, f.text).bind(3, f.name).bind(4, f.table).bind(5, f.lang).bind(6, f.status)
        .bind(7, f.reply).bind(8, int64_t(f.hidden)).bind(9, f.created_at).bind(10, f.replied_at).step();
    f.id = sqlite3_last_insert_rowid(db_);
  }

  void update_feedback(const FeedbackRecord& f) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE feedback SET status = ?1, reply = ?2, hidden = ?3, replied_at = ?4 WHERE id = ?5")
        .bind(1, f.status).bind(2, f.reply).bind(3, int64_t(f.hidden)).bind(4, f.replied_at).bind(5, f.id).step();
  }

  std::vector<FeedbackRecord> list_feedback(bool with_hidden, int limit) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, with_hidden ? "SELECT " FEEDBACK_COLUMNS " FROM feedback ORDER BY id DESC LIMIT ?1"
                                 : "SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE hidden = 0 ORDER BY id DESC LIMIT ?1");
    q.bind(1, int64_t(limit));
    std::vector<FeedbackRecord> out;
    while (q.step()) out.push_back(feedback_row(q));
    return out;
  }

  std::optional<FeedbackRecord> find_feedback(int64_t id) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, "SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE id = ?1");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    return feedback_row(q);
  }

  void put_recommendation(RecommendationRecord& r) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    Statement(db_, "DELETE FROM recommendations WHERE code = ?1 AND seat = ?2").bind(1, r.code).bind(2, int64_t(r.seat)).step();
    Statement(db_, "INSERT INTO recommendations (code, seat, name, variant, stars, text, lang, hidden, created_at) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
        .bind(1, r.code).bind(2, int64_t(r.seat)).bind(3, r.name).bind(4, r.variant).bind(5, int64_t(r.stars))
        .bind(6, r.text).bind(7, r.lang).bind(8, int64_t(r.hidden)).bind(9, r.created_at).step();
    r.id = sqlite3_last_insert_rowid(db_);
    t.commit();
  }

  bool hide_recommendation(int64_t id, bool hidden) override {
    std::lock_guard lock(mutex_);
    Statement(db_, "UPDATE recommendations SET hidden = ?1 WHERE id = ?2").bind(1, int64_t(hidden)).bind(2, id).step();
    return sqlite3_changes(db_) > 0;
  }

  std::vector<RecommendationRecord> list_recommendations(bool with_hidden, int limit) override {
    std::lock_guard lock(mutex_);
    Statement q(db_, with_hidden ? "SELECT " RECOMMENDATION_COLUMNS " FROM recommendations ORDER BY id DESC LIMIT ?1"
                                 : "SELECT " RECOMMENDATION_COLUMNS
                                   " FROM recommendations WHERE hidden = 0 ORDER BY id DESC LIMIT ?1");
    q.bind(1, int64_t(limit));
    std::vector<RecommendationRecord> out;
    while (q.step())
      out.push_back(RecommendationRecord{q.integer(0), q.text(1), int(q.integer(2)), q.text(3), q.text(4),
                                         int(q.integer(5)), q.text(6), q.text(7), q.integer(8) != 0, q.integer(9)});
    return out;
  }

  bool table_exists(const std::string& code) override {
    std::lock_guard lock(mutex_);
    Statement s(db_, "SELECT 1 FROM parties WHERE code = ?1");
    return s.bind(1, code).step();
  }

  std::optional<TableData> load_table(const std::string& code) override {
    std::lock_guard lock(mutex_);
    return load(code, 0);
  }

  std::optional<TableData> load_game(const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    Statement game(db_, "SELECT code, id FROM games WHERE public_id = ?1");
    if (public_id.empty() || !game.bind(1, public_id).step()) return std::nullopt;
    return load(game.text(0), game.integer(1));
  }

  std::optional<GameHead> game_head(const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    Statement game(db_, "SELECT id, code, (SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = games.id) "
                        "FROM games WHERE public_id = ?1");
    if (public_id.empty() || !game.bind(1, public_id).step()) return std::nullopt;
    GameHead head{game.integer(0), int(game.integer(2)), {}};
    Statement seats(db_, "SELECT name FROM seats WHERE code = ?1 ORDER BY seat");
    seats.bind(1, game.text(1));
    while (seats.step()) head.names.push_back(seats.text(0));
    return head;
  }

 private:
  // A table with its seats and one game: `game`, or (0) its latest. The lock held.
  std::optional<TableData> load(const std::string& code, int64_t game) {
    Statement parties(db_,
                      "SELECT code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, start_fen, "
                      "mode, starts_at, expired_at, rematch_offer, invite_key, left_at, rematch_declined_by FROM parties "
                      "WHERE code = ?1");
    parties.bind(1, code);
    if (!parties.step()) return std::nullopt;
    TableData d;
    d.party = {parties.text(0), parties.text(1), parties.text(2), parties.integer(3) != 0,
               parties.integer(4) != 0, parties.integer(5) != 0, int(parties.integer(6)), parties.integer(7),
               parties.text(8), parties.text(9), parties.integer(10), parties.integer(11),
               int(parties.integer(12)), parties.text(13), parties.integer(14), int(parties.integer(15))};
    Statement seats(db_, "SELECT seat, name, token_hash FROM seats WHERE code = ?1 ORDER BY seat");
    seats.bind(1, code);
    while (seats.step()) d.seats.push_back({code, int(seats.integer(0)), seats.text(1), seats.text(2)});
    Statement games(db_, "SELECT id, number, white_seat, start_fen, created_at, public_id FROM games WHERE code = ?1 "
                         "AND (?2 = 0 OR id = ?2) ORDER BY number DESC LIMIT 1");
    games.bind(1, code).bind(2, game);
    if (games.step()) {
      GameRecord g{games.integer(0), code, int(games.integer(1)), int(games.integer(2)), games.text(3), {},
                   games.integer(4), games.text(5)};
      Statement actions(db_, "SELECT version, action, at FROM actions WHERE game = ?1 ORDER BY version");
      actions.bind(1, g.id);
      while (actions.step()) g.actions.push_back({int(actions.integer(0)), actions.text(1), actions.integer(2)});
      d.games.push_back(std::move(g));
    }
    return d;
  }

  // A method's transaction; inside in_one_commit, a savepoint of the batch's
  // transaction, so that the method still succeeds or fails alone.
  struct Transaction {
    SqliteStore& s;
    bool done = false;
    explicit Transaction(SqliteStore& st) : s(st) { s.exec(s.in_batch_ ? "SAVEPOINT method" : "BEGIN IMMEDIATE"); }
    void commit() {
      s.exec(s.in_batch_ ? "RELEASE method" : "COMMIT");
      done = true;
    }
    ~Transaction() {
      if (done) return;
      sqlite3_exec(s.db_, s.in_batch_ ? "ROLLBACK TO method; RELEASE method" : "ROLLBACK", nullptr, nullptr, nullptr);
    }
  };

  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw std::runtime_error("sqlite: " + msg);
    }
  }

  // Inside a transaction, with the lock held.
  void insert_action(int64_t game, int expected_version, const std::string& action, int64_t at) {
    int64_t have;
    {
      Statement last(db_, "SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = ?1");
      last.bind(1, game).step();
      have = last.integer(0);
    }
    if (have != expected_version)
      throw VersionConflict("game " + std::to_string(game) + " is at version " + std::to_string(have) +
                            ", not " + std::to_string(expected_version));
    Statement(db_, "INSERT INTO actions VALUES (?1, ?2, ?3, ?4)")
        .bind(1, game).bind(2, int64_t(expected_version + 1)).bind(3, action).bind(4, at).step();
  }

  void insert_seat(const SeatRecord& s) {
    Statement(db_, "INSERT INTO seats VALUES (?1, ?2, ?3, ?4)")
        .bind(1, s.code).bind(2, int64_t(s.seat)).bind(3, s.name).bind(4, s.token_hash).step();
  }

  void migrate() {
    exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    int64_t have;
    {
      Statement q(db_, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
      q.step();
      have = q.integer(0);
    }
    constexpr int64_t want = int64_t(sizeof MIGRATIONS / sizeof MIGRATIONS[0]);
    for (int64_t v = have; v < want; ++v) {
      Transaction t(*this);
      exec(MIGRATIONS[v]);
      Statement(db_, "INSERT INTO schema_version VALUES (?1)").bind(1, v + 1).step();
      t.commit();
    }
  }

  sqlite3* db_ = nullptr;
  bool in_batch_ = false;  // inside in_one_commit (the lock guards it)
  std::mutex mutex_;
};

}  // namespace

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
