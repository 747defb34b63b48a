// Storage behind an interface: the server depends on Store, not on a product.
// SQLite is the default; a client-server database can implement the same.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace makruk::server {

struct TableRecord {
  std::string code;
  std::string variant;   // "makruk" | "ouk"
  std::string counting;  // "auto" | "declare"
  bool show_legal = true, swap_colors = true, labels = true;
  int cpu_level = 0;  // 0: two people
  int64_t created_at = 0;
  std::string start_fen;  // empty: the variant's start position
  std::string mode = "live";  // "live" | "turn" (turn-based)
  int64_t starts_at = 0;      // scheduled start (ms since the epoch), 0: none
  int64_t expired_at = 0;     // when a turn-based table expired, 0: it has not
  int rematch_offer = -1;     // the seat offering a rematch of the finished game, -1: none
  std::string invite_key;     // carried by invite links: a visit with it is no guess at the code
  int64_t left_at = 0;        // when the last person left a live table that went out of memory, 0: unknown
  int rematch_declined_by = -1;  // the seat that declined the last offer (shown until the next offer), -1: none
  // The clock house rule: each side's time for the game and what each move
  // adds, in ms (0 and 0: no clock).
  int64_t clock_ms = 0, increment_ms = 0;
  // A tournament's game: "CODE/ROUND/BOARD" of its tournament (empty: none).
  std::string tournament;
};

struct SeatRecord {
  std::string code;
  int seat = 0;
  std::string name;
  std::string token_hash;  // hex SHA-256 of the seat token
};

struct ActionRecord {
  int version = 0;  // 1, 2, … within its game
  std::string action;
  int64_t at = 0;
};

struct GameRecord {
  int64_t id = 0;
  std::string code;
  int number = 0;
  int white_seat = 0;
  std::string start_fen;
  std::vector<ActionRecord> actions;
  int64_t created_at = 0;
  std::string public_id;  // the game's own link: /g/PUBLIC_ID (unguessable)
};

// What tells whether a game's record made before is still its record: the
// game, its version (its last action's, 0 before any) and its seats' names
// now (by seat).
struct GameHead {
  int64_t game = 0;
  int version = 0;
  std::vector<std::string> names;
};

struct TableData {
  TableRecord party;
  std::vector<SeatRecord> seats;
  std::vector<GameRecord> games;  // by number
};

// A browser's Web Push subscription for one seat of a table.
struct SubscriptionRecord {
  std::string endpoint;
  std::string code;
  int seat = 0;
  std::string p256dh, auth;  // base64url, as the browser gives them
  std::string lang;          // "th" | "en" | "km"
  int64_t created_at = 0;
};

// An item of the public feedback board.
struct FeedbackRecord {
  int64_t id = 0;
  std::string kind;   // "bug" | "feedback" | "setting"
  std::string text;
  std::string name;   // empty: none given
  std::string table;  // a table code the item is about, or empty
  std::string lang;
  std::string status = "new";  // "new" | "planned" | "done" | "wont"
  std::string reply;           // the maintainers' answer, or empty
  bool hidden = false;         // spam, hidden by a maintainer
  int64_t created_at = 0;
  int64_t replied_at = 0;
};

// A recommendation written by a player after a game: one per seat of a table
// (writing again replaces it).
struct RecommendationRecord {
  int64_t id = 0;
  std::string code;
  int seat = 0;
  std::string name;
  std::string variant;
  int stars = 5;  // 1 to 5
  std::string text;
  std::string lang;
  bool hidden = false;
  int64_t created_at = 0;
};

// A tournament by code (tournaments/tournaments.h): what it was made with.
// Everything that happened to it since is its events, in order.
struct TournamentRecord {
  std::string code;
  std::string title;                    // may be empty
  std::string variant, counting, mode;  // its games', as a table's
  std::string format;                   // "swiss" | "roundrobin" | "arena"
  int rounds = 0;                       // a Swiss's rounds
  int64_t arena_ms = 0;                 // how long an arena lasts
  int64_t clock_ms = 0, increment_ms = 0;  // its games' clock (0: none)
  std::string host_hash;                // hex SHA-256 of the host's token
  std::string secret;                   // what its games' table codes are made from
  int64_t created_at = 0;
};

struct TournamentEvent {
  int version = 0;  // 1, 2, … within its tournament
  std::string event;
  int64_t at = 0;
};

