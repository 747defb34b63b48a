// The hub owns the tables and speaks the API's messages. It is plain C++:
// the network layer calls it on one executor (never concurrently) and hands
// it Clients to send to. CPU moves are searched on the engine pool's threads
// and come back through `post`, the hub's own queue; the tables' actions are
// stored by a StoreWriter's threads, whose answers come back the same way.
//
// Its sources: hub.cpp (tables in play, messages, games, the CPU's turns,
// limits), hub_instances.cpp (the bus between instances), hub_push.cpp
// (turn-based tables, Web Push, My games), hub_lobby.cpp (finding an
// opponent); what they share is in hub_detail.h. The feedback board and
// recommendations are a part of their own (community/community.h), which
// asks the hub only whose seat a token is (recommending_seat). A test drives it with FakeClients, a Store and a
// Bus of its choosing. Each game's record (by its own link) is another part:
// records/game_records.h.
#pragma once

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
#include <variant>

#include "server/buses/bus.h"
#include "server/cpu/cpu.h"
#include "server/tables/table.h"
#include "server/tables/matchmaker.h"
#include "server/stores/store.h"
#include "server/stores/store_writer.h"
#include "server/push/webpush.h"

namespace makruk::server {

// A WebSocket connection as the hub sees it. send() may be called from the
// hub's executor only; the connection queues the text for its own writer.
class Client {
 public:
  virtual ~Client() = default;
  virtual void send(std::shared_ptr<const std::string> text) = 0;
  // Ends a connection that abuses the server: what was sent before is still
  // delivered (within a short grace), then a close frame.
  virtual void close() = 0;

  // Set (on the hub's executor) by the first hello that joins a table; the
  // network layer reads it to close connections that never say hello.
  std::atomic<bool> greeted{false};

  // Hub-side state, touched only on the hub's executor.
  std::string ip;  // the client's address, for the per-address limits
  std::string code;
  int seat = -1;  // -1: spectator
  std::string name;  // a spectator's name, if it gave one
  uint64_t id = 0;   // given by the hub on the first message (the matchmaker's key)
  int64_t last_said = -1000000;  // when it last sent a quick message (ms)
  bool joined = false;
  bool events = false;  // after the first state, takes events ("moved") instead of whole states
  double tokens = 20;  // rate limit: tokens refill at 20 a second
  int64_t last_refill = 0;
  int strikes = 0;  // messages refused for rate; too many closes the connection
  size_t waiting = 0;  // its messages waiting for its table's action being stored
};

struct HttpReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// What one address, or the whole server, may ask of the hub. Every "per
// minute" limit counts per client address over a sliding minute; 0 means
// unlimited.
struct HubLimits {
  int create_per_minute = 10;       // tables created
  int join_per_minute = 30;         // join requests
  int cpu_per_minute = 3;           // tables against the CPU created
  int wrong_codes_per_minute = 10;  // lookups of codes that do not exist
  // Past that limit a code lookup still goes through with a proof of work of
  // this many leading zero bits (0: never); see Hub::proof_valid.
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
  int64_t front_again_ms = 120000;  // the one left by a called-off pairing may seek at the front this long
  int pictures_per_minute = 30;     // game pictures drawn for an address (those already drawn are free)
};

// Sliding one-minute windows of events per address (thread-safe).
class AddressLimiter {
 public:
  // True when `ip` has had fewer than `limit` events in the minute before
  // `now` (always for limit 0); records one event when `record`.
  bool allow(const std::string& ip, int64_t now, int limit, bool record = true);
  // Forgets the windows that have emptied (call now and then).
  void sweep(int64_t now);
  // Instances sharing a bus count together under `name` (while the bus
  // answers; otherwise each counts alone).
  void share(Bus* bus, std::string name) {
    bus_ = bus;
    name_ = std::move(name);
  }
  size_t size() const {
    std::lock_guard lock(mutex_);
    return events_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::deque<int64_t>> events_;
  Bus* bus_ = nullptr;
  std::string name_;
};

// A player at a table, as the tables know them: what a recommendation needs.
struct RecommendingSeat {
  std::string code;
  int seat = 0;
  std::string name;
  std::string variant;
  int own_moves = 0;  // the most moves of their own in one finished game there
};

class Hub {
 public:
  using Post = std::function<void(std::function<void()>)>;
  // `now` gives milliseconds since the epoch (injectable for tests); `post`
  // runs a function on the hub's executor.
  Hub(Store& store, Post post, std::function<int64_t()> now, int cpu_threads = 1);
  ~Hub();

