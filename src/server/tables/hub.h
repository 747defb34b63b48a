// The hub owns the tables and speaks the API's messages. It is plain C++:
// the network layer calls it on one executor (never concurrently) and hands
// it Clients to send to. The tables' actions, new tables and seats are stored
// by a StoreWriter's threads (which also read a table that is not in
// memory), whose answers come back through `post`, the hub's own queue.
//
// Its sources: hub.cpp (tables in play, messages, games, limits),
// hub_instances.cpp (reading a table again that another instance changed),
// hub_pairing.cpp (the tables of paired seekers); what they share is in
// hub_detail.h. Parts of their own,
// which the hub holds and which ask the tables through an interface of their
// own: who may look up a code (code_guard.h: wrong codes, proofs of work,
// credentials); instance sync
// (instance_sync.h: what the tables tell the other instances over the bus,
// and what they do with what they are told); the CPU players
// (cpu_players.h: their searches on the engine's threads, their claims and
// limits; they hand the tables what they found to play). Beside it: finding
// an opponent (lobby.h, one for the process, on an executor of its own: it
// asks the hubs to make the tables it pairs, through lobby_tables); turn
// notifications (turn_notices.h, Web Push and My games, one for the process
// on an executor of its own: the hubs tell it what their turn-based tables'
// actions mean, and it asks them whose seats tokens hold, through
// notices_tables); the feedback board and recommendations (community/community.h), which ask the
// hub only whose seat a token is (recommending_seat); each game's record by
// its own link (records/game_records.h). A test drives the hub with
// FakeClients, a Store and a Bus of its choosing.
#pragma once

#include <array>
#include <atomic>
#include <boost/json/object.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/address_limiter.h"
#include "server/answer.h"
#include "server/buses/bus.h"
#include "server/cpu/cpu.h"
#include "server/tables/client.h"
#include "server/tables/code_guard.h"
#include "server/tables/cpu_players.h"
#include "server/tables/invites.h"
#include "server/tables/instance_sync.h"
#include "server/tables/lobby.h"
#include "server/tables/table.h"
#include "server/tables/turn_notices.h"
#include "server/tables/matchmaker.h"
#include "server/stores/store.h"
#include "server/stores/store_writer.h"
#include "server/push/webpush.h"

namespace makruk::server {

// What one address, or the whole server, may ask of the hub. Every "per
// minute" limit counts per client address over a sliding minute; 0 means
// unlimited.
struct HubLimits {
  int create_per_minute = 10;       // tables created
  int join_per_minute = 30;         // join requests
  int cpu_per_minute = 3;           // tables against the CPU created
  int wrong_codes_per_minute = 10;  // lookups of codes that do not exist
  // Past that limit a code lookup still goes through with a proof of work of
  // this many leading zero bits (0: never); see CodeGuard::proof_valid.
  int proof_bits = 18;
  int64_t live_idle_ms = 24LL * 3600 * 1000;  // a live table nobody is at ends after this long without action
  int cpu_max_ms = 1500;            // time cap on one CPU search
  size_t cpu_queue = 256;           // CPU searches waiting; past it no new CPU table is made
  size_t cpu_queue_per_address = 8; // the same, for one address's searches
  int subscribe_per_minute = 20;    // push subscription requests
  size_t subscriptions_per_seat = 10;  // push subscriptions (browsers) per seat
  size_t push_services_per_seat = 4;  // distinct push services (origins) among them
  int64_t presence_delay_ms = 200;  // players online and spectator counts go out at most this often
  bool cpu_pause = true;            // the low levels answer after a short, human-like pause
  int64_t table_idle_ms = 5 * 60 * 1000;  // a table nobody is at leaves memory after this long
  int seek_per_minute = 20;         // requests to find an opponent
  int feedback_per_minute = 3;      // items sent to the feedback board, and recommendations (community.h)
  size_t seeks_per_address = 4;     // people waiting for an opponent from one address
  int64_t pairing_arrival_ms = 30000;  // paired players of a live table both come to it within this
  bool pair_same_address = false;   // seekers from one address may be paired with each other
  int64_t first_move_ms = 30000;    // and each makes a first move within this of their first turn
  int64_t paired_clock_ms = 10 * 60 * 1000;  // and their live game has a clock: this long for each side,
  int64_t paired_increment_ms = 5000;        // and this added by each move
  int64_t front_again_ms = 120000;  // the one left by a called-off pairing may seek at the front this long
  int pictures_per_minute = 30;     // game pictures drawn for an address (those already drawn are free)

