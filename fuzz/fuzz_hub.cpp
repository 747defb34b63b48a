// libFuzzer target for the hub's WebSocket message handler, driven by several
// clients at once over a real SQLite store (in memory, a fresh one per input).
// Each input sets up the same three tables through the HTTP calls, then plays
// a script of operations read from the input: messages (built from the
// protocol's fields and values, or raw bytes), closes, reconnections, HTTP
// joins, clock jumps and the minute tick. The hub's posted work and delayed
// work run on a fake executor and a fake clock, so nothing depends on timing;
// codes and tokens come from a generator seeded the same for every input (this
// target builds the hub with MAKRUK_FUZZ_REPLAY), so a crashing input replays.
// No table has a CPU player: its search would run on a thread.
//
// Nothing may crash, and these must hold (a violation traps):
//  - every text sent to a client is a JSON object with a string "t"; every
//    `state` has versions that do not go back since the client's `welcome`
//    and no legal moves once the game has a result; every `error` carries one
//    of the documented codes;
//  - every message a client sends is answered (at least one text to it, by
//    the time the work queued meanwhile has run); a connection's first
//    message gives it to a table's hub (a hello) or to the lobby, and a
//    hello moves a lobby's connection to the hub, as the network layer does;
//  - nothing is sent to a connection after the hub heard it close;
//  - after every operation, each table's spectator count and its players'
//    "online" flags (GET /api/tables/CODE) match the clients that are in it;
//    after every client has closed, nobody is counted;
//  - a hub restarted on the same store shows every table and game as the old
//    hub did, table and state messages alike (when the set-up byte asks).
// With MAKRUK_FUZZ_HUB_TRACE set, each message and each answer is printed
// (to read a crashing input: fuzz_hub CRASH_FILE).
//
// Input layout: one byte picks the hub's set-up (bit 0: delayed work runs
// through set_defer's timers, else through `post`; bit 1: the restart check
// runs at the end, which costs a second hub), then operations follow
// until the input ends (at most MAX_OPS). Each operation is one byte `op`:
// the client is op & 3 (a connection from ADDRESSES[client % 3] is opened
// when the client has none), the kind is (op >> 2) % 16, then its operands:
//    0-4  message: an object (see read_object)
//    5    raw message: a length byte, then that many bytes as the text
//    6    burst: a count byte (count % 80 + 1), then an object sent that many
//         times at the same instant (the rate limit, then the closing strikes)
//    7    the client closes
//    8    the client reconnects: a new connection from address byte % 3
//    9    the clock jumps: a byte indexes CLOCK_STEPS
//   10    play: a byte picks one of the legal moves of the last state the
//         client saw, sent with that state's version
//   11    hello: a byte picks the table (b % 3) and who (b / 3 % 3: host, second
//         player, spectator)
//   12    action: a byte picks the type (ACTIONS), sent with the last version seen
//   13    HTTP join: a table byte, then a name byte b (b % 16 indexes NAMES;
//         past them, a returning browser's token, exact when b & 128)
//   14    the hub's minute tick
//   15    hold: the next operation comes before the work the hub has queued
// The clock moves STEP_MS before every operation; queued work runs after each
// operation, delayed work when the clock reaches it.
// An object: a byte n, then n % 8 fields, each a key byte (KEYS) and a value
// byte vb: vb >> 6 is 0 or 1 for a value of the key's own kind (the legal
// moves and versions the client last saw, the real codes and tokens, near
// misses), 2 for an odd JSON value (ODD), 3 for a string of the next
// vb % 32 input bytes.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "server/tables/hub.h"
#include "server/stores/store.h"
#include "server/push/webpush.h"

using namespace makruk::server;
namespace json = boost::json;

namespace {

#define CHECK(cond)                 \
  do {                              \
    if (!(cond)) __builtin_trap();  \
  } while (0)

// A set-up step failed: the hub's API changed under this target.
[[noreturn]] void setup_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_hub: set-up failed: %s: %s\n", what, detail.c_str());
  std::abort();
}

