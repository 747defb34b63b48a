// The Store on PostgreSQL, through libpq: the same records and guarantees as
// the SQLite store, for several server instances sharing one database. Every
// call is one statement or one transaction on the instance's connection; a
// lost connection is re-opened on the next call (the call in progress fails
// with a retryable error).
#include <libpq-fe.h>

#include <mutex>

#include "server/stores/store.h"

namespace makruk::server {

namespace {

// Versioned schema; each step runs once, in order, inside a transaction that
// holds an advisory lock, so instances starting together migrate once.
constexpr const char* MIGRATIONS[] = {
    // 1: the schema of SQLite's migrations 1 to 6, in PostgreSQL's words.
    R"sql(
    CREATE TABLE parties (
      code TEXT PRIMARY KEY,
      variant TEXT NOT NULL,
      counting TEXT NOT NULL,
      show_legal INTEGER NOT NULL,
      swap_colors INTEGER NOT NULL,
      labels INTEGER NOT NULL,
      cpu_level INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      start_fen TEXT NOT NULL,
      mode TEXT NOT NULL DEFAULT 'live',
      starts_at BIGINT NOT NULL DEFAULT 0,
      expired_at BIGINT NOT NULL DEFAULT 0,
      rematch_offer INTEGER NOT NULL DEFAULT -1,
      invite_key TEXT NOT NULL DEFAULT '',
      last_action_at BIGINT NOT NULL DEFAULT 0,
      cpu_turn INTEGER NOT NULL DEFAULT 0,
      left_at BIGINT NOT NULL DEFAULT 0
    );
    CREATE INDEX parties_turn_based_due ON parties(mode, expired_at, last_action_at);
    CREATE INDEX parties_cpu_turn ON parties(cpu_turn) WHERE cpu_turn = 1;
    CREATE TABLE seats (
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      name TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      PRIMARY KEY (code, seat)
    );
    CREATE TABLE games (
      id BIGSERIAL PRIMARY KEY,
      code TEXT NOT NULL REFERENCES parties(code),
      number INTEGER NOT NULL,
      white_seat INTEGER NOT NULL,
      start_fen TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      UNIQUE (code, number)
    );
    CREATE TABLE actions (
      game BIGINT NOT NULL REFERENCES games(id),
      version INTEGER NOT NULL,
      action TEXT NOT NULL,
      at BIGINT NOT NULL,
      PRIMARY KEY (game, version)
    );
    CREATE TABLE push_subscriptions (
      endpoint TEXT NOT NULL,
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      p256dh TEXT NOT NULL,
      auth TEXT NOT NULL,
      lang TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (endpoint, code, seat)
    );
    CREATE INDEX push_subscriptions_by_code ON push_subscriptions(code);
    CREATE TABLE feedback (
      id BIGSERIAL PRIMARY KEY,
      kind TEXT NOT NULL,
      text TEXT NOT NULL,
      name TEXT NOT NULL,
      table_code TEXT NOT NULL,
      lang TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'new',
      reply TEXT NOT NULL DEFAULT '',
      hidden INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      replied_at BIGINT NOT NULL DEFAULT 0
    );
    CREATE TABLE recommendations (
      id BIGSERIAL PRIMARY KEY,
      code TEXT NOT NULL REFERENCES parties(code),
      seat INTEGER NOT NULL,
      name TEXT NOT NULL,
      variant TEXT NOT NULL,
      stars INTEGER NOT NULL,
      text TEXT NOT NULL,
      lang TEXT NOT NULL,
      hidden INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      UNIQUE (code, seat)
    );
    )sql",
    // 2: the lease of the instance searching a CPU turn.
    R"sql(
    ALTER TABLE parties ADD COLUMN cpu_lease_until BIGINT NOT NULL DEFAULT 0;
    )sql",
    // 3: each game's own link (games played before get one now).
    R"sql(
    ALTER TABLE games ADD COLUMN public_id TEXT NOT NULL DEFAULT '';
    UPDATE games SET public_id = substr(md5(random()::text || id::text), 1, 12);
    CREATE UNIQUE INDEX games_public_id ON games(public_id);
    )sql",
    // 4: a declined rematch is shown after a restart too.
    R"sql(
    ALTER TABLE parties ADD COLUMN rematch_declined_by INTEGER NOT NULL DEFAULT -1;
    )sql",
};

// An arbitrary key for the advisory lock that serialises migrations.
constexpr const char* MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(7305481)";