  // The lobby's share of them (lobby.h): its counts go out as often as presence does.
  Lobby::Limits lobby() const {
    return Lobby::Limits{seek_per_minute, seeks_per_address, pair_same_address, presence_delay_ms};
  }
  TurnNotices::Limits notices() const {
    return TurnNotices::Limits{subscribe_per_minute, subscriptions_per_seat, push_services_per_seat};
  }
};

// A player at a table, as the tables know them: what a recommendation needs.
struct RecommendingSeat {
  std::string code;
  int seat = 0;
  std::string name;
  std::string variant;
  int own_moves = 0;  // the most moves of their own in one finished game there
};

class Hub : public Listener {
 public:
  using Post = std::function<void(std::function<void()>)>;
  // Runs work on the thread of a process's hub (its shard), with that hub.
  using OnShard = std::function<void(size_t shard, std::function<void(Hub&)> work)>;
  // `now` gives milliseconds since the epoch (injectable for tests); `post`
  // runs a function on the hub's executor.
  // The CPU players search on `cpu_pool` (the engine threads the hubs of a
  // process share) or, without one, on `cpu_threads` of the hub's own.
  Hub(Store& store, Post post, std::function<int64_t()> now, int cpu_threads = 1, CpuPool* cpu_pool = nullptr);
  ~Hub();

  void set_limits(const HubLimits& limits);
  const HubLimits& limits() const { return limits_; }
  // Runs a function on the hub's executor after a delay (ms). Without it,
  // delayed work (presence updates) is posted at once.
  using Defer = std::function<void(int64_t delay_ms, std::function<void()>)>;
  void set_defer(Defer defer);

  // Instances sharing one store: the hub tells the bus of every change it
  // makes to a table, and reads a table again when another instance changed
  // it; a CPU turn is searched by the instance that claims it. Without a bus
  // (one process), nothing of this happens. Call before load().
  void set_bus(Bus* bus);

  // Where the tables' actions (moves and the like) are written: a writer
  // with lanes of its own takes them off the hub's executor, and the hub goes
  // on with other tables while they are stored (a table's own messages wait
  // for it, in order). Without one (nullptr) they are written at once on
  // `store`, before the call returns. The writer must outlive its use.
  void set_writer(StoreWriter* writer) {
    writer_ = writer ? writer : own_writer_.get();
    cpus_.set_writer(writer_);
  }

  // Opens the stored tables where the CPU owes a reply (call once, before
  // serving); every other table is read from the store when it is opened.
  // The hubs of one process ask the store once (cpu_turns_at_start, on
  // any of them) and each opens those of its own shard.
  void load() { load(cpu_turns_at_start()); }
  std::vector<std::string> cpu_turns_at_start();
  void load(const std::vector<std::string>& cpu_turns);