  void set_limits(const HubLimits& limits) { limits_ = limits; }
  const HubLimits& limits() const { return limits_; }
  // Runs a function on the hub's executor after a delay (ms). Without it,
  // delayed work (presence updates) is posted at once.
  using Defer = std::function<void(int64_t delay_ms, std::function<void()>)>;
  void set_defer(Defer defer) { defer_ = std::move(defer); }

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
  void set_writer(StoreWriter* writer) { writer_ = writer ? writer : own_writer_.get(); }

  // Opens the stored tables where the CPU owes a reply (call once, before
  // serving); every other table is read from the store when it is opened.
  void load();

  HttpReply create_table(const std::string& body, const std::string& ip);
  // `key` is the table's invite key from a link (may be empty): with it a
  // request is no guess at the code, and the wrong-code limit does not apply.
  // `proof` is a proof of work (proof_valid) that lets a lookup through while
  // the address is limited for wrong codes.
  HttpReply get_table(const std::string& code, const std::string& ip, const std::string& key = "",
                      const std::string& proof = "");
  HttpReply join(const std::string& code, const std::string& body, const std::string& ip);
  // The QR code of the table's invite link (which carries its key).
  HttpReply qr_svg(const std::string& code, const std::string& base_url, const std::string& ip,
                   const std::string& key = "");
  // An iCalendar event for a table with a scheduled start.
  HttpReply event_ics(const std::string& code, const std::string& base_url, const std::string& ip,
                      const std::string& key = "");
  // For a recommendation (community.h): the seat a token holds at a table,
  // with how much its player played there; or the refusal (403, and a wrong
  // pair counts as a wrong code).
  std::variant<RecommendingSeat, HttpReply> recommending_seat(const std::string& code, const std::string& token,
                                                              const std::string& ip);
  // GET /api/lobby: how many wait for an opponent and how many play now.
  HttpReply lobby();
  // GET /readyz: 200 when the hub answers and the store can be read, else 503.
  HttpReply ready();
  // GET /metrics: this hub's figures in Prometheus' text format (the network
  // layer decides who may see them).
  HttpReply metrics();
  // The player's view of the tables whose tokens a browser holds.
  HttpReply my_games(const std::string& body, const std::string& ip);

  // Web Push: `deliver` hands a message to the sender (it must not block);
  // `public_key` is the VAPID key, base64url; plain-http endpoints are refused
  // unless `allow_http` (tests).
  void set_push(std::string public_key, std::function<void(webpush::Delivery)> deliver, bool allow_http);
  HttpReply push_key() const;
  HttpReply push_subscribe(const std::string& body, const std::string& ip);
  HttpReply push_unsubscribe(const std::string& body);
  // The push service said the subscription is gone (404/410).
  void drop_subscription(const std::string& endpoint);

  // Ends the turn-based tables whose 45 days have run out (called every minute).
  void tick();
  // Instances sharing the store: plays the CPU turns whose searching
  // instance let its lease run out (it died); call every few seconds.
  void scan_cpu();
  // Instances sharing the store: says again who is at each table here (every
  // PRESENCE_HEARTBEAT_MS), and forgets what an instance silent for two of
  // those said; call every few seconds.
  void heartbeat();
  // Testing aid: lets POST /api/test/clock move the hub's clock forward.
  void enable_test_clock() { test_clock_ = true; }
  bool test_clock_enabled() const { return test_clock_; }
  HttpReply advance_clock(const std::string& body);

  void on_message(const std::shared_ptr<Client>& c, const std::string& text);
  void on_close(const std::shared_ptr<Client>& c);

  // The tables in memory (those in play, and those opened a short while ago).
  size_t table_count() const { return tables_.size(); }

  // Whether `ip` may look up a table's code (or a game's id) now, counting a
  // wrong guess when `wrong`. Thread-safe: the games' records ask it from
  // their own threads.
  bool code_guess_allowed(const std::string& ip, bool wrong);
  // The hub's clock (ms since the epoch; a test may move it). Thread-safe.
  int64_t now() const { return now_() + clock_offset_.load(); }