// Thrown when an append does not find the version it expected.
struct VersionConflict : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Store {
 public:
  virtual ~Store() = default;
  // Runs `pieces` (writes, made on this thread and this connection alone) as
  // one transaction where the store has that: one commit for all of them.
  // Each piece still succeeds or fails alone: what it throws, or what the
  // store finds for it later in the batch (an action's version taken: a
  // VersionConflict), goes to outcomes[i]. Throws when the commit fails; then
  // none of them is kept. By default each piece runs on its own.
  virtual void in_one_commit(const std::vector<std::function<void()>>& pieces,
                             std::vector<std::exception_ptr>& outcomes) {
    for (size_t i = 0; i < pieces.size(); ++i) {
      try {
        pieces[i]();
      } catch (...) {
        outcomes[i] = std::current_exception();
      }
    }
  }
  virtual void create_table(const TableRecord& p, const SeatRecord& host) = 0;
  virtual void add_seat(const SeatRecord& s) = 0;
  virtual void rename_seat(const std::string& code, int seat, const std::string& name) = 0;
  // Records the seat offering a rematch and the seat that declined the last
  // offer (-1: none).
  virtual void set_rematch(const std::string& code, int offered_by, int declined_by) = 0;
  // Starts a game; `cpu_to_act` records whether the CPU must act first (see
  // cpu_turn_tables).
  virtual int64_t create_game(const std::string& code, int number, int white_seat,
                              const std::string& start_fen, int64_t at, bool cpu_to_act,
                              const std::string& public_id) = 0;
  // Appends `action` as version expected_version + 1 of the game, atomically,
  // with the table's last action time and whether the CPU must act next.
  virtual void append_action(int64_t game, int expected_version, const std::string& action,
                             int64_t at, bool cpu_to_act) = 0;
  // Marks a turn-based table expired at `at` and, when `game` is not 0, appends
  // "expire" to it as version expected_version + 1: both or neither. Throws
  // VersionConflict when the table has ended already (another instance ended
  // it first): a table ends once.
  virtual void expire_table(const std::string& code, int64_t game, int expected_version, int64_t at) = 0;
  virtual bool table_exists(const std::string& code) = 0;
  // One table with its seats and its latest game (older games are history
  // that a table in play does not need), or nothing when the code is unknown.
  virtual std::optional<TableData> load_table(const std::string& code) = 0;
  // The game with that public id, with its table and seats (in `games`, the
  // one game), or nothing.
  virtual std::optional<TableData> load_game(const std::string& public_id) = 0;
  // The head of the game with that public id (a read that does not grow with
  // the game), or nothing.
  virtual std::optional<GameHead> game_head(const std::string& public_id) = 0;
  // Tables are read when opened, so what the server must do unasked comes
  // from indexed queries: the CPU tables where the CPU must act (after a
  // restart), and the turn-based tables whose last action (and scheduled
  // start) is no later than `idle_since` and that have not expired yet.
  // (CPU tables whose lease, below, has run out by `now`.)
  virtual std::vector<std::string> cpu_turn_tables(int64_t now, int limit) = 0;
  // Instances sharing the store: the one that claims a CPU turn (its lease
  // has run out by `now`) searches it, until `until`; false when another
  // instance holds it. A change to the game ends the lease.
  virtual bool claim_cpu_turn(const std::string& code, int64_t now, int64_t until) = 0;
  virtual std::vector<std::string> turn_based_idle_since(int64_t idle_since, int limit) = 0;
  // The CPU has nothing to do at this table (a stale mark, found on loading it).
  virtual void clear_cpu_turn(const std::string& code) = 0;
  // Records when the last person left a live table (see TableRecord::left_at).
  virtual void set_left_at(const std::string& code, int64_t at) = 0;

  // Adds (or refreshes) a subscription for a seat.
  virtual void add_subscription(const SubscriptionRecord& s) = 0;
  // Drops an endpoint from every seat; answers how many rows went.
  virtual int remove_subscription(const std::string& endpoint) = 0;
  // Drops one seat's subscription of an endpoint.
  virtual void remove_seat_subscription(const std::string& endpoint, const std::string& code, int seat) = 0;
  // The subscriptions of one table's seats, by seat and age.
  virtual std::vector<SubscriptionRecord> load_subscriptions(const std::string& code) = 0;

  // The feedback board: adds an item (its id is set), updates one (status,
  // reply, replied_at, hidden), lists the newest `limit` (hidden ones too
  // when asked), finds one.
  virtual void add_feedback(FeedbackRecord& f) = 0;
  virtual void update_feedback(const FeedbackRecord& f) = 0;
  virtual std::vector<FeedbackRecord> list_feedback(bool with_hidden, int limit) = 0;
  virtual std::optional<FeedbackRecord> find_feedback(int64_t id) = 0;

  // Recommendations: adds or replaces the one of (code, seat) (its id is
  // set); hides or shows one (false: no such id); lists the newest `limit`.
  virtual void put_recommendation(RecommendationRecord& r) = 0;
  virtual bool hide_recommendation(int64_t id, bool hidden) = 0;
  virtual std::vector<RecommendationRecord> list_recommendations(bool with_hidden, int limit) = 0;

  // Tournaments: made once (a code taken throws); their events appended as
  // version expected_version + 1, atomically (a VersionConflict when that
  // version is taken); read back, the events after `after_version` in order.
  virtual void create_tournament(const TournamentRecord& t) = 0;
  virtual void append_tournament_event(const std::string& code, int expected_version, const std::string& event,
                                       int64_t at) = 0;
  virtual std::optional<TournamentRecord> load_tournament(const std::string& code) = 0;
  virtual std::vector<TournamentEvent> tournament_events(const std::string& code, int after_version) = 0;
};

// Opens (creating if needed) the SQLite database at `path` and applies the
// migrations. Throws std::runtime_error on failure. `full_sync`: every commit
// reaches the disk before it returns (synchronous=FULL), so it also survives
// a power loss; the default (NORMAL, in WAL mode) survives the process being
// killed, and a power loss may undo the last commits (docs/deploy.md).
std::unique_ptr<Store> open_sqlite_store(const std::string& path, bool full_sync = false);
// The version of the SQLite schema this server writes (its migrations' count).
int64_t sqlite_schema_version();

// Connects to PostgreSQL (`conninfo`: a postgresql:// URL or key=value
// pairs, as libpq takes them) and applies the migrations. Throws
// std::runtime_error on failure.
std::unique_ptr<Store> open_postgres_store(const std::string& conninfo);

// Whether `--store` names PostgreSQL: a postgresql:// (or postgres://) URL.
bool is_postgres_url(const std::string& url);

// `--store`: a postgresql:// (or postgres://) URL opens PostgreSQL; empty
// opens the SQLite database makruk.db in `data_dir`.
std::unique_ptr<Store> open_store(const std::string& url, const std::string& data_dir, bool sqlite_full_sync = false);

}  // namespace makruk::server
