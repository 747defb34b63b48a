// A table: its house rules, its seats and its games. Pure game
// flow: every change is written to the Store before it takes effect, and a
// refused request changes nothing. Not thread-safe: the hub runs all tables
// on one executor.
#pragma once

#include <map>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "core/game.h"
#include "core/messages.h"
#include "server/answer.h"
#include "server/stores/store.h"

namespace makruk::server {

enum class ErrorCode { BadRequest, NotFound, Forbidden, RateLimited, Conflict, Full };
std::string_view error_code_name(ErrorCode c);
Outcome outcome_of(ErrorCode c);  // what a request refused for it came to

// A refusal: its code, and why as a message (core/messages.h) and in English.
struct Error {
  ErrorCode code;
  Message msg;
  std::string message;  // msg in English
  Error(ErrorCode code, Message msg) : code(code), msg(std::move(msg)), message(this->msg.english()) {}
};

struct Seat {
  std::string name;
  std::string token_hash;
  int connections = 0;  // open WebSocket connections of this seat
};

// 128 random bits, in hex (seat tokens, invite keys, game links).
std::string random_token();
// A seed for a random generator: from the OS, or in the hub fuzzer's build
// from the generator it seeds (so that an input replays the same).
uint64_t random_seed();
#ifdef MAKRUK_FUZZ_REPLAY
void seed_for_replay(uint64_t seed);  // the hub fuzzer's build only (hub.cpp)
#endif

// A game's clocks (a table with the clock house rule), kept from the times
// its actions were stored, so that every instance and every reload agrees:
// each side's time left when the running turn began, and when it began. A
// move takes the time its side used since then and adds the increment.
struct GameClock {
  int64_t left[2] = {0, 0};  // ms, by colour
  int64_t since = 0;         // when the turn of the side to move began (ms)
  int64_t increment = 0;     // ms added by each move
};

struct LiveGame {
  int64_t id = 0;
  int number = 0;
  int white_seat = 0;
  Game game;
  int version = 0;  // accepted actions so far
  std::vector<std::string> san, san_thai;  // one per move
  std::string public_id;                    // its own link: /g/PUBLIC_ID
  std::optional<GameClock> clock;           // with the clock house rule

  Color color_of_seat(int seat) const { return seat == white_seat ? WHITE : BLACK; }
  int seat_of(Color c) const { return c == WHITE ? white_seat : 1 - white_seat; }
};

// Whether the CPU (seat 1 of a table with a CPU level) must act in this game:
// it is the CPU's move, or the player offered it a draw.
bool cpu_to_act(const LiveGame& g, int cpu_level);

// A turn-based table with no move for this long ends (docs/rules.md §6).
constexpr int64_t TURN_BASED_EXPIRY_MS = 45LL * 24 * 3600 * 1000;

// An action checked against a game but not yet stored: what to store (after
// `version` of game `game`), and the game it makes.
struct PreparedAction {
  int64_t game = 0;
  int version = 0;
  std::string action;       // canonical, as stored
  bool cpu_to_act = false;  // the CPU must act after it (stored beside it)
  std::optional<LiveGame> next;
};

// The next game of a table, checked but not yet stored: store() writes it
// (and clears the rematch offer when `clear_rematch`), giving its id.
struct PreparedGame {
  std::string code;
  bool cpu_to_act = false;
  bool clear_rematch = false;
  std::optional<LiveGame> next;  // number, colours, public id; its id once stored
  int64_t store(Store& store, int64_t at) const;
};

class Table {
 public:
  // Rebuilds a table from storage (replaying its games' actions).
  static Table from_record(const TableData& data);
  Table(TableRecord record) : record_(std::move(record)), last_activity_(record_.created_at) {}