// A result that clears itself.
class Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result(const Result&) = delete;
  ~Result() { PQclear(r_); }
  PGresult* get() const { return r_; }
  std::string sql_state() const {
    const char* s = PQresultErrorField(r_, PG_DIAG_SQLSTATE);
    return s ? s : "";
  }
  int rows() const { return PQntuples(r_); }
  std::string text(int row, int col) const { return std::string(PQgetvalue(r_, row, col), size_t(PQgetlength(r_, row, col))); }
  int64_t integer(int row, int col) const { return std::stoll(PQgetvalue(r_, row, col)); }
  int64_t affected() const {
    const char* n = PQcmdTuples(r_);
    return *n ? std::stoll(n) : 0;
  }

 private:
  PGresult* r_;
};

// Parameters as text, in order ($1, $2, …).
struct Params {
  std::vector<std::string> values;
  Params& operator()(const std::string& s) {
    values.push_back(s);
    return *this;
  }
  Params& operator()(int64_t v) {
    values.push_back(std::to_string(v));
    return *this;
  }
};

#define RECOMMENDATION_COLUMNS "id, code, seat, name, variant, stars, text, lang, hidden, created_at"
#define FEEDBACK_COLUMNS \
  "id, kind, text, name, table_code, lang, status, reply, hidden, created_at, replied_at"

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(std::string conninfo) : conninfo_(std::move(conninfo)) {
    connect();
    migrate();
  }
  ~PostgresStore() override { PQfinish(db_); }

  void create_table(const TableRecord& p, const SeatRecord& host) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    run("INSERT INTO parties (code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, "
        "start_fen, mode, starts_at, expired_at, rematch_offer, invite_key, last_action_at) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $8)",
        Params()(p.code)(p.variant)(p.counting)(int64_t(p.show_legal))(int64_t(p.swap_colors))(int64_t(p.labels))(
            int64_t(p.cpu_level))(p.created_at)(p.start_fen)(p.mode)(p.starts_at)(p.expired_at)(
            int64_t(p.rematch_offer))(p.invite_key));
    insert_seat(host);
    t.commit();
  }

  void add_seat(const SeatRecord& s) override {
    std::lock_guard lock(mutex_);
    insert_seat(s);
  }

  void rename_seat(const std::string& code, int seat, const std::string& name) override {
    std::lock_guard lock(mutex_);
    run("UPDATE seats SET name = $1 WHERE code = $2 AND seat = $3", Params()(name)(code)(int64_t(seat)));
  }

  // Group commit: the writes of a batch share one transaction and one commit
  // (one flush of the log), and its actions go in one pipeline (libpq's
  // pipeline mode): a batch of actions costs one round trip, however many.
  // An action that finds its version taken changes nothing and raises no
  // error (ON CONFLICT), and the other methods are savepoints, so one write
  // refused does not end the others.
  void in_one_commit(const std::vector<std::function<void()>>& pieces,
                     std::vector<std::exception_ptr>& outcomes) override {
    {
      std::lock_guard lock(mutex_);
      if (PQstatus(db_) != CONNECTION_OK) connect();
      deferred_.clear();
      deferred_.push_back(Deferred{"BEGIN", {}, -1, 0, 0});
      in_transaction_ = in_batch_ = true;
      outcomes_ = &outcomes;
    }
    try {
      for (size_t i = 0; i < pieces.size(); ++i) {
        piece_ = int(i);
        try {
          pieces[i]();
        } catch (...) {
          outcomes[i] = std::current_exception();
        }
      }
      std::lock_guard lock(mutex_);
      in_batch_ = false;
      deferred_.push_back(Deferred{"COMMIT", {}, -1, 0, 0});
      flush_deferred();
      in_transaction_ = false;
      outcomes_ = nullptr;
    } catch (...) {
      std::lock_guard lock(mutex_);
      deferred_.clear();
      in_transaction_ = in_batch_ = false;
      outcomes_ = nullptr;
      if (PQstatus(db_) == CONNECTION_OK && PQtransactionStatus(db_) != PQTRANS_IDLE) PQclear(PQexec(db_, "ROLLBACK"));
      throw;
    }
  }

  void set_rematch(const std::string& code, int offered_by, int declined_by) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this, true);
    run("UPDATE parties SET rematch_offer = $1, rematch_declined_by = $2 WHERE code = $3",
        Params()(int64_t(offered_by))(int64_t(declined_by))(code));
    t.commit();
  }

  int64_t create_game(const std::string& code, int number, int white_seat, const std::string& start_fen, int64_t at,
                      bool cpu_to_act, const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this, true);
    // One statement: one round trip, one commit, both rows or neither.
    Result r = run("WITH added AS (INSERT INTO games (code, number, white_seat, start_fen, created_at, public_id) "
                   "VALUES ($1::text, $2::integer, $3::integer, $4::text, $5::bigint, $7::text) RETURNING id), "
                   "marked AS (UPDATE parties SET last_action_at = $5::bigint, cpu_turn = $6::integer, "
                   "cpu_lease_until = 0 WHERE code = $1::text) "
                   "SELECT id FROM added",
                   Params()(code)(int64_t(number))(int64_t(white_seat))(start_fen)(at)(int64_t(cpu_to_act))(public_id));
    t.commit();
    return r.integer(0, 0);
  }

  // One statement, so one round trip and one commit: the action goes in only
  // at the version after the last one, and the table's row changes only if
  // it did. Two instances appending at one version both pass the check at
  // most once: the second insert finds the (game, version) key taken and
  // inserts nothing (without an error, so a batch's transaction goes on).
  // Inside in_one_commit it waits for the batch's pipeline (its outcome
  // comes then).
  void append_action(int64_t game, int expected_version, const std::string& action, int64_t at,
                     bool cpu_to_act) override {
    std::lock_guard lock(mutex_);
    Params params = Params()(game)(int64_t(expected_version))(action)(at)(int64_t(cpu_to_act));
    if (in_batch_) {
      deferred_.push_back(Deferred{APPEND_ACTION, std::move(params), piece_, game, expected_version});
      return;
    }
    if (run(APPEND_ACTION, params).affected() == 0) throw version_taken(game, expected_version);
  }
  static constexpr const char* APPEND_ACTION =
      "WITH last AS (SELECT COALESCE(MAX(version), 0) AS v FROM actions WHERE game = $1::bigint), "
      "added AS (INSERT INTO actions SELECT $1::bigint, $2::integer + 1, $3::text, $4::bigint "
      "FROM last WHERE last.v = $2::integer ON CONFLICT DO NOTHING RETURNING game) "
      "UPDATE parties SET last_action_at = $4, cpu_turn = $5, cpu_lease_until = 0 "
      "WHERE code = (SELECT code FROM games WHERE id = $1) AND EXISTS (SELECT 1 FROM added)";
  static VersionConflict version_taken(int64_t game, int expected_version) {
    return VersionConflict("game " + std::to_string(game) + " is not at version " + std::to_string(expected_version));
  }

  void expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    if (game) insert_action(game, expected_version, "expire", at);
    if (run("UPDATE parties SET expired_at = $1, cpu_turn = 0 WHERE code = $2 AND expired_at = 0", Params()(at)(code))
            .affected() == 0)
      throw VersionConflict("table " + code + " has ended already");
    t.commit();
  }

  bool table_exists(const std::string& code) override {
    std::lock_guard lock(mutex_);
    return run("SELECT 1 FROM parties WHERE code = $1", Params()(code)).rows() > 0;
  }

  std::optional<TableData> load_table(const std::string& code) override {
    std::lock_guard lock(mutex_);
    return load(code, 0);
  }

  std::optional<TableData> load_game(const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    if (public_id.empty()) return std::nullopt;
    Result g = run("SELECT code, id FROM games WHERE public_id = $1", Params()(public_id));
    if (g.rows() == 0) return std::nullopt;
    return load(g.text(0, 0), g.integer(0, 1));
  }

  std::optional<GameHead> game_head(const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    if (public_id.empty()) return std::nullopt;
    Result g = run("SELECT id, code, (SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = games.id) "
                   "FROM games WHERE public_id = $1",
                   Params()(public_id));
    if (g.rows() == 0) return std::nullopt;
    GameHead head{g.integer(0, 0), int(g.integer(0, 2)), {}};
    Result seats = run("SELECT name FROM seats WHERE code = $1 ORDER BY seat", Params()(g.text(0, 1)));
    for (int i = 0; i < seats.rows(); ++i) head.names.push_back(seats.text(i, 0));
    return head;
  }

  // A table with its seats and one game: `game`, or (0) its latest. The lock held.
  std::optional<TableData> load(const std::string& code, int64_t game) {
    Result p = run("SELECT code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, start_fen, "
                   "mode, starts_at, expired_at, rematch_offer, invite_key, left_at, rematch_declined_by FROM parties "
                   "WHERE code = $1",
                   Params()(code));
    if (p.rows() == 0) return std::nullopt;
    TableData d;
    d.party = {p.text(0, 0),     p.text(0, 1),          p.text(0, 2),      p.integer(0, 3) != 0, p.integer(0, 4) != 0,
               p.integer(0, 5) != 0, int(p.integer(0, 6)), p.integer(0, 7), p.text(0, 8),         p.text(0, 9),
               p.integer(0, 10), p.integer(0, 11),      int(p.integer(0, 12)), p.text(0, 13),    p.integer(0, 14),
               int(p.integer(0, 15))};
    Result seats = run("SELECT seat, name, token_hash FROM seats WHERE code = $1 ORDER BY seat", Params()(code));
    for (int i = 0; i < seats.rows(); ++i)
      d.seats.push_back({code, int(seats.integer(i, 0)), seats.text(i, 1), seats.text(i, 2)});
    Result games = run("SELECT id, number, white_seat, start_fen, created_at, public_id FROM games WHERE code = $1 "
                       "AND ($2::bigint = 0 OR id = $2::bigint) ORDER BY number DESC LIMIT 1",
                       Params()(code)(game));
    if (games.rows() > 0) {
      GameRecord g{games.integer(0, 0), code, int(games.integer(0, 1)), int(games.integer(0, 2)), games.text(0, 3),
                   {},                  games.integer(0, 4), games.text(0, 5)};
      Result actions = run("SELECT version, action, at FROM actions WHERE game = $1 ORDER BY version", Params()(g.id));
      for (int i = 0; i < actions.rows(); ++i)
        g.actions.push_back({int(actions.integer(i, 0)), actions.text(i, 1), actions.integer(i, 2)});
      d.games.push_back(std::move(g));
    }
    return d;
  }

  std::vector<std::string> cpu_turn_tables(int64_t now, int limit) override {
    std::lock_guard lock(mutex_);
    return codes(run("SELECT code FROM parties WHERE cpu_turn = 1 AND cpu_lease_until <= $1 LIMIT $2",
                     Params()(now)(int64_t(limit))));
  }

  bool claim_cpu_turn(const std::string& code, int64_t now, int64_t until) override {
    std::lock_guard lock(mutex_);
    return run("UPDATE parties SET cpu_lease_until = $1 WHERE code = $2 AND cpu_turn = 1 AND cpu_lease_until <= $3",
               Params()(until)(code)(now))
               .affected() == 1;
  }

  std::vector<std::string> turn_based_idle_since(int64_t idle_since, int limit) override {
    std::lock_guard lock(mutex_);
    return codes(run("SELECT code FROM parties WHERE mode = 'turn' AND expired_at = 0 AND last_action_at <= $1 "
                     "AND starts_at <= $1 LIMIT $2",
                     Params()(idle_since)(int64_t(limit))));
  }

  void clear_cpu_turn(const std::string& code) override {
    std::lock_guard lock(mutex_);
    run("UPDATE parties SET cpu_turn = 0 WHERE code = $1", Params()(code));
  }

  void set_left_at(const std::string& code, int64_t at) override {
    std::lock_guard lock(mutex_);
    run("UPDATE parties SET left_at = $1 WHERE code = $2", Params()(at)(code));
  }

  void add_subscription(const SubscriptionRecord& r) override {
    std::lock_guard lock(mutex_);
    run("INSERT INTO push_subscriptions VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (endpoint, code, seat) "
        "DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, lang = excluded.lang, "
        "created_at = excluded.created_at",
        Params()(r.endpoint)(r.code)(int64_t(r.seat))(r.p256dh)(r.auth)(r.lang)(r.created_at));
  }

  int remove_subscription(const std::string& endpoint) override {
    std::lock_guard lock(mutex_);
    return int(run("DELETE FROM push_subscriptions WHERE endpoint = $1", Params()(endpoint)).affected());
  }

  void remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) override {
    std::lock_guard lock(mutex_);
    run("DELETE FROM push_subscriptions WHERE endpoint = $1 AND code = $2 AND seat = $3",
        Params()(endpoint)(code)(int64_t(seat)));
  }

  std::vector<SubscriptionRecord> load_subscriptions(const std::string& code) override {
    std::lock_guard lock(mutex_);
    Result q = run("SELECT endpoint, code, seat, p256dh, auth, lang, created_at FROM push_subscriptions "
                   "WHERE code = $1 ORDER BY seat, created_at",
                   Params()(code));
    std::vector<SubscriptionRecord> out;
    for (int i = 0; i < q.rows(); ++i)
      out.push_back({q.text(i, 0), q.text(i, 1), int(q.integer(i, 2)), q.text(i, 3), q.text(i, 4), q.text(i, 5),
                     q.integer(i, 6)});
    return out;
  }

  void add_feedback(FeedbackRecord& f) override {
    std::lock_guard lock(mutex_);
    Result r = run("INSERT INTO feedback (kind, text, name, table_code, lang, status, reply, hidden, created_at, "
                   "replied_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                   Params()(f.kind)(f.text)(f.name)(f.table)(f.lang)(f.status)(f.reply)(int64_t(f.hidden))(
                       f.created_at)(f.replied_at));
    f.id = r.integer(0, 0);
  }

  void update_feedback(const FeedbackRecord& f) override {
    std::lock_guard lock(mutex_);
    run("UPDATE feedback SET status = $1, reply = $2, hidden = $3, replied_at = $4 WHERE id = $5",
        Params()(f.status)(f.reply)(int64_t(f.hidden))(f.replied_at)(f.id));
  }

  std::vector<FeedbackRecord> list_feedback(bool with_hidden, int limit) override {
    std::lock_guard lock(mutex_);
    Result q = run(with_hidden ? "SELECT " FEEDBACK_COLUMNS " FROM feedback ORDER BY id DESC LIMIT $1"
                               : "SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE hidden = 0 ORDER BY id DESC LIMIT $1",
                   Params()(int64_t(limit)));
    std::vector<FeedbackRecord> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back(feedback_row(q, i));
    return out;
  }

  std::optional<FeedbackRecord> find_feedback(int64_t id) override {
    std::lock_guard lock(mutex_);
    Result q = run("SELECT " FEEDBACK_COLUMNS " FROM feedback WHERE id = $1", Params()(id));
    if (q.rows() == 0) return std::nullopt;
    return feedback_row(q, 0);
  }

  void put_recommendation(RecommendationRecord& r) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    run("DELETE FROM recommendations WHERE code = $1 AND seat = $2", Params()(r.code)(int64_t(r.seat)));
    Result q = run("INSERT INTO recommendations (code, seat, name, variant, stars, text, lang, hidden, created_at) "
                   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                   Params()(r.code)(int64_t(r.seat))(r.name)(r.variant)(int64_t(r.stars))(r.text)(r.lang)(
                       int64_t(r.hidden))(r.created_at));
    r.id = q.integer(0, 0);
    t.commit();
  }

  bool hide_recommendation(int64_t id, bool hidden) override {
    std::lock_guard lock(mutex_);
    return run("UPDATE recommendations SET hidden = $1 WHERE id = $2", Params()(int64_t(hidden))(id)).affected() > 0;
  }

  std::vector<RecommendationRecord> list_recommendations(bool with_hidden, int limit) override {
    std::lock_guard lock(mutex_);
    Result q = run(with_hidden ? "SELECT " RECOMMENDATION_COLUMNS " FROM recommendations ORDER BY id DESC LIMIT $1"
                               : "SELECT " RECOMMENDATION_COLUMNS
                                 " FROM recommendations WHERE hidden = 0 ORDER BY id DESC LIMIT $1",
                   Params()(int64_t(limit)));
    std::vector<RecommendationRecord> out;
    for (int i = 0; i < q.rows(); ++i)
      out.push_back(RecommendationRecord{q.integer(i, 0), q.text(i, 1), int(q.integer(i, 2)), q.text(i, 3),
                                         q.text(i, 4), int(q.integer(i, 5)), q.text(i, 6), q.text(i, 7),
                                         q.integer(i, 8) != 0, q.integer(i, 9)});
    return out;
  }

 private:
  // A method's transaction; inside in_one_commit, a savepoint of the batch's
  // transaction, so that the method still succeeds or fails alone (an error
  // would otherwise end the whole batch). `batch_only`: a single statement,
  // which needs no transaction of its own outside a batch.
  struct Transaction {
    PostgresStore& s;
    const bool nested, active;
    bool done = false;
    explicit Transaction(PostgresStore& st, bool batch_only = false)
        : s(st), nested(st.in_batch_), active(nested || !batch_only) {
      if (!active) return;
      s.run(nested ? "SAVEPOINT method" : "BEGIN", {});
      s.in_transaction_ = true;
    }
    void commit() {
      if (active) s.run(nested ? "RELEASE method" : "COMMIT", {});
      done = true;
      if (active && !nested) s.in_transaction_ = false;
    }
    ~Transaction() {
      if (!active) return;
      if (!nested) s.in_transaction_ = false;
      if (!done && PQstatus(s.db_) == CONNECTION_OK)
        PQclear(PQexec(s.db_, nested ? "ROLLBACK TO method; RELEASE method" : "ROLLBACK"));
    }
  };

  static FeedbackRecord feedback_row(const Result& q, int i) {
    return FeedbackRecord{q.integer(i, 0), q.text(i, 1), q.text(i, 2),         q.text(i, 3),     q.text(i, 4),
                          q.text(i, 5),    q.text(i, 6), q.text(i, 7),         q.integer(i, 8) != 0,
                          q.integer(i, 9), q.integer(i, 10)};
  }

  static std::vector<std::string> codes(const Result& q) {
    std::vector<std::string> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back(q.text(i, 0));
    return out;
  }

  void connect() {
    PQfinish(db_);
    db_ = PQconnectdb(conninfo_.c_str());
    if (PQstatus(db_) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(db_);
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      throw std::runtime_error("cannot connect to PostgreSQL: " + msg);
    }
    PQsetNoticeProcessor(db_, [](void*, const char*) {}, nullptr);  // "already exists, skipping" and the like
    PQclear(PQexec(db_, "SET synchronous_commit = on"));
  }

  // Runs one statement (the lock held). A connection found broken is opened
  // again first; a failure throws (VersionConflict for a duplicate action).
  Result run(const char* sql, const Params& params) {
    flush_deferred();  // what a batch deferred goes first
    if (PQstatus(db_) != CONNECTION_OK) {
      // Never carry on a transaction on a new connection: its start is gone.
      if (in_transaction_) throw std::runtime_error("postgresql: the connection was lost");
      connect();
    }
    std::vector<const char*> values;
    for (const std::string& v : params.values) values.push_back(v.c_str());
    Result r(PQexecParams(db_, sql, int(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
    ExecStatusType status = PQresultStatus(r.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    // The server went away since the last call (it restarted): a read or the
    // start of a transaction changed nothing, so it is tried once more on a
    // new connection.
    const std::string_view statement(sql);
    if (PQstatus(db_) == CONNECTION_BAD && !in_transaction_ &&
        (statement.starts_with("SELECT") || statement == "BEGIN") && !retrying_) {
      connect();
      retrying_ = true;
      struct Reset {
        bool& flag;
        ~Reset() { flag = false; }
      } reset{retrying_};
      return run(sql, params);
    }
    std::string state = r.sql_state(), msg = PQresultErrorMessage(r.get());
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (msg.empty()) msg = PQerrorMessage(db_);
    if (state == "23505" && std::string_view(sql).find("INSERT INTO actions") != std::string_view::npos)
      throw VersionConflict("the action's version is taken: " + msg);
    throw std::runtime_error("postgresql: " + msg);
  }

  // A batch's statements not sent yet: BEGIN, actions (for piece `piece`;
  // -1 for the others), COMMIT.
  struct Deferred {
    const char* sql;
    Params params;
    int piece;
    int64_t game;
    int expected_version;
  };

  // Sends the deferred statements in one pipeline and reads their results
  // (the lock held): an action that stored nothing is its piece's
  // VersionConflict; any error, or a COMMIT that did not commit, throws (the
  // batch's transaction is then lost). The batches are small (the writer's
  // max_batch), so sending all before reading cannot fill the socket's
  // buffers both ways.
  void flush_deferred() {
    if (deferred_.empty()) return;
    std::vector<Deferred> items = std::move(deferred_);
    deferred_.clear();
    if (PQstatus(db_) != CONNECTION_OK) throw std::runtime_error("postgresql: the connection was lost");
    if (PQenterPipelineMode(db_) != 1) throw std::runtime_error(std::string("postgresql: ") + PQerrorMessage(db_));
    struct Leave {
      PGconn* db;
      ~Leave() {
        if (db) PQexitPipelineMode(db);
      }
    } leave{db_};
    for (const Deferred& d : items) {
      std::vector<const char*> values;
      for (const std::string& v : d.params.values) values.push_back(v.c_str());
      if (PQsendQueryParams(db_, d.sql, int(values.size()), nullptr, values.data(), nullptr, nullptr, 0) != 1)
        throw std::runtime_error(std::string("postgresql: ") + PQerrorMessage(db_));
    }
    if (PQpipelineSync(db_) != 1) throw std::runtime_error(std::string("postgresql: ") + PQerrorMessage(db_));
    std::string failure;
    for (const Deferred& d : items) {
      Result r(PQgetResult(db_));
      if (!r.get()) {
        failure = PQerrorMessage(db_);
        break;
      }
      const ExecStatusType status = PQresultStatus(r.get());
      if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        if (failure.empty())
          failure = status == PGRES_PIPELINE_ABORTED ? "the batch was aborted" : PQresultErrorMessage(r.get());
      } else if (d.piece >= 0 && r.affected() == 0 && outcomes_) {
        (*outcomes_)[size_t(d.piece)] = std::make_exception_ptr(version_taken(d.game, d.expected_version));
      } else if (std::string_view(d.sql) == "COMMIT" && std::string_view(PQcmdStatus(r.get())) != "COMMIT") {
        if (failure.empty()) failure = "the batch's transaction was rolled back";
      }
      while (PGresult* more = PQgetResult(db_)) PQclear(more);  // the end of this statement's results
    }
    if (failure.empty()) {
      Result sync(PQgetResult(db_));
      if (!sync.get() || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) failure = "the pipeline did not end";
    }
    if (!failure.empty()) {
      // The connection goes, and the batch's transaction with it (results
      // may still be on their way); the next call connects again.
      PQfinish(db_);
      db_ = nullptr;
      leave.db = nullptr;
      while (!failure.empty() && (failure.back() == '\n' || failure.back() == ' ')) failure.pop_back();
      throw std::runtime_error("postgresql: " + failure);
    }
  }

  // Inside a transaction, with the lock held: the game's row is locked, so
  // two instances appending to one game take turns, and the second finds the
  // version moved on.
  void insert_action(int64_t game, int expected_version, const std::string& action, int64_t at) {
    run("SELECT id FROM games WHERE id = $1 FOR UPDATE", Params()(game));
    Result last = run("SELECT COALESCE(MAX(version), 0) FROM actions WHERE game = $1", Params()(game));
    const int64_t have = last.integer(0, 0);
    if (have != expected_version)
      throw VersionConflict("game " + std::to_string(game) + " is at version " + std::to_string(have) + ", not " +
                            std::to_string(expected_version));
    run("INSERT INTO actions VALUES ($1, $2, $3, $4)", Params()(game)(int64_t(expected_version + 1))(action)(at));
  }

  void insert_seat(const SeatRecord& s) {
    run("INSERT INTO seats VALUES ($1, $2, $3, $4)", Params()(s.code)(int64_t(s.seat))(s.name)(s.token_hash));
  }

  void migrate() {
    std::lock_guard lock(mutex_);
    Transaction t(*this);
    run(MIGRATION_LOCK, {});
    run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)", {});
    int64_t have = run("SELECT COALESCE(MAX(version), 0) FROM schema_version", {}).integer(0, 0);
    constexpr int64_t want = int64_t(sizeof MIGRATIONS / sizeof MIGRATIONS[0]);
    if (have > want)
      throw std::runtime_error("the database's schema (version " + std::to_string(have) +
                               ") is newer than this server's (" + std::to_string(want) + ")");
    for (int64_t v = have; v < want; ++v) {
      Result r(PQexec(db_, MIGRATIONS[v]));  // several statements: the simple protocol
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
        throw std::runtime_error(std::string("postgresql migration: ") + PQresultErrorMessage(r.get()));
      run("INSERT INTO schema_version VALUES ($1)", Params()(v + 1));
    }
    t.commit();
  }

  std::string conninfo_;
  PGconn* db_ = nullptr;
  bool in_transaction_ = false;
  bool in_batch_ = false;  // inside in_one_commit
  std::vector<Deferred> deferred_;
  std::vector<std::exception_ptr>* outcomes_ = nullptr;  // the batch's
  int piece_ = 0;  // the batch's piece being run
  bool retrying_ = false;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<Store> open_postgres_store(const std::string& conninfo) {
  return std::make_unique<PostgresStore>(conninfo);
}

}  // namespace makruk::server