  // What answers a request, once the answer is ready (a request that
  // writes waits for the store's writer; the hub goes on meanwhile). Called
  // on the hub's executor, once.
  using Respond = std::function<void(Answer)>;
  // POST /api/parties: the table is stored by the writer, then opened and
  // answered. The form returning the reply is for a hub that writes at once
  // (tests, tools); it throws otherwise.
  void create_table(const std::string& body, const std::string& ip, Respond respond);
  Answer create_table(const std::string& body, const std::string& ip);
  // `key` is the table's invite key from a link (may be empty): with it a
  // request is no guess at the code, and the wrong-code limit does not apply.
  // `proof` is a proof of work (CodeGuard::proof_valid) that lets a lookup through while
  // the address is limited for wrong codes.
  // A table not in memory is read off the hub's thread first (then
  // answered); the form returning the reply reads it on the hub's thread.
  void get_table(const std::string& code, const std::string& ip, const std::string& key, const std::string& proof,
                 Respond respond);
  Answer get_table(const std::string& code, const std::string& ip, const std::string& key = "",
                      const std::string& proof = "");
  // POST /api/parties/CODE/join: the seat is stored by the writer (the
  // table's other messages wait meanwhile), then taken and answered.
  void join(const std::string& code, const std::string& body, const std::string& ip, Respond respond);
  Answer join(const std::string& code, const std::string& body, const std::string& ip);
  // What the table's invitation says (its link with its key, its game, its
  // scheduled start), for its QR code and calendar event (invites.h).
  // These read a table not in memory off the hub's thread first, then
  // answer (the forms returning the answer read it on the hub's thread).
  void invite(const std::string& code, const std::string& base_url, const std::string& ip, const std::string& key,
              std::function<void(InviteOrRefusal)> answer);
  InviteOrRefusal invite(const std::string& code, const std::string& base_url, const std::string& ip,
                         const std::string& key = "");
  // For a recommendation (community.h): the seat a token holds at a table,
  // with how much its player played there; or the refusal (Forbidden, and a wrong
  // pair counts as a wrong code).
  // A table not in memory is read off the hub's thread first, then `answer`
  // is called (the form returning the answer reads it on the hub's thread).
  void recommending_seat(const std::string& code, const std::string& token, const std::string& ip,
                         std::function<void(std::variant<RecommendingSeat, Answer>)> answer);
  std::variant<RecommendingSeat, Answer> recommending_seat(const std::string& code, const std::string& token,
                                                              const std::string& ip);
  // What the lobby (lobby.h, on an executor of its own) asks of the tables.
  // Players at a running game now, among this hub's tables (for its counts).
  int64_t playing() const;
  // Whether an address may make one more table now (a pairing is one).
  // Thread-safe.
  bool may_create(const std::string& ip);
  // Counts one more table made by an address (a tournament is one), if it
  // may make one now. Thread-safe.
  bool count_table(const std::string& ip);
  // Makes the table of a pairing at this hub, and tells both seekers: those
  // connected here by `here` (nullptr when gone), one at another instance
  // through the bus. Stored by the writer under a new code of this hub's
  // (another, twice at most, when it fails before anything was stored).
  void pair(const Pairing& pairing, std::array<std::shared_ptr<Client>, 2> here);
  // A seek naming a table (code, and its seat's token) whose pairing was just
  // called off for the other player's missing first move goes to the front
  // of the queue, once: `done` is told whether it does (here, once the table
  // is read if it had to be).
  void seek_front(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token,
                  std::function<void(bool)> done);
  // "Not now" to a pairing, said on a lobby's connection (once the table is
  // read, if it had to be).
  void decline_from_lobby(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token);
  // The lobby told of its seekers paired at other instances (its
  // paired_elsewhere is called on this hub's thread).
  void set_lobby(Lobby* lobby) { lobby_ = lobby; }
  // The lobby's view of a process's hubs: a pairing's table made at each
  // hub in turn, the players counted at all, a seek to the front and a
  // decline asked of the hub holding the table; `on_shard` runs work on a
  // hub's thread, and `first` answers may_create.
  static Lobby::Tables lobby_tables(Hub& first, size_t shards, OnShard on_shard);
  // GET /readyz: Ok when the hub answers, the store can be read (by the
  // store's writer) and the bus answers (on its questions' thread), else Unavailable.
  void ready(Respond respond);
  Answer ready();
  // Turn notifications (Web Push, My games): told what each action at a
  // turn-based table means for its players (TurnNotices::notify, from this
  // thread). One for the process, on an executor of its own; it must
  // outlive its use.
  void set_notices(TurnNotices* notices) { notices_ = notices; }
  // Tournaments (tournaments/tournaments.h): told when the game of a
  // tournament's table ends here (the table's TableRecord::tournament and
  // the result), from this thread; it may be told again.
  using TournamentGames = std::function<void(const std::string& ref, Result result)>;
  void set_tournament_games(TournamentGames told) { tournament_games_ = std::move(told); }
  // Its view of a process's hubs: the seats a request's tokens hold, asked
  // of the hub holding each table (notice_seats); `on_shard` runs work on a
  // hub's thread.
  static TurnNotices::Tables notices_tables(size_t shards, OnShard on_shard);
  // The seats that `pairs` (with their index in a request) hold at this
  // hub's tables, each read first if `ip` may look tables up by a credential
  // now; wrong pairs count as wrong codes.
  using IndexedPairs = std::vector<std::pair<size_t, std::pair<std::string, std::string>>>;
  void notice_seats(IndexedPairs pairs, const std::string& ip, std::function<void(TurnNotices::Found)> then);