constexpr int64_t T0 = 1764460800000;  // 2025-11-30T00:00:00Z
constexpr int64_t STEP_MS = 100;
constexpr size_t MAX_OPS = 300;
constexpr int CLIENTS = 4;
constexpr const char* CHECK_IP = "198.51.100.200";  // only asks for real codes
const bool TRACE = std::getenv("MAKRUK_FUZZ_HUB_TRACE") != nullptr;
constexpr const char* ADDRESSES[] = {"192.0.2.1", "192.0.2.2", "192.0.2.3"};
constexpr int64_t CLOCK_STEPS[] = {0,       10,           50,         1000,        61000,
                                   600000,  3600000,      86401000,   3888000000, 3974400000};

const std::vector<std::string> KEYS = {"t", "id", "code", "token", "move", "v", "name", "x", "", "T",
                                       "key", "variant", "counting", "mode", "browser", "phrase"};
const std::vector<std::string> TYPES = {"hello", "ping",   "sync",  "start", "rematch", "move",    "count",
                                        "stop",  "claim",  "resign", "dance", "",       "HELLO",   "ack",
                                        "state", "welcome", "decline-rematch", "seek", "unseek", "paired",
                                        "offer-draw", "accept-draw", "decline-draw", "say"};
const std::vector<std::string> ACTIONS = {"start", "rematch", "count",   "stop", "claim",
                                          "resign", "sync",   "ping",    "decline-rematch", "seek", "unseek",
                                          "offer-draw", "accept-draw", "decline-draw"};
const std::vector<std::string> MOVES = {"e3e4", "h3h4", "a3a4", "d3d4", "e6e5", "a6a5", "b1c3", "g8f6",
                                        "c3c4", "e6d6", "e3e9", "",     "z9z9", "e3e4e5", "e3", "0000",
                                        "E3E4", "e3e4+", "count:w", "resign:b"};
const std::vector<std::string> IDS = {"", "a", "1", std::string(64, 'i'), std::string(65, 'i'), "\xe0\xb8\x81"};
const std::vector<std::string> ODD = {"null", "true", "false", "0", "-1", "1.5", "[]", "{}", "[1,\"a\"]",
                                      "{\"t\":\"hello\"}", "\"\"", "\"x\"", "1e400", "-0", "\"\\u0000\"",
                                      "18446744073709551616", std::string(40, '[') + std::string(40, ']')};
const std::vector<std::string> VERSIONS = {"0", "-1", "1", "2147483647", "2147483648", "4294967296", "4294967297",
                                           "4611686018427387904", "9223372036854775807", "9223372036854775808",
                                           "18446744073709551615", "18446744073709551616", "1.0", "0.5",
                                           "-9223372036854775808", "\"1\"", "1e3", "null", "true"};
const std::vector<std::string> NAMES = {"Dara", "", "  ", std::string(41, 'n'), "a\x01", "\xe2\x80\x8b",
                                        "\xe0\xb8\xaa\xe0\xb8\xa1\xe0\xb8\x8a\xe0\xb8\xb2\xe0\xb8\xa2"};