  const std::string& code() const { return record_.code; }
  const TableRecord& record() const { return record_; }
  Variant variant() const;
  Counting counting() const;
  int cpu_level() const { return record_.cpu_level; }
  bool turn_based() const { return record_.mode == "turn"; }
  bool has_clock() const { return record_.clock_ms > 0; }
  // With a clock: when the side to move runs out of time (ms), while its game
  // runs; 0 otherwise.
  int64_t flag_at() const;
  // The side to move has run out of time at `now`, and its game still runs.
  bool out_of_time(int64_t now) const { return flag_at() != 0 && now >= flag_at(); }
  int64_t clock_check = 0;  // when the hub looks at the clock next (in memory only; 0: nothing scheduled)
  bool expired() const { return record_.expired_at != 0; }
  // The last accepted action, game start or the table's creation (ms).
  int64_t last_activity() const { return last_activity_; }
  // When a turn-based table will expire (ms); 0 for live or expired tables.
  int64_t expires_at() const;
  const std::vector<Seat>& seats() const { return seats_; }
  std::vector<Seat>& seats() { return seats_; }
  const std::optional<LiveGame>& game() const { return game_; }
  // The most moves `seat` made itself in one finished game of this table
  // (0 before any game ended): how much of a game its player really played.
  int own_moves_in_a_finished_game(int seat) const;
  // Open connections without a seat (kept by the hub), and the names those
  // that gave one go by (a name may be there more than once).
  int spectators = 0;
  std::multiset<std::string> spectator_names;
  // When the hub read the table from the store (in memory only).
  int64_t opened_at = 0;
  // Who is at the table on other instances sharing the store, by instance
  // (from the bus; in memory only), and when each said so last.
  struct Elsewhere {
    int seats[2] = {0, 0};
    int spectators = 0;
    std::vector<std::string> names;
    int64_t at = 0;
  };
  std::map<std::string, Elsewhere> elsewhere;
  int64_t presence_said_at = 0;  // when the hub last told the other instances who is here
  // A live table made by "find an opponent" (in memory only): its game begins
  // once both players are at it, by `arrive_by` (ms; 0: not waiting). A
  // pairing that ended before that says how ("declined" or "absent") and
  // which seat did not come.
  int64_t arrive_by = 0;
  std::string pairing_ended;
  int pairing_missing = -1;
  // A live table made by "find an opponent" at this instance (in memory
  // only): each player makes a first move within a while of their first
  // turn, or the game is called off (hub).
  bool from_pairing = false;
  int64_t first_move_check = 0;  // when the hub looks next (0: nothing scheduled)
  // The seat whose first move is awaited in the table's first game (to move,
  // with no move of its own yet), or -1.
  int awaiting_first_move() const;
  // The seat whose missing first move called the game off ("abort"), or -1.
  int called_off_seat() const;
  // The table ended at `at` (written to the store by the caller).
  void ended(int64_t at) { record_.expired_at = at; }
  // Open connections of a seat here and on the other instances.
  int connections_anywhere(int seat) const;
  int spectators_anywhere() const;
  // "waiting", "ready", "playing", "finished" or "expired".
  std::string status() const;
  // The seat holding this token hash, or -1.
  int seat_of_token(const std::string& token_hash) const;