  // Ends the turn-based tables whose 45 days have run out (called every minute).
  void tick();
  // Instances sharing the store: plays the CPU turns whose searching
  // instance let its lease run out (it died); call every few seconds.
  // The hubs of one process: the first asks the store for all (and for the
  // minute's expiries, in tick) and hands each hub its own tables.
  void scan_cpu();
  // Instances sharing the store: says again who is at each table here (every
  // PRESENCE_HEARTBEAT_MS), and forgets what an instance silent for two of
  // those said; call every few seconds.
  void heartbeat();
  // Testing aid: lets POST /api/test/clock move the hub's clock forward.
  void enable_test_clock() { test_clock_ = true; }
  Answer advance_clock(const std::string& body);
  // Testing aid (with the test clock): POST /api/test/stall/CODE holds the
  // thread of the hub that has table CODE for {"ms":N} (at most 10 s) from
  // just after its answer, as a long piece of work would, so that a test can
  // show that other hubs' tables go on meanwhile.
  Answer stall(const std::string& body);

  // A connection's message (after its rate limit), and its closing.
  void on_message(const std::shared_ptr<Client>& c, const std::string& text) override;
  void on_close(const std::shared_ptr<Client>& c) override;

  // The tables in memory (those in play, and those opened a short while ago).
  size_t table_count() const { return tables_.size(); }

  // Whether `ip` may look up a table's code (or a game's id) now, counting a
  // wrong guess when `wrong` (the code guard's). Thread-safe: the games'
  // records ask it from their own threads.
  bool code_guess_allowed(const std::string& ip, bool wrong);
  // With other instances: the per-address counts asked of the bus and not
  // yet answered (a decision never waits for them). Thread-safe.
  int limits_asking();
  // The hub's clock (ms since the epoch; a test may move it). Thread-safe.
  int64_t now() const { return now_() + clock_offset_->load(); }

  // The hubs of one process (its shards), each on a thread of its own, share
  // the tables by code (shard_of): this one makes and opens at start only
  // codes of its own, and ends only its own tables whose time ran out. A
  // connection may still reach a table at another shard's hub: they tell
  // each other as instances do, over a bus of their own (bus_local.h).
  void set_shard(size_t index, size_t count) {
    shard_ = index;
    shards_ = count ? count : 1;
  }
  // How the first hub hands work to another (on that hub's thread): the
  // tables of its shard among those the store listed for all.
  void set_on_shard(OnShard on) { on_shard_ = std::move(on); }
  // Its per-address limits (and its parts') count together with `first`'s.
  void count_with(Hub& first);
  // Testing aid: this hub's clock is `first`'s (POST /api/test/clock moves
  // both), and moving it runs `moved` too (the other shards' ticks).
  void share_clock(const Hub& first, std::function<void()> moved) {
    clock_offset_ = first.clock_offset_;
    clock_moved_ = std::move(moved);
  }