 private:
  // The table for a code, read from the store if it is not in memory, and
  // ended first if its time has run out.
  Table* find(const std::string& code);
  // Reads a table in memory again from the store (another instance changed
  // it) and sends it to its watchers.
  void reload(Table& p);
  // Tells the other instances that this one changed a table; and what the
  // hub does when another one did. `from`: the game's version before a change
  // that was only actions, which then ride along; A_GAME_BEGAN for a change
  // that was only a new game (which rides along too); -1: any other change.
  static constexpr int A_GAME_BEGAN = -2;
  void publish(const Table& p, int from = -1);
  // Tells the other instances who is at a table here.
  void publish_presence(const Table& p);
  void on_bus(const BusMessage& m);
  // Handles the messages from the bus waiting in bus_inbox_, at most
  // BUS_SLICE at a time before the hub's other work.
  void drain_bus();
  // Drops from memory the tables nobody has been at for table_idle_ms.
  void close_idle_tables();
  void expire_if_due(Table& p);
  // Pushes to the seats that must now act after `actor` did `type` (turn-based tables).
  // With other instances, a table's push subscriptions are read again from
  // the store (a browser may have subscribed at another instance).
  void refresh_subscriptions(const std::string& code);
  void notify(Table& p, int actor, const std::string& kind);
  void push_to_seat(Table& p, int seat, const std::string& kind, const std::string& opponent, const std::string& move);
  // The seat each (code, token) pair holds; wrong pairs go to `unknown` and
  // count as wrong codes (an error once the address is limited).
  std::optional<Error> resolve_seats(const std::vector<std::pair<std::string, std::string>>& tables,
                                     const std::string& ip, std::vector<std::pair<Table*, int>>& seats,
                                     std::vector<std::string>& unknown);
  void forget_subscription(const std::string& endpoint);  // in memory only
  // Sends the table's players-and-spectators update to its watchers soon,
  // once for any number of changes in between.
  void presence_changed(Table& p);
  // A lookup by a credential (a seat's token, an invite key) shows the code
  // is no guess, so it goes on past the wrong-code limit; but each wrong
  // credential past it counts, and once an address has had as many of them
  // in a minute as it may have wrong codes, it looks nothing up either.
  bool credential_lookup_allowed(const std::string& ip);
  void wrong_credential(const std::string& ip);
  // The table for a code, counting a wrong code against the address; sets *e
  // (not found, or rate limited) when there is none to use. Past the limit,
  // a lookup goes on with a proof of work, or with the table's invite key
  // (see credential_lookup_allowed); otherwise it looks nothing up, so that
  // neither the answer, its time nor what is in memory tells whether the
  // code exists.
  Table* find_guarded(const std::string& code, const std::string& ip, std::optional<Error>& e,
                      const std::string& key = "", const std::string& proof = "");
  // A proof of work for a code lookup while `ip` is limited for wrong codes:
  // "STAMP.NONCE", STAMP being "MS.RANDOM" (a challenge the server gave, or
  // any), MS no more than a minute old, the SHA-256 of the whole text
  // starting with proof_bits() zero bits, and each stamp used once. So a
  // valid code typed by hand always opens after a moment's work in the
  // browser, while every further wrong guess costs that work.
  bool proof_valid(const std::string& proof, const std::string& ip);
  int proof_bits(const std::string& ip);
  std::string proof_challenge();
  std::string new_code();
  // The seat that holds `token` at the table, or -1; with other instances, a
  // token not known here is looked for in the store too (while a seat is
  // free here; it counts as a wrong code of `ip`).
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
  // A rematch offer made, declined or withdrawn: stored by the writer, then
  // made and told.
  void store_rematch(const std::shared_ptr<Client>& c, const std::string& id, const std::string& type, Table& p,
                     Table::RematchChange change);
  // Finding an opponent: a seek (pairs at once when someone compatible waits),
  // its cancellation, and the waiting and playing counts sent to the seekers.
  // A seek naming a table (`code`, with its seat's `token`) whose pairing
  // was just called off for the other player's missing first move goes to
  // the front of the queue, once; any other seek joins at the back.
  void seek(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name, const std::string& browser,
            const std::string& code = "", const std::string& token = "");
  bool may_seek_at_front(const std::shared_ptr<Client>& c, const std::string& code, const std::string& token);
  void unseek(const std::shared_ptr<Client>& c, bool tell);
  // With instances sharing a bus, the queue lives there: pairs with the
  // longest-waiting compatible seeker at any instance, or joins the queue.
  // `queue` is the shared queue as just read. False when the bus does not
  // take the new entry (the local queue is used meanwhile).
  bool seek_shared(const std::shared_ptr<Client>& c, const SeekWish& wish, const std::string& name,
                   const std::string& browser, int64_t t, const std::vector<std::string>& queue);
  // How many wait from one address (in `queue`, the shared one, with a bus).
  size_t waiting_from(const std::string& ip, const std::optional<std::vector<std::string>>& queue) const;
  void lobby_changed();
  boost::json::object lobby_counts() const;
  void pair(const Pairing& p);
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
  // A quick message (a fixed phrase) from a player, to everyone at the table.
  void say(const std::shared_ptr<Client>& c, Table& p, const std::string& id, const std::string& phrase);
  void maybe_cpu(Table& p);
  void on_cpu_result(const std::string& code, int64_t game, int version, std::vector<std::string> actions);