std::string quote(std::string_view s) { return json::serialize(json::value(json::string(s))); }

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return n_ == 0; }
  uint8_t byte() {
    if (!n_) return 0;
    --n_;
    return *p_++;
  }
  std::string bytes(size_t k) {
    k = std::min(k, n_);
    std::string s(reinterpret_cast<const char*>(p_), k);
    p_ += k, n_ -= k;
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

// A connection as the hub sees it: it checks and records what it is sent.
struct FakeClient : Client {
  int slot = 0;
  Listener* heard_by = nullptr;  // chosen by its first message, as the network layer does
  bool lobby_heard = false;      // the lobby heard it before it said hello at a table
  size_t received = 0;
  bool gone = false;           // the hub heard it close: nothing more may come
  bool closed_by_hub = false;  // the hub asked to close it
  std::function<void()> on_hub_close;
  // From the texts since the last welcome.
  int64_t game = -1, version = -1;
  std::vector<std::string> legal;

  void send(std::shared_ptr<const std::string> text) override {
    CHECK(text);
    if (TRACE) std::fprintf(stderr, "  %d< %s\n", slot, text->c_str());
    CHECK(!gone);
    ++received;
    boost::system::error_code ec;
    json::value v = json::parse(*text, ec);
    CHECK(!ec && v.is_object());
    const json::object& o = v.as_object();
    const json::value* t = o.if_contains("t");
    CHECK(t && t->is_string());
    const json::string& type = t->as_string();
    if (type == "welcome") {
      game = -1, version = -1;
      legal.clear();
      const json::value* seat = o.if_contains("seat");
      CHECK(seat && (seat->is_null() || (seat->is_int64() && (seat->as_int64() == 0 || seat->as_int64() == 1))));
    } else if (type == "state") {
      const json::value *g = o.if_contains("game"), *ver = o.if_contains("v"), *l = o.if_contains("legal"),
                        *result = o.if_contains("result");
      CHECK(g && g->is_int64() && ver && ver->is_int64() && ver->as_int64() >= 0);
      CHECK(l && l->is_array() && result && result->is_string());
      const int64_t gi = g->as_int64(), vi = ver->as_int64();
      // The table's game only moves forward: a later game, or the same at a later version.
      CHECK(gi > game || (gi == game && vi >= version));
      game = gi, version = vi;
      if (result->as_string() != "*") CHECK(l->as_array().empty());
      legal.clear();
      for (const json::value& m : l->as_array()) {
        CHECK(m.is_string());
        legal.emplace_back(m.as_string());
      }
    } else if (type == "ack") {
      const json::value* ver = o.if_contains("v");
      CHECK(ver && ver->is_int64() && ver->as_int64() >= 0);
    } else if (type == "error") {
      const json::value* code = o.if_contains("code");
      CHECK(code && code->is_string());
      const json::string& c = code->as_string();
      CHECK(c == "bad-request" || c == "not-found" || c == "forbidden" || c == "rate-limited" || c == "conflict");
    } else if (type == "party") {
      const json::value* spectators = o.if_contains("spectators");
      CHECK(spectators && spectators->is_int64() && spectators->as_int64() >= 0);
    }
  }
  void close() override {
    if (gone || closed_by_hub) return;
    closed_by_hub = true;
    if (on_hub_close) on_hub_close();
  }
};

// What runs on the hub's executor besides the messages: posted work, and
// delayed work keyed by the time it is due. Work that keeps queueing more
// work without end is a bug too.
struct Executor {
  static constexpr size_t MAX_RUNS = 10000;
  int64_t now = T0;
  std::deque<std::function<void()>> posted;
  std::multimap<int64_t, std::function<void()>> timers;

  void run_posted() {
    for (size_t runs = 0; !posted.empty(); ++runs) {
      CHECK(runs < MAX_RUNS);
      auto f = std::move(posted.front());
      posted.pop_front();
      f();
    }
  }
  void run_due() {
    for (size_t runs = 0;; ++runs) {
      CHECK(runs < MAX_RUNS);
      run_posted();
      auto it = timers.begin();
      if (it == timers.end() || it->first > now) return;
      auto f = std::move(it->second);
      timers.erase(it);
      f();
    }
  }
  void clear() {
    posted.clear();
    timers.clear();
  }
};

const std::string& browser_p256dh() {
  static const std::string key = [] {
    std::string scalar;
    for (int i = 1; i <= 32; ++i) scalar += char(i);
    auto pair = webpush::KeyPair::from_private(scalar);
    if (!pair) setup_failed("browser key", "");
    return webpush::b64url_encode(pair->public_raw());
  }();
  return key;
}

// The hub as the server builds it, on the fake executor and clock, with Web
// Push deliveries checked. The one place to adapt when the hub's construction
// changes.
std::unique_ptr<Hub> make_hub(Store& store, Executor& ex, bool deferred) {
  auto hub = std::make_unique<Hub>(
      store, [&ex](std::function<void()> f) { ex.posted.push_back(std::move(f)); }, [&ex] { return ex.now; }, 1);
  if (deferred)
    hub->set_defer([&ex](int64_t delay_ms, std::function<void()> f) {
      CHECK(delay_ms >= 0);
      ex.timers.emplace(ex.now + delay_ms, std::move(f));
    });
  hub->load();
  return hub;
}

// Turn notifications as the server builds them beside the hub: their work on
// the fake executor, a writer of their own (writing at once), Web Push
// deliveries checked.
struct Notices {
  Notices(Store& store, Hub& hub, Executor& ex)
      : writer(store),
        part(Hub::notices_tables(1, [&hub](size_t, std::function<void(Hub&)> work) { work(hub); }),
             [&ex] { return ex.now; }, [&ex](std::function<void()> f) { ex.posted.push_back(std::move(f)); }) {
    part.set_writer(&writer);
    part.set_limits(hub.limits().notices());
    part.set_push(
        "PUBLICKEY",
        [](webpush::Delivery d) {
          if (TRACE) std::fprintf(stderr, "push to %s: %s\n", d.to.endpoint.c_str(), d.payload.c_str());
          boost::system::error_code ec;
          json::value v = json::parse(d.payload, ec);
          CHECK(!ec && v.is_object() && d.payload.size() <= 3000);
          const json::value* kind = v.as_object().if_contains("kind");
          CHECK(kind && kind->is_string());
        },
        false);
    hub.set_notices(&part);
  }
  StoreWriter writer;
  TurnNotices part;
};

// The lobby as the server builds it: pairings made at the hub at once (its
// own work on the fake executor).
std::unique_ptr<Lobby> make_lobby(Hub& hub, Executor& ex, bool deferred) {
  auto lobby = std::make_unique<Lobby>(
      Hub::lobby_tables(hub, 1, [&hub](size_t, std::function<void(Hub&)> work) { work(hub); }),
      [&ex] { return ex.now; }, [&ex](std::function<void()> f) { ex.posted.push_back(std::move(f)); });
  lobby->set_limits(hub.limits().lobby());
  if (deferred)
    lobby->set_defer([&ex](int64_t delay_ms, std::function<void()> f) {
      CHECK(delay_ms >= 0);
      ex.timers.emplace(ex.now + delay_ms, std::move(f));
    });
  hub.set_lobby(lobby.get());
  return lobby;
}

json::object reply_object(const Answer& r, const char* what) {
  boost::system::error_code ec;
  json::value v = json::parse(r.body, ec);
  if (ec || !v.is_object() || (r.outcome != Outcome::Ok && r.outcome != Outcome::Created))
    setup_failed(what, std::string(outcome_name(r.outcome)) + " " + r.body);
  return v.as_object();
}

struct KnownTable {
  std::string code;
  std::vector<std::string> tokens;  // by seat
};

class Session {
 public:
  Session(bool deferred) : store_(open_sqlite_store(":memory:")), deferred_(deferred) {
    hub_ = make_hub(*store_, ex_, deferred_);
    lobby_ = make_lobby(*hub_, ex_, deferred_);
    notices_ = std::make_unique<Notices>(*store_, *hub_, ex_);
    create(R"({"name":"Somchai"})", true);
    create(R"({"name":"Somchai","variant":"ouk","mode":"turn","counting":"declare"})", true);
    create(R"({"name":"Somchai","counting":"declare","fen":"8/8/4k3/8/8/2R5/8/3K4 w - - 0 1","startsAt":)" +
               std::to_string(T0 + 600000) + "}",
           false);
    // Both players of the turn-based table, and the live table's host, get pushes.
    std::string tables;
    const std::pair<size_t, size_t> subscribed[] = {{1, 0}, {1, 1}, {0, 0}};
    for (const auto& [t, seat] : subscribed)
      tables += std::string(tables.empty() ? "" : ",") + R"({"code":)" + quote(tables_[t].code) +
                R"(,"token":)" + quote(tables_[t].tokens[seat]) + "}";
    std::optional<Answer> answered;
    notices_->part.subscribe(R"({"subscription":{"endpoint":"https://push.example.net/one","keys":{"p256dh":)" +
                                 quote(browser_p256dh()) + R"(,"auth":"AAECAwQFBgcICQoLDA0ODw"}},"lang":"th",)"
                                 R"("tables":[)" + tables + "]}",
                             "10.0.0.9", [&answered](Answer a) { answered = std::move(a); });
    ex_.run_due();
    if (!answered) setup_failed("push subscription", "no answer");
    reply_object(*answered, "push subscription");
    ex_.run_due();
    check_counts();
  }

  ~Session() {
    ex_.clear();
    lobby_.reset();
    hub_.reset();
  }

  void run(Reader& in, bool restart) {
    bool hold = false;
    for (size_t ops = 0; !in.empty() && ops < MAX_OPS; ++ops) {
      ex_.now += STEP_MS;
      if (!hold) ex_.run_due();
      hold = false;
      const uint8_t op = in.byte();
      const int who = op & 3;
      switch ((op >> 2) % 16) {
        case 5: say(who, in.bytes(in.byte())); break;
        case 6: {
          int n = in.byte() % 80 + 1;
          std::string text = read_object(in, who);
          for (int i = 0; i < n; ++i) say(who, text);
          break;
        }
        case 7: close(who); break;
        case 8:
          close(who);
          open(who, in.byte() % 3);
          break;
        case 9:
          ex_.now += CLOCK_STEPS[in.byte() % std::size(CLOCK_STEPS)];
          if (TRACE) std::fprintf(stderr, "clock: T0 + %lld ms\n", static_cast<long long>(ex_.now - T0));
          break;
        case 10: {
          FakeClient& c = client(who);
          uint8_t b = in.byte();
          std::string move = c.legal.empty() ? MOVES[b % MOVES.size()] : c.legal[b % c.legal.size()];
          say(who, R"({"t":"move","id":"m","v":)" + std::to_string(std::max<int64_t>(c.version, 0)) +
                       R"(,"move":)" + quote(move) + "}");
          break;
        }
        case 11: {
          uint8_t b = in.byte();
          const KnownTable& t = tables_[b % 3];
          size_t seat = b / 3 % 3;
          std::string msg = R"({"t":"hello","code":)" + quote(t.code);
          if (seat < t.tokens.size()) msg += R"(,"token":)" + quote(t.tokens[seat]);
          say(who, msg + "}");
          break;
        }
        case 12: {
          FakeClient& c = client(who);
          say(who, R"({"t":)" + quote(ACTIONS[in.byte() % ACTIONS.size()]) + R"(,"v":)" +
                       std::to_string(std::max<int64_t>(c.version, 0)) + "}");
          break;
        }
        case 13: join(in.byte() % 3, in.byte()); break;
        case 14:
          if (TRACE) std::fprintf(stderr, "tick\n");
          hub_->tick();
          break;
        case 15:
          if (TRACE) std::fprintf(stderr, "hold\n");
          hold = true;
          break;
        default: say(who, read_object(in, who)); break;
      }
      if (!hold) {
        ex_.run_posted();
        check_answered();
      }
      check_counts();
    }
    // Everyone leaves; then nobody may be counted anywhere.
    ex_.run_due();
    for (int i = 0; i < CLIENTS; ++i) close(i);
    ex_.now += 1000;
    ex_.run_due();
    check_counts();
    if (restart) check_restart();
  }

 private:
  void create(const std::string& body, bool second_player) {
    json::object r = reply_object(hub_->create_table(body, "10.0.0.1"), "create a table");
    const json::value *code = r.if_contains("code"), *token = r.if_contains("token");
    if (!code || !code->is_string() || !token || !token->is_string()) setup_failed("create a table", json::serialize(r));
    KnownTable t{std::string(code->as_string()), {std::string(token->as_string())}};
    if (second_player) {
      json::object j = reply_object(hub_->join(t.code, R"({"name":"Dara"})", "10.0.0.2"), "join a table");
      const json::value* guest = j.if_contains("token");
      if (!guest || !guest->is_string() || guest->as_string().empty()) setup_failed("join a table", json::serialize(j));
      t.tokens.emplace_back(guest->as_string());
    }
    tables_.push_back(std::move(t));
  }

  std::string typed_value(const std::string& key, uint8_t vb, int who) {
    const size_t i = vb & 63;
    const bool first = (vb >> 6) == 0;
    FakeClient& c = client(who);
    if (key == "t") return quote(TYPES[i % TYPES.size()]);
    if (key == "id") return quote(IDS[i % IDS.size()]);
    if (key == "move") {
      if (first && !c.legal.empty()) return quote(c.legal[i % c.legal.size()]);
      return quote(MOVES[i % MOVES.size()]);
    }
    if (key == "v") {
      if (first) return std::to_string(std::max<int64_t>(c.version, 0) + int64_t(i % 4) - 1);
      return VERSIONS[i % VERSIONS.size()];
    }
    if (key == "code") {
      const std::string& real = tables_[i % 3].code;
      switch (i / 3 % 6) {
        case 0:
        case 1: return quote(real);
        case 2: return quote(lower(real));
        case 3: return quote(real + " ");
        case 4: return quote(real.substr(0, i % 6));
        default: {
          static const std::string other[] = {"", "ZZZZZZ", std::string(200, 'A'), "\xe0\xb8\x81", "A\x7f"};
          return quote(other[i % std::size(other)]);
        }
      }
    }
    if (key == "token") {
      std::vector<std::string> all;
      for (const KnownTable& t : tables_) all.insert(all.end(), t.tokens.begin(), t.tokens.end());
      const std::string& real = all[i % all.size()];
      switch (i / 8 % 4) {
        case 0:
        case 1: return quote(real);
        case 2: return quote(i % 2 ? upper(real) : real + "0");
        default: {
          static const std::string other[] = {"", std::string(32, '0'), std::string(64, 'f'), std::string(65, 'f')};
          return quote(other[i % std::size(other)]);
        }
      }
    }
    if (key == "variant" || key == "counting" || key == "mode" || key == "browser" || key == "phrase") {
      static const std::string wishes[] = {"makruk", "ouk", "", "auto", "declare", "live", "turn", "b1", "b2",
                                           "good-game", "thanks", "<b>"};
      return quote(wishes[i % std::size(wishes)]);
    }
    return quote(NAMES[i % NAMES.size()]);
  }

  std::string read_object(Reader& in, int who) {
    const int n = in.byte() % 8;
    std::string text = "{";
    for (int k = 0; k < n; ++k) {
      const std::string& key = KEYS[in.byte() % KEYS.size()];
      const uint8_t vb = in.byte();
      std::string value;
      switch (vb >> 6) {
        case 2: value = ODD[(vb & 63) % ODD.size()]; break;
        case 3: value = quote(in.bytes(vb & 31)); break;
        default: value = typed_value(key, vb, who); break;
      }
      text += (k ? "," : "") + quote(key) + ":" + value;
    }
    return text + "}";
  }

  // The client's connection; a new one when it has none, or when the hub has
  // closed the last one.
  FakeClient& client(int i) {
    if (!clients_[size_t(i)] || clients_[size_t(i)]->gone) open(i, i % 3);
    return *clients_[size_t(i)];
  }

  void open(int i, int address) {
    auto c = std::make_shared<FakeClient>();
    c->slot = i;
    c->ip = ADDRESSES[address];
    if (TRACE) std::fprintf(stderr, "%d opens from %s\n", i, c->ip.c_str());
    // The network layer hears the socket close and tells the hub, later.
    std::weak_ptr<FakeClient> weak = c;
    c->on_hub_close = [this, weak] {
      ex_.posted.push_back([this, weak] {
        if (auto c = weak.lock(); c && !c->gone) heard_close(c);
      });
    };
    clients_[size_t(i)] = std::move(c);
  }

  // Its listeners hear it close.
  void heard_close(const std::shared_ptr<FakeClient>& c) {
    if (c->heard_by) c->heard_by->on_close(c);
    if (c->lobby_heard) lobby_->on_close(c);
    c->gone = true;
  }

  void close(int i) {
    auto& c = clients_[size_t(i)];
    if (!c) return;
    if (!c->gone) {
      if (TRACE) std::fprintf(stderr, "%d closes\n", i);
      heard_close(c);
    }
    c.reset();
  }

  void say(int who, const std::string& text) {
    FakeClient& c = client(who);
    std::shared_ptr<FakeClient> keep = clients_[size_t(who)];
    const size_t before = c.received;
    if (TRACE) std::fprintf(stderr, "%d> %s\n", who, text.c_str());
    if (!c.heard_by || c.heard_by == lobby_.get()) {  // a hello moves a lobby's connection to the hub
      if (!hello_code(text).empty()) {
        c.lobby_heard = c.heard_by != nullptr;
        c.heard_by = hub_.get();
      } else if (!c.heard_by) {
        c.heard_by = lobby_.get();
      }
    }
    c.heard_by->on_message(keep, text);
    // Answered at once, or (the lobby asking the table's hub) once the
    // work queued now has run.
    unanswered_.push_back({keep, before});
  }

  // Every message said is answered by the time the work queued has run.
  void check_answered() {
    for (const auto& [c, before] : unanswered_) CHECK(c->gone || c->received > before);
    unanswered_.clear();
  }

  void join(size_t table, uint8_t b) {
    KnownTable& t = tables_[table];
    std::string body;
    if (b % 16 < NAMES.size()) {
      body = R"({"name":)" + quote(NAMES[b % 16]) + "}";
    } else {
      std::string token = t.tokens[b % t.tokens.size()];
      body = R"({"name":"Dara","token":)" + quote(b & 128 ? token : token + "x") + "}";
    }
    Answer r = hub_->join(t.code, body, ADDRESSES[b % 3]);
    if (TRACE) std::fprintf(stderr, "join %s %s: %s %s\n", t.code.c_str(), body.c_str(), std::string(outcome_name(r.outcome)).c_str(), r.body.c_str());
    boost::system::error_code ec;
    json::value v = json::parse(r.body, ec);
    CHECK(!ec && v.is_object());
    if (r.outcome != Outcome::Ok) return;
    const json::value *token = v.as_object().if_contains("token"), *seat = v.as_object().if_contains("seat");
    CHECK(token && token->is_string() && seat);
    if (seat->is_int64() && size_t(seat->as_int64()) == t.tokens.size()) t.tokens.emplace_back(token->as_string());
  }

  // Every table's counts against the clients that are in it.
  void check_counts() {
    for (const KnownTable& t : tables_) {
      Answer r = hub_->get_table(t.code, CHECK_IP);
      CHECK(r.outcome == Outcome::Ok);
      boost::system::error_code ec;
      json::value v = json::parse(r.body, ec);
      CHECK(!ec && v.is_object());
      const json::object& party = v.at("party").as_object();
      int64_t spectators = 0;
      int seated[2] = {0, 0};
      for (const auto& c : clients_) {
        if (!c || c->gone || !c->joined || c->code != t.code) continue;
        if (c->seat < 0) ++spectators;
        else if (c->seat < 2) ++seated[c->seat];
        else CHECK(false);
      }
      CHECK(party.at("spectators").as_int64() == spectators);
      const json::array& players = party.at("players").as_array();
      CHECK(players.size() <= 2);
      for (size_t s = 0; s < players.size(); ++s)
        CHECK(players[s].at("online").as_bool() == (seated[s] > 0));
    }
  }

  static std::string comparable(const std::string& text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    CHECK(!ec && v.is_object());
    return json::serialize(v);
  }

  // What a table looks like from outside: its HTTP view and what a spectator
  // is sent on arrival.
  std::vector<std::string> look(Hub& hub, const KnownTable& t) {
    std::vector<std::string> out{comparable(hub.get_table(t.code, CHECK_IP).body)};
    struct Recorder : Client {
      std::vector<std::string>* out;
      void send(std::shared_ptr<const std::string> text) override { out->push_back(comparable(*text)); }
      void close() override {}
    };
    auto c = std::make_shared<Recorder>();
    c->ip = CHECK_IP;
    c->out = &out;
    hub.on_message(c, R"({"t":"hello","code":)" + quote(t.code) + "}");
    hub.on_close(c);
    return out;
  }

  // A restart on the same store shows the same tables and games.
  void check_restart() {
    std::vector<std::vector<std::string>> before, after;
    for (const KnownTable& t : tables_) before.push_back(look(*hub_, t));
    ex_.clear();
    lobby_.reset();
    hub_.reset();
    hub_ = make_hub(*store_, ex_, deferred_);
    lobby_ = make_lobby(*hub_, ex_, deferred_);
    notices_ = std::make_unique<Notices>(*store_, *hub_, ex_);
    for (const KnownTable& t : tables_) after.push_back(look(*hub_, t));
    ex_.clear();
    for (size_t i = 0; i < before.size(); ++i) {
      if (before[i] != after[i]) {
        std::fprintf(stderr, "fuzz_hub: table %s differs after a restart\n", tables_[i].code.c_str());
        for (size_t k = 0; k < std::max(before[i].size(), after[i].size()); ++k)
          std::fprintf(stderr, "before: %s\nafter:  %s\n", k < before[i].size() ? before[i][k].c_str() : "-",
                       k < after[i].size() ? after[i][k].c_str() : "-");
        __builtin_trap();
      }
    }
  }

  std::unique_ptr<Store> store_;
  Executor ex_;
  bool deferred_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<Lobby> lobby_;
  std::unique_ptr<Notices> notices_;
  std::vector<std::pair<std::shared_ptr<FakeClient>, size_t>> unanswered_;  // said, and texts received before
  std::vector<KnownTable> tables_;
  std::shared_ptr<FakeClient> clients_[CLIENTS];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Reader in(data, size);
  const uint8_t setup = in.byte();
  seed_for_replay(0);  // the same codes and tokens for every input
  Session session(setup & 1);
  session.run(in, setup & 2);
  return 0;
}