  // GET /metrics: this hub's figures (the network layer adds those of every
  // hub of the process, writes them out with the store writer's, and decides
  // who may see them).
  struct Figures {
    size_t tables = 0, clients = 0, cpu_queue = 0;
    uint64_t actions_stored = 0;
    bool has_bus = false, bus_up = true;
    double bus_heartbeat_s = 0;
    Figures& operator+=(const Figures& o);
  };
  Figures figures() const;
  // The figures of a process's hubs in Prometheus' text format, with the
  // lobby's seekers and those of their store writer (may be null).
  static Answer metrics(const std::vector<Figures>& hubs, size_t seekers, const StoreWriter* writer);

 private:
  // The table for a code, read from the store if it is not in memory, and
  // ended first if its time has run out.
  Table* find(const std::string& code);
  Table* in_memory(const std::string& code);  // nullptr when not held now (reads nothing)
  // A table read from the store on this thread (before serving, or for a hub
  // that writes at once), now in memory; nullptr when it is not there.
  Table* read_here(const std::string& code);
  // A table read from the store (with its push subscriptions), now in memory.
  Table& opened(const std::string& code, TableData data);
  // Whether a lookup of `code` by `ip` (with a credential: a token or a key;
  // with a proof of work) would read the table from the store: it is not in
  // memory, and the lookup would go on.
  bool would_open(const std::string& code, const std::string& ip, bool credential, bool proof);
  // In memory, being made, or just read and found absent: nothing to read.
  bool known(const std::string& code) const;
  // Reads a table not in memory off this thread (on its writer's lane, after
  // its writes), then runs `then` here: with the table in memory, or known to
  // be absent (find() then answers nothing without reading). Lookups of one
  // code at once share the read.
  void open_then(const std::string& code, std::function<void()> then);
  // Runs `then` (a request's answer) now or (when `read`) once its table is
  // read; after the table's write on its way, if any (its end, when its time
  // has just run out, say).
  void once_open(const std::string& code, bool read, std::function<void()> then);
  // The same for several codes at once (those in memory, being made or known
  // absent are not read): `then` runs once all are read.
  void open_all_then(std::vector<std::string> codes, std::function<void()> then);
  void release_absent(const std::string& code);
  // A message, after the connection's rate limit (on_message) and once the
  // table of its hello is in memory.
  void handle(const std::shared_ptr<Client>& c, const std::string& text);
  // A message naming a table not in memory (with a credential for it, or
  // none), or one whose seat `token` may have been taken at another instance
  // (seat_may_be_elsewhere): the table is read off this thread first, and
  // the connection's next messages follow it; true when it is (`then` runs
  // once read).
  bool read_first(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token,
                  bool credential, std::function<void()> then);
  // The same without a connection of this hub's (a lobby's asks): true
  // when the table is read first (`then`, taken, runs once it is); false
  // leaves `then` to the caller.
  bool read_then(const std::string& code, const std::string& token, const std::string& ip, bool credential,
                 std::function<void()>& then);
  // A lobby's request naming a table (with its seat's token): `then` runs
  // once the table is read, if the token may hold a seat there; at once otherwise.
  void once_read_for(const std::string& ip, const std::string& code, const std::string& token,
                     std::function<void()> then);
  // The messages a connection sent while its table was read, in order, until
  // one waits for a table again.
  void handle_held(const std::shared_ptr<Client>& c);
  // The connection leaves the lobby and its table (it closed, or moves to another).
  void leave(const std::shared_ptr<Client>& c);
  // A join once its table is in memory (or known to be absent).
  void join_known(const std::string& code, const std::string& ip, const std::string& rawName, std::string token,
                  const std::string& key, Respond respond);
  // Reads a table in memory again from the store (another instance changed
  // it) and sends it to its watchers.
  // Off this thread (on the table's lane, after its writes; the table's
  // messages wait meanwhile unless a write of it is on its way), then `then`
  // with the table (nullptr if it left memory). A read older than what came
  // by the bus since changes nothing; the store away neither.
  void reload(Table& p);
  void reload(const std::string& code, std::function<void(Table*)> then);
  void refreshed(Table& p, TableData data);
  // With other instances: a token not known at a table in memory with a free
  // seat may be a seat taken a moment ago at another instance, whose message
  // has not come yet (the store has it). Only while `ip` may guess codes: a
  // wrong token counts as a wrong code (seat_of_token), so that wrong tokens
  // cannot keep the store busy.
  bool seat_may_be_elsewhere(const std::string& code, const std::string& token, const std::string& ip);
  // A change that was only a new game, for after_change (InstanceSync::publish).
  static constexpr int A_GAME_BEGAN = InstanceSync::A_GAME_BEGAN;
  // Drops from memory the tables nobody has been at for table_idle_ms (a
  // live one once the store has when it was left).
  void close_idle_tables();
  bool idle(const std::string& code, const Table& p, int64_t t) const;
  // Its per-address limits, each with its name on the bus (the code guard's,
  // the lobby's, the turn notifications' and the community's are theirs).
  std::array<std::pair<AddressLimiter*, const char*>, 2> limiters();
  void forget_table(const std::string& code);
  // Runs `work` at each hub with the codes of its shard among `codes` (this
  // one's here, now; the others' on their threads, through on_shard_).
  void hand_out(std::vector<std::string> codes, void (*work)(Hub&, std::vector<std::string>));
  // Ends the turn-based tables among these whose time has run out (read first).
  void expire_stored(std::vector<std::string> codes);
  // Tells the bus whether this hub holds the table now (in memory, being
  // made or being read; `reading`: a read on this thread is about to start),
  // so that the other hubs of the process tell it that table's changes only
  // while it does (Bus::hold). Called before a read starts: a change
  // committed while it is under way still comes.
  void hold_on_bus(const std::string& code, bool reading = false);
  void expire_if_due(Table& p);
  // The seat each (code, token) pair holds, in memory; wrong pairs go to
  // `unknown` and count as wrong codes (an error once the address is
  // limited).
  using Seats = std::vector<std::pair<const Table*, int>>;
  std::optional<Error> resolve_seats(const std::vector<std::pair<std::string, std::string>>& tables,
                                     const std::string& ip, Seats& seats, std::vector<std::string>& unknown);
  // Sends the table's players-and-spectators update to its watchers soon,
  // once for any number of changes in between.
  void presence_changed(Table& p);
  // The table for a code, counting a wrong code against the address; sets *e
  // (not found, or rate limited) when there is none to use. Past the limit,
  // a lookup goes on with a proof of work, or with the table's invite key
  // (CodeGuard::credential_allowed); otherwise it looks nothing up, so that
  // neither the answer, its time nor what is in memory tells whether the
  // code exists.
  Table* find_guarded(const std::string& code, const std::string& ip, std::optional<Error>& e,
                      const std::string& key = "", const std::string& proof = "");
  // A code held by no table in memory nor being made (the store's check is
  // the insert's: see store_new_table), of this hub's shard.
  std::string new_code();
  // A new table's request checked: the record to store and the host's name,
  // or the refusal.
  std::optional<Answer> check_new_table(const std::string& body, const std::string& ip, TableRecord& r,
                                           std::string& host_name);
  // Stores a new table (for a table against the CPU, with its CPU seat and
  // first game) through the writer under a new code, then opens it and
  // answers; a code taken in the store meanwhile, or a failed write before
  // anything was stored, tries again with another code (twice at most).
  void store_new_table(TableRecord r, const std::string& host_name, const std::string& ip, Respond respond,
                       int attempt);
  // A newcomer's seat at a table in memory: stored by the writer, then
  // taken; while an action of the table is being stored it waits, as a
  // player's messages do.
  void take_seat(const std::string& code, const std::string& name, Respond respond);
  // The seat that holds `token` at the table, or -1; with other instances, a
  // token not known here while a seat is free counts as a wrong code of `ip`
  // (the table was read again first: seat_may_be_elsewhere).
  int seat_of_token(Table& p, const std::string& token, const std::string& ip);
  void hello(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token,
             const std::string& key, const std::string& name);
  void broadcast(Table& p, bool table_changed, bool state_changed);
  // The game's state message, made once per version: a hello or sync from
  // any number of clients costs no more than a copy of a pointer.
  std::shared_ptr<const std::string> state_message(const Table& p);
  void send_error(Client& c, const std::string& id, const Error& e);
  // `from`: as for publish.
  void after_change(Table& p, bool table_changed, bool state_changed = true, int from = -1);
  // A table message from a joined client (start, rematch, an action in the
  // game): handled now, or after the action of its table being stored.
  void table_action(const std::shared_ptr<Client>& c, const std::string& type, const std::string& id,
                    const std::string& move, int64_t version, bool hasVersion);
  // The ack to the client whose message (of `seat`) changed the table, and
  // what follows every change.
  void finish_change(const std::shared_ptr<Client>& c, const std::string& id, int seat, const std::string& type,
                     Table& p, bool table_changed, bool state_changed, int from);
  // Stores prepared actions of a table (each on the one before) through the
  // writer; then makes them live, or reads the table again when the store
  // refused them, and calls `then` with the table (nullptr if it has left
  // memory), the store's error, and whether they were applied as prepared
  // (false: the table was read again). Then the table's waiting messages go on.
  using Stored = std::function<void(Table*, std::exception_ptr error, bool applied)>;
  void store_actions(const std::string& code, std::vector<PreparedAction> actions, Stored then);
  // Stores the table's next game (a start, or a rematch agreed) through the
  // writer, then begins it and answers the client as finish_change does.
  void begin_game(const std::shared_ptr<Client>& c, const std::string& id, const std::string& type, Table& p);
  // Runs `work` on the writer for table `code`; then, on the hub, `then`
  // with the table (nullptr if it left memory) and what the store threw;
  // then the table's messages that waited meanwhile.
  void write_then(const std::string& code, StoreWriter::Work work, std::function<void(Table*, std::exception_ptr)> then);
  void run_waiting(const std::string& code);
  // Runs `then` once the table's write on its way is stored (at once if none).
  void after_write(const std::string& code, std::function<void()> then);
  // A rematch offer made, declined or withdrawn: stored by the writer, then
  // made and told.
  void store_rematch(const std::shared_ptr<Client>& c, const std::string& id, const std::string& type, Table& p,
                     Table::RematchChange change);
  // Whether a seek naming the table goes to the front (seek_front), the table in memory.
  bool may_seek_at_front(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token);
  void store_paired_table(TableRecord r, const Pairing& pairing, std::array<std::shared_ptr<Client>, 2> here,
                          int attempt);
  // A live table made by pairing begins its game once both players are at it
  // (any instance); a player who declines, or does not come in time, ends it
  // unstarted, and the one who came is told (the table's "pairing").
  void maybe_begin_pairing(Table& p);
  void check_pairing(const std::string& code);
  void decline_pairing(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token);
  // Ends the table unstarted, once the store has it (`done` is told either way).
  void end_pairing(Table& p, const std::string& reason, int missing,
                   std::function<void(std::exception_ptr)> done = {});
  // Once begun, a paired game whose player to move has made no move of their
  // own within first_move_ms of their first turn is called off ("abort") and
  // the table ends; the other player may seek again at the front.
  void watch_first_move(Table& p);
  void check_first_move(const std::string& code);
  // A table with a clock: when the side to move runs out of time, its game
  // ends on time ("time").
  void watch_clock(Table& p);
  void check_clock(const std::string& code);
  // Tells the tournaments when a tournament's game ended (set_tournament_games).
  void tell_tournament(const Table& p);
  // A quick message (a fixed phrase) from a player, to everyone at the table.
  void say(const std::shared_ptr<Client>& c, Table& p, const std::string& id, const std::string& phrase);
  // The CPU's actions at a table (found by cpus_): played as a player's,
  // after the table's write on its way.
  void play_cpu(const std::string& code, int64_t game, int version, std::vector<std::string> actions);

