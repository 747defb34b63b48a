// The Store on PostgreSQL, through libpq, for several server instances
// sharing one database: the connection, the migrations, batches in one
// pipeline, and the writes made in one round trip (a game, an action); the
// other methods are SqlStore's. Every call is one statement or one
// transaction on the instance's connection; a lost connection is re-opened
// on the next call (the call in progress fails with a retryable error).
#include <libpq-fe.h>

#include <mutex>

#include "server/stores/sql_store.h"

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
    // 5: the clock house rule.
    R"sql(
    ALTER TABLE parties ADD COLUMN clock_ms BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE parties ADD COLUMN increment_ms BIGINT NOT NULL DEFAULT 0;
    )sql",
    // 6: tournaments by code, their events, and the tables of their games.
    R"sql(
    CREATE TABLE tournaments (
      code TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      variant TEXT NOT NULL,
      counting TEXT NOT NULL,
      mode TEXT NOT NULL,
      format TEXT NOT NULL,
      rounds INTEGER NOT NULL,
      arena_ms BIGINT NOT NULL,
      clock_ms BIGINT NOT NULL,
      increment_ms BIGINT NOT NULL,
      host_hash TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE tournament_events (
      code TEXT NOT NULL REFERENCES tournaments(code),
      version INTEGER NOT NULL,
      event TEXT NOT NULL,
      at BIGINT NOT NULL,
      PRIMARY KEY (code, version)
    );
    ALTER TABLE parties ADD COLUMN tournament TEXT NOT NULL DEFAULT '';
    )sql",
};

// An arbitrary key for the advisory lock that serialises migrations.
constexpr const char* MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(7305481)";

using sql::Params;
using sql::Rows;

// Parameters as libpq takes them: text.
std::vector<std::string> as_text(const Params& params) {
  std::vector<std::string> out;
  out.reserve(params.values.size());
  for (const auto& v : params.values)
    out.push_back(std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v)) : std::get<std::string>(v));
  return out;
}

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

class PostgresStore final : public SqlStore {
 public:
  explicit PostgresStore(std::string conninfo) : conninfo_(std::move(conninfo)) {
    connect();
    migrate();
  }
  ~PostgresStore() override { PQfinish(db_); }

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

  int64_t create_game(const std::string& code, int number, int white_seat, const std::string& start_fen, int64_t at,
                      bool cpu_to_act, const std::string& public_id) override {
    std::lock_guard lock(mutex_);
    Transaction t(*this, true);
    // One statement: one round trip, one commit, both rows or neither.
    Rows r = run("WITH added AS (INSERT INTO games (code, number, white_seat, start_fen, created_at, public_id) "
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
    if (run(APPEND_ACTION, params).affected == 0) throw version_taken(game, expected_version);
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

 private:
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

  Rows run(std::string_view statement, const Params& params) override {
    const std::string sql(statement);
    Result r = execute(sql.c_str(), params);
    Rows out;
    out.rows.resize(size_t(r.rows()));
    const int columns = PQnfields(r.get());
    for (int i = 0; i < r.rows(); ++i) {
      out.rows[size_t(i)].reserve(size_t(columns));
      for (int c = 0; c < columns; ++c) out.rows[size_t(i)].push_back(r.text(i, c));
    }
    out.affected = r.affected();
    return out;
  }

  void roll_back(bool savepoint) override {
    if (PQstatus(db_) == CONNECTION_OK) PQclear(PQexec(db_, savepoint ? "ROLLBACK TO method; RELEASE method" : "ROLLBACK"));
  }

  // Inside a transaction: the game's row is locked, so two instances
  // appending to one game take turns, and the second finds the version
  // moved on.
  void lock_game(int64_t game) override { run("SELECT id FROM games WHERE id = $1 FOR UPDATE", Params()(game)); }

  // Runs one statement (the lock held). A connection found broken is opened
  // again first; a failure throws (VersionConflict for a duplicate action).
  Result execute(const char* sql, const Params& params) {
    flush_deferred();  // what a batch deferred goes first
    if (PQstatus(db_) != CONNECTION_OK) {
      // Never carry on a transaction on a new connection: its start is gone.
      if (in_transaction_) throw std::runtime_error("postgresql: the connection was lost");
      connect();
    }
    const std::vector<std::string> texts = as_text(params);
    std::vector<const char*> values;
    for (const std::string& v : texts) values.push_back(v.c_str());
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
      return execute(sql, params);
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
      const std::vector<std::string> texts = as_text(d.params);
      std::vector<const char*> values;
      for (const std::string& v : texts) values.push_back(v.c_str());
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
  std::vector<Deferred> deferred_;
  std::vector<std::exception_ptr>* outcomes_ = nullptr;  // the batch's
  int piece_ = 0;  // the batch's piece being run
  bool retrying_ = false;
};

}  // namespace

std::unique_ptr<Store> open_postgres_store(const std::string& conninfo) {
  return std::make_unique<PostgresStore>(conninfo);
}

}  // namespace makruk::server