  // The first two arrivals take the seats; later ones are refused as Full
  // (they may still watch).
  std::optional<Error> add_player(Store& store, const std::string& name, const std::string& token_hash,
                                  int& seat);
  // add_player in steps, for a store written on another thread: the seat a
  // newcomer would take (or why none), and that seat taken once stored.
  std::optional<Error> may_add_player(int& seat) const;
  void seat_taken(const std::string& name, const std::string& token_hash);
  std::optional<Error> start(Store& store, int seat, int64_t now);
  // start() without the store: whether `seat` may start the game now.
  std::optional<Error> may_start(int seat, int64_t now) const;
  // type: "move" (with `move`), "count", "stop", "claim", "resign",
  // "offer-draw", "accept-draw", "decline-draw" (and two that only the server
  // takes: "abort", for a seat that made no first move, and "time", for the
  // seat to move whose clock ran out). `version` is the game
  // version the client saw.
  std::optional<Error> act(Store& store, int seat, const std::string& type, const std::string& move,
                           int version, int64_t now);
  // act() in two steps, for a store written on another thread: checks the
  // action against the game now (or against `after`, an action prepared
  // before it and not yet stored), changing nothing; then, once it is
  // stored, makes it live. apply_prepared is false (and changes nothing) when
  // the game is no longer the one it was prepared on.
  std::optional<Error> prepare(int seat, const std::string& type, const std::string& move, int version,
                               PreparedAction& out, const LiveGame* after = nullptr) const;
  bool apply_prepared(PreparedAction&& a, int64_t now);
  // Rematch by agreement, once the game is over: a player's rematch is an
  // offer, the same from the other player accepts it and starts the next game
  // (`started` says so). On a CPU table the CPU accepts at once.
  std::optional<Error> rematch(Store& store, int seat, int64_t now, bool& started);
  // rematch() without beginning the game: an offer is stored and recorded,
  // or `begins` says the next game begins now (its caller begins it).
  std::optional<Error> offer_rematch(Store& store, int seat, bool& begins);
  // Declines the other player's offer, or withdraws one's own.
  std::optional<Error> decline_rematch(Store& store, int seat);
  // The same two in steps, for a store written on another thread: what the
  // table's rematch offer becomes (`offer`, `declined_by`; `store` false when
  // nothing changes, and for an offer that begins the next game, `begins`),
  // changing nothing; then, once the store has it, rematch_set.
  struct RematchChange {
    bool store = false, begins = false;
    int offer = -1, declined_by = -1;
  };
  std::optional<Error> may_offer_rematch(int seat, RematchChange& out) const;
  std::optional<Error> may_decline_rematch(int seat, RematchChange& out) const;
  void rematch_set(int offer, int declined_by) {
    record_.rematch_offer = offer;
    record_.rematch_declined_by = declined_by;
  }
  // The seat offering a rematch, -1 for none; the seat that declined the
  // last offer, -1 for none (cleared by a new offer or game).
  int rematch_offer() const { return record_.rematch_offer; }
  int rematch_declined_by() const { return record_.rematch_declined_by; }
  // Starts game number n+1 (used by start, rematch and CPU tables).
  void begin_game(Store& store, int64_t now);
  // begin_game in steps, for a store written on another thread: the next
  // game as it will be; then, stored as `id`, begun here. False (nothing
  // changes) when the table moved on meanwhile (read it again).
  PreparedGame prepare_game() const;
  bool begin_prepared(PreparedGame&& g, int64_t id, int64_t at);
  // The game that another instance started (stored as `id`, number `number`
  // with White at seat `white`, at `at`, with its public id), begun here in memory the same way;
  // false when this copy is not just before it (then read the table again).
  bool begin_stored(int64_t id, int number, int white, int64_t at, const std::string& public_id);
  // Whether a turn-based table's time has come (see expires_at), or a live
  // table's that nobody is connected to and that has seen no action for
  // `live_idle_ms` (0: live tables never end so), at `now`: the end to store
  // (its running game's id and version, 0 for none), which the running game
  // gets as "expire". Then, once stored, the end made here: false (nothing
  // changes) when the table moved on meanwhile (read it again).
  struct Expiry {
    int64_t at = 0, game = 0;
    int version = 0;
  };
  std::optional<Expiry> expiry_due(int64_t now, int64_t live_idle_ms = 0) const;
  bool expire_stored(const Expiry& x);
  // No player or spectator has an open connection to this instance.
  bool nobody_connected() const;
  // Nor to any other instance.
  bool nobody_anywhere() const;
  // The last person connected to the table just left (or the server just
  // started): a live table's idle time counts from the latest of this, its
  // last action and its scheduled start.
  void everyone_left(int64_t now) { last_present_ = now; }
  int64_t last_present() const { return last_present_; }
  // Keeps who is connected (and the other in-memory facts) from the copy
  // this one replaces.
  void carry_presence_from(const Table& old);
  // Actions another instance stored after this copy's version of game `game`,
  // at `at`: applied in memory, all or none; false when this copy is not
  // just before them (then read the table again).
  bool apply_stored(int64_t game, int version, const std::vector<std::string>& actions, int64_t at);

 private:
  std::optional<Error> refuse_if_expired() const;
  // Game number `number` as it begins (not stored: its id is 0).
  LiveGame fresh_game(int number) const;
  // A game's clocks as it begins at `at`, with the clock house rule.
  std::optional<GameClock> clock_from(int64_t at) const;
  void now_playing(LiveGame game, int64_t at);

  TableRecord record_;
  int64_t last_activity_ = 0;
  int64_t last_present_ = 0;  // in memory only
  std::vector<Seat> seats_;
  std::optional<LiveGame> game_;
  int finished_moves_[2] = {0, 0};  // own_moves_in_a_finished_game, games before the current one
};

// "2026-11-30T02:20:39Z" for a time in ms since the epoch.
std::string iso_time(int64_t ms);

// A tournament's game, as its table's record names it (TableRecord::tournament:
// "CODE/ROUND/BOARD"); nothing for a text that is not one.
struct TournamentGame {
  std::string code;
  int round = 0, board = 0;
};
std::string tournament_ref(const TournamentGame& g);
std::optional<TournamentGame> parse_tournament_ref(const std::string& ref);

// Applies a canonical action to a live game, keeping its SAN lists and, given
// the time it was stored (`at`, ms; -1: not yet stored), its clocks. False
// (with *error) when the game refuses it.
bool apply_action(LiveGame& g, const std::string& action, Why error, int64_t at = -1);

}  // namespace makruk::server