  Store& store_;
  Post post_;
  std::function<int64_t()> now_;
  std::map<std::string, Table> tables_;
  std::map<std::string, std::set<std::shared_ptr<Client>>> watchers_;
  HubLimits limits_;
  Defer defer_;
  AddressLimiter creates_, joins_;
  // The version last sent to a table's watchers, and its whole state once made.
  struct CachedState {
    int64_t game = 0;
    int version = -1;
    std::shared_ptr<const std::string> text;
  };
  std::map<std::string, CachedState> states_;  // by table code, while someone watches
  std::set<std::string> presence_pending_;  // tables with a presence update on its way
  std::mt19937_64 rng_;
  bool test_clock_ = false;
  std::shared_ptr<std::atomic<int64_t>> clock_offset_ = std::make_shared<std::atomic<int64_t>>(0);
  std::function<void()> clock_moved_;
  size_t shard_ = 0, shards_ = 1;  // set_shard
  OnShard on_shard_;
  int64_t started_at_ = 0;
  CodeGuard guard_;  // who may look up a code now
  // The seekers' own connections of the pairings still waiting for their
  // players, by table code: told when the pairing ends unstarted.
  std::map<std::string, std::vector<std::weak_ptr<Client>>> pairing_seekers_;
  std::map<std::string, int64_t> fronts_taken_;  // tables whose front-of-queue seek was used, and when
  Lobby* lobby_ = nullptr;  // set_lobby
  TurnNotices* notices_ = nullptr;  // set_notices
  TournamentGames tournament_games_;  // set_tournament_games
  Bus* bus_ = nullptr;
  std::unique_ptr<StoreWriter> own_writer_;  // at once, on store_
  StoreWriter* writer_;
  uint64_t actions_stored_ = 0;   // for /metrics
  std::set<std::string> storing_;  // tables with actions being stored
  std::set<std::string> creating_;  // codes of tables being stored for the first time
  std::set<std::string> leaving_;   // idle tables whose leaving time is being stored
  std::map<std::string, std::vector<std::function<void()>>> opening_;  // tables being read, and what waits for them
  std::map<std::string, int> absent_;  // codes just read and not found (held while what waited for them runs)
  std::map<std::string, std::deque<std::function<void()>>> waiting_;  // their messages meanwhile, in order
  CpuPlayers cpus_;
  InstanceSync sync_;
};

// A table's messages that may wait for its action being stored, and one
// connection's; past these, more are refused (as too many messages).
constexpr size_t MAX_WAITING_ACTIONS = 64;
constexpr size_t MAX_WAITING_PER_CONNECTION = 16;

// At most this many tables where the CPU owes a reply are opened at start,
// and this many turn-based tables are ended by one tick.
constexpr int CPU_TURNS_AT_START = 100000;
constexpr int EXPIRIES_PER_TICK = 1000;

// An event carries at most this many actions (a CPU's count and move, say);
// past it the whole state goes out.
constexpr int MAX_EVENT_ACTIONS = 8;

// A player may send one quick message this often.
constexpr int64_t QUICK_MESSAGE_GAP_MS = 2000;

// Secrets and codes (random_token: table.h).
std::string normalise_code(std::string code);  // table codes are upper case
// The table a connection's first message names when it is a hello ("" for
// any other): the network layer gives the connection to that table's hub,
// or else to the lobby. Only what may be a hello is parsed (a seeker's
// first message is parsed once, by the lobby).
std::string hello_code(const std::string& text);
// The shard of `shards` that holds a table (its code as normalised).
size_t shard_of(std::string_view code, size_t shards);
std::string hash_token(const std::string& token);  // hex SHA-256
constexpr std::string_view CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

}  // namespace makruk::server
