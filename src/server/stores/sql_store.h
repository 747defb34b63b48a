// The Store over SQL, written once for both databases. The statements use
// $1, $2, … for their parameters and SQL that SQLite and PostgreSQL read
// alike (RETURNING, ON CONFLICT … DO UPDATE, CAST); what differs lives in a
// dialect's own file: the connection, its migrations, its batches
// (in_one_commit), and the few writes PostgreSQL does in one round trip
// instead of several.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/stores/store.h"

namespace makruk::server {

namespace sql {

// A statement's parameters, in order ($1, $2, …).
struct Params {
  std::vector<std::variant<int64_t, std::string>> values;
  Params& operator()(const std::string& s) {
    values.emplace_back(s);
    return *this;
  }
  Params& operator()(int64_t v) {
    values.emplace_back(v);
    return *this;
  }
};

// A statement's result: its rows, each value as text (NULL as empty), and
// how many rows it changed.
struct Rows {
  std::vector<std::vector<std::string>> rows;
  int64_t affected = 0;

  int size() const { return int(rows.size()); }
  const std::string& text(int row, int col) const { return rows.at(size_t(row)).at(size_t(col)); }
  int64_t integer(int row, int col) const;
};

}  // namespace sql

class SqlStore : public Store {
 public:
  void create_table(const TableRecord& p, const SeatRecord& host) override;
  void add_seat(const SeatRecord& s) override;
  void rename_seat(const std::string& code, int seat, const std::string& name) override;
  void set_rematch(const std::string& code, int offered_by, int declined_by) override;
  // Two statements in a transaction (PostgreSQL makes it one).
  int64_t create_game(const std::string& code, int number, int white_seat, const std::string& start_fen, int64_t at,
                      bool cpu_to_act, const std::string& public_id) override;
  // The version check, the insert and the table's row in a transaction
  // (PostgreSQL makes it one statement).
  void append_action(int64_t game, int expected_version, const std::string& action, int64_t at,
                     bool cpu_to_act) override;
  void expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) override;
  bool table_exists(const std::string& code) override;
  std::optional<TableData> load_table(const std::string& code) override;
  std::optional<TableData> load_game(const std::string& public_id) override;
  std::optional<GameHead> game_head(const std::string& public_id) override;
  std::vector<std::string> cpu_turn_tables(int64_t now, int limit) override;
  bool claim_cpu_turn(const std::string& code, int64_t now, int64_t until) override;
  std::vector<std::string> turn_based_idle_since(int64_t idle_since, int limit) override;
  void clear_cpu_turn(const std::string& code) override;
  void set_left_at(const std::string& code, int64_t at) override;
  void add_subscription(const SubscriptionRecord& s) override;
  int remove_subscription(const std::string& endpoint) override;
  void remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) override;
  std::vector<SubscriptionRecord> load_subscriptions(const std::string& code) override;
  void add_feedback(FeedbackRecord& f) override;
  void update_feedback(const FeedbackRecord& f) override;
  std::vector<FeedbackRecord> list_feedback(bool with_hidden, int limit) override;
  std::optional<FeedbackRecord> find_feedback(int64_t id) override;
  void put_recommendation(RecommendationRecord& r) override;
  bool hide_recommendation(int64_t id, bool hidden) override;
  std::vector<RecommendationRecord> list_recommendations(bool with_hidden, int limit) override;
  void create_tournament(const TournamentRecord& t) override;
  void append_tournament_event(const std::string& code, int expected_version, const std::string& event,
                               int64_t at) override;
  std::optional<TournamentRecord> load_tournament(const std::string& code) override;
  std::vector<TournamentEvent> tournament_events(const std::string& code, int after_version) override;

 protected:
  // The dialect's: runs one statement (mutex_ held) and reads all its rows;
  // throws on failure (VersionConflict for an action whose version is taken).
  virtual sql::Rows run(std::string_view statement, const sql::Params& params) = 0;
  // What starts a method's own transaction ("BEGIN", or SQLite's "BEGIN
  // IMMEDIATE", which takes the write lock at once).
  virtual const char* begin_statement() const { return "BEGIN"; }
  // Ends a transaction or a savepoint that failed, never throwing.
  virtual void roll_back(bool savepoint) = 0;
  // Inside a transaction: holds the game's row, so that writers appending to
  // one game take turns (PostgreSQL; SQLite's transaction holds the file).
  virtual void lock_game(int64_t game) { (void)game; }

  // A method's transaction; inside in_one_commit, a savepoint of the
  // batch's transaction, so that the method still succeeds or fails alone
  // (an error would otherwise end the whole batch). `batch_only`: a single
  // statement, which needs no transaction of its own outside a batch.
  struct Transaction {
    SqlStore& s;
    const bool nested, active;
    bool done = false;
    explicit Transaction(SqlStore& st, bool batch_only = false);
    void commit();
    ~Transaction();
  };

  // Inside a transaction, the lock held: the action as version
  // expected_version + 1, or a VersionConflict.
  void insert_action(int64_t game, int expected_version, const std::string& action, int64_t at);
  void insert_seat(const SeatRecord& s);
  // A table with its seats and one game: `game`, or (0) its latest. The lock held.
  std::optional<TableData> load(const std::string& code, int64_t game);

  std::mutex mutex_;
  bool in_transaction_ = false;  // a method's transaction or a batch's is open
  bool in_batch_ = false;        // inside in_one_commit
};

}  // namespace makruk::server