  Store& store_;
  Post post_;
  std::function<int64_t()> now_;
  std::map<std::string, Table> tables_;
  std::map<std::string, std::set<std::shared_ptr<Client>>> watchers_;
  HubLimits limits_;
  Defer defer_;
  AddressLimiter wrong_codes_, creates_, joins_, cpu_creates_, subscribes_;
  // The version last sent to a table's watchers, and its whole state once made.
  struct CachedState {
    int64_t game = 0;
    int version = -1;
    std::shared_ptr<const std::string> text;
  };
  std::map<std::string, CachedState> states_;  // by table code, while someone watches
  std::set<std::string> presence_pending_;  // tables with a presence update on its way
  std::set<std::string> cpu_busy_;  // tables whose CPU is thinking
  std::map<std::string, std::string> cpu_owner_;  // table code -> the address its CPU works for
  std::mt19937_64 rng_;
  std::map<std::string, std::vector<SubscriptionRecord>> subscriptions_;  // by table code
  std::function<void(webpush::Delivery)> deliver_;
  std::string push_public_key_;
  bool push_allow_http_ = false;
  bool test_clock_ = false;
  std::atomic<int64_t> clock_offset_{0};
  int64_t started_at_ = 0;
  // Wrong codes looked up with a proof of work (each raises the work asked
  // of that address); the stamps already used.
  AddressLimiter proof_misses_, proof_stamps_;
  AddressLimiter credentials_;  // wrong tokens and keys past the wrong-code limit
  Matchmaker matchmaker_;
  std::map<uint64_t, std::weak_ptr<Client>> seekers_;  // by client id
  std::map<uint64_t, std::string> shared_seeks_;  // this instance's entries in the shared queue, by client id
  // The seekers' own connections of the pairings still waiting for their
  // players, by table code: told when the pairing ends unstarted.
  std::map<std::string, std::vector<std::weak_ptr<Client>>> pairing_seekers_;
  std::map<std::string, int64_t> fronts_taken_;  // tables whose front-of-queue seek was used, and when
  AddressLimiter seeks_;
  uint64_t next_client_id_ = 0;
  bool lobby_pending_ = false;
  Bus* bus_ = nullptr;
  std::mutex bus_inbox_mutex_;
  std::deque<BusMessage> bus_inbox_;  // from the bus's thread
  bool bus_draining_ = false;         // a drain_bus is posted or running
  std::unique_ptr<StoreWriter> own_writer_;  // at once, on store_
  StoreWriter* writer_;
  uint64_t actions_stored_ = 0;   // for /metrics
  double bus_heartbeat_s_ = 0;  // the last bus heartbeat's time
  std::set<std::string> storing_;  // tables with actions being stored
  std::map<std::string, std::deque<std::function<void()>>> waiting_;  // their messages meanwhile, in order
  CpuPool cpu_;
};

// A table's messages that may wait for its action being stored, and one
// connection's; past these, more are refused (as too many messages).
constexpr size_t MAX_WAITING_ACTIONS = 64;
constexpr size_t MAX_WAITING_PER_CONNECTION = 16;
// Messages from the bus handled in one go before the hub's other work.
constexpr size_t BUS_SLICE = 32;

// At most this many tables where the CPU owes a reply are opened at start,
// and this many turn-based tables are ended by one tick.
constexpr int CPU_TURNS_AT_START = 100000;
constexpr int EXPIRIES_PER_TICK = 1000;
// The lease on a CPU turn lasts the search's time cap and this much more
// (the wait for a CPU thread, the pause of the low levels).
constexpr int64_t CPU_LEASE_MARGIN_MS = 10000;
// Instances tell each other who is at their tables this often.
constexpr int64_t PRESENCE_HEARTBEAT_MS = 30000;

// An event carries at most this many actions (a CPU's count and move, say);
// past it the whole state goes out.
constexpr int MAX_EVENT_ACTIONS = 8;

// A player may send one quick message this often.
constexpr int64_t QUICK_MESSAGE_GAP_MS = 2000;

// Secrets and codes (random_token: table.h).
std::string normalise_code(std::string code);  // table codes are upper case
std::string hash_token(const std::string& token);  // hex SHA-256
constexpr std::string_view CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

}  // namespace makruk::server
