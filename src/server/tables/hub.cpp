#include "server/tables/hub.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include <boost/json.hpp>

#include "core/movegen.h"
#include "core/notation.h"
#include "server/tables/hub_detail.h"
#include "server/text.h"
#include "server/tables/invites.h"
#include "server/metrics.h"

namespace makruk::server {

namespace json = boost::json;

namespace detail {

std::string hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
  return s;
}

Answer reply(Outcome outcome, const json::value& v) { return Answer{outcome, json::serialize(v)}; }

void add_message(json::object& o, const Message& m) {
  o["msg"] = message_id(m.id);
  json::object args;
  for (const Message::Arg& a : m.args) {
    if (a.nested) {
      json::object inner{{"error", a.text}};
      add_message(inner, *a.nested);
      args[a.name] = std::move(inner);
    } else if (a.number) {
      args[a.name] = std::stoll(a.text);
    } else {
      args[a.name] = a.text;
    }
  }
  o["args"] = std::move(args);
}

json::object error_json(std::string_view code, const Message& m) {
  json::object o{{"error", m.english()}, {"code", code}};
  add_message(o, m);
  return o;
}
json::object error_json(const Error& e) { return error_json(error_code_name(e.code), e.msg); }

Answer error_reply(const Error& e) { return reply(outcome_of(e.code), error_json(e)); }
Answer bad_request(Message why) { return error_reply(Error{ErrorCode::BadRequest, std::move(why)}); }
Answer storage_failed(const std::exception& e) {
  return reply(Outcome::Internal, error_json("internal", {Msg::StorageFailed, {{"detail", e.what()}}}));
}

Answer storage_failed(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return storage_failed(e);
  } catch (...) {
    return storage_failed(std::runtime_error("unknown"));
  }
}

Answer answered_at_once(const std::function<void(std::function<void(Answer)>)>& ask) {
  std::optional<Answer> answer;
  ask([&answer](Answer r) { answer = std::move(r); });
  if (!answer) throw std::logic_error("the hub's answer needs its writer's thread: call it with a Respond");
  return std::move(*answer);
}

// Parses a JSON object, or explains why not.
std::optional<json::object> parse_object(const std::string& text, Message& why) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) {
    why = {Msg::JsonMalformed, {{"detail", ec.message()}}};
    return std::nullopt;
  }
  if (!v.is_object()) {
    why = Msg::JsonNotObject;
    return std::nullopt;
  }
  return v.as_object();
}

// Reads an optional field of the expected kind; false when present with another kind.
bool get_string(const json::object& o, const char* key, std::string& out) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) return true;
  if (!it->value().is_string()) return false;
  out = std::string(it->value().as_string());
  return true;
}
bool get_bool(const json::object& o, const char* key, bool& out) {
  auto it = o.find(key);
  if (it == o.end()) return true;
  if (!it->value().is_bool()) return false;
  out = it->value().as_bool();
  return true;
}
bool get_int(const json::object& o, const char* key, int64_t& out, bool& present) {
  auto it = o.find(key);
  present = it != o.end() && !it->value().is_null();
  if (!present) return true;
  if (it->value().is_int64()) out = it->value().as_int64();
  else if (it->value().is_uint64() && it->value().as_uint64() < (1ULL << 62)) out = int64_t(it->value().as_uint64());
  else return false;
  return true;
}

// The link that invites to a table: with its key, so that following it is no
// guess at the code.
std::string invite_link(const std::string& base_url, const Table& p) {
  std::string link = base_url + "/p/" + p.code();
  if (!p.record().invite_key.empty()) link += "?k=" + p.record().invite_key;
  return link;
}

json::object table_json(const Table& p) {
  const TableRecord& r = p.record();
  json::array players;
  for (size_t i = 0; i < p.seats().size(); ++i) {
    const Seat& s = p.seats()[i];
    json::object o{{"seat", i}, {"name", s.name}, {"online", p.connections_anywhere(int(i)) > 0}, {"host", i == 0}};
    if (i == 1 && p.cpu_level()) {
      o["cpu"] = p.cpu_level();
      o["online"] = true;
    }
    players.push_back(std::move(o));
  }
  json::object o{{"code", r.code},
                 {"variant", r.variant},
                 {"rules", json::object{{"counting", r.counting},
                                        {"showLegal", r.show_legal},
                                        {"swapColors", r.swap_colors},
                                        {"labels", r.labels},
                                        {"clock", r.clock_ms ? json::value(json::object{{"ms", r.clock_ms},
                                                                                         {"incrementMs", r.increment_ms}})
                                                             : json::value(nullptr)}}},
                 {"players", std::move(players)},
                 {"status", p.status()}};
  o["fen"] = r.start_fen.empty() ? json::value(nullptr) : json::value(r.start_fen);
  o["spectators"] = p.spectators_anywhere();
  // The names spectators gave (here and on the other instances), each once,
  // in order (the first 50).
  std::set<std::string> names(p.spectator_names.begin(), p.spectator_names.end());
  for (const auto& [instance, e] : p.elsewhere) names.insert(e.names.begin(), e.names.end());
  json::array watchers;
  for (auto it = names.begin(); it != names.end() && watchers.size() < 50; ++it) watchers.push_back(json::value(*it));
  o["watchers"] = std::move(watchers);
  o["cpu"] = p.cpu_level() ? json::value(p.cpu_level()) : json::value(nullptr);
  o["game"] = p.game() ? json::value(p.game()->id) : json::value(nullptr);
  o["gameNumber"] = p.game() ? p.game()->number : 0;
  o["mode"] = r.mode;
  // A tournament's game: its tournament's code, round and board.
  if (const auto t = parse_tournament_ref(r.tournament)) {
    o["tournament"] = json::object{{"code", t->code}, {"round", t->round}, {"board", t->board}};
  } else {
    o["tournament"] = nullptr;
  }
  o["startsAt"] = r.starts_at ? json::value(r.starts_at) : json::value(nullptr);
  o["lastMoveAt"] = p.last_activity();
  o["expiresAt"] = p.expires_at() ? json::value(p.expires_at()) : json::value(nullptr);
  auto seat_or_null = [](int seat) { return seat >= 0 ? json::value(seat) : json::value(nullptr); };
  o["key"] = r.invite_key;
  o["rematch"] = json::object{{"offeredBy", seat_or_null(p.rematch_offer())},
                              {"declinedBy", seat_or_null(p.rematch_declined_by())}};
  // A table from "find an opponent" whose players are still coming, or whose
  // pairing ended before the game began (a player declined or did not come).
  if (p.arrive_by && !p.game())
    o["pairing"] = json::object{{"arriveBy", p.arrive_by}};
  else if (const int missing = p.called_off_seat(); missing >= 0)  // a player made no first move
    o["pairing"] = json::object{{"ended", "no-move"}, {"missing", missing}};
  else if (!p.pairing_ended.empty())
    o["pairing"] = json::object{{"ended", p.pairing_ended}, {"missing", seat_or_null(p.pairing_missing)}};
  return o;
}

// What a game is now, without its history: the part of a state that an
// event repeats (its size does not grow with the game).
json::object game_now(const Table& p, const char* type) {
  const LiveGame& g = *p.game();
  const Game& game = g.game;
  const Position& pos = game.position();
  json::array legal;
  for (Move m : game.legal_moves()) legal.push_back(json::value(move_to_string(m)));
  json::object o{{"t", type},
                 {"game", g.id},
                 {"number", g.number},
                 {"v", g.version},
                 {"variant", p.record().variant},
                 {"white", g.white_seat},
                 {"black", 1 - g.white_seat},
                 {"fen", pos.fen()},
                 {"turn", pos.side_to_move() == WHITE ? "w" : "b"},
                 {"check", pos.in_check()},
                 {"legal", std::move(legal)},
                 {"repetitions", game.repetitions()},
                 {"result", result_string(game.result())}};
  o["lastMove"] = pos.last_move().is_none() ? json::value(nullptr) : json::value(move_to_string(pos.last_move()));
  o["reason"] = game.over() ? json::value(reason_string(game.reason())) : json::value(nullptr);
  const Count& c = pos.count();
  o["count"] = c.running() ? json::value(json::object{{"side", c.side == WHITE ? "w" : "b"},
                                                      {"kind", count_kind_string(c.kind)},
                                                      {"n", c.n},
                                                      {"limit", c.limit}})
                           : json::value(nullptr);
  const bool declare = !game.over() && game.counting() == Counting::Declaration;
  auto can_count = [&](Color side) { return declare && !c.running() && qualifying_count(pos, side).running(); };
  auto can_stop = [&](Color side) { return declare && c.running() && c.side == side; };
  o["canCount"] = json::object{{"w", can_count(WHITE)}, {"b", can_count(BLACK)}};
  o["canStop"] = json::object{{"w", can_stop(WHITE)}, {"b", can_stop(BLACK)}};
  o["canClaim"] = !game.over() && game.variant() == Variant::Ouk && game.repetitions() >= 3;
  o["drawOffer"] = game.draw_offer() ? json::value(*game.draw_offer() == WHITE ? "w" : "b") : json::value(nullptr);
  // The side that declined the last offer (the one who offered is told so
  // until it moves), and who may offer now (once per move of one's own).
  o["drawDeclined"] = game.draw_declined() ? json::value(*game.draw_declined() == WHITE ? "w" : "b") : json::value(nullptr);
  o["canOfferDraw"] = json::object{{"w", game.may_offer_draw(WHITE)}, {"b", game.may_offer_draw(BLACK)}};
  // The clocks: each side's time left when the running turn began ("since",
  // the server's ms), and whose clock runs (none once the game is over).
  if (g.clock)
    o["clock"] = json::object{{"w", g.clock->left[WHITE]},
                              {"b", g.clock->left[BLACK]},
                              {"since", g.clock->since},
                              {"running", game.over() ? json::value(nullptr)
                                                      : json::value(pos.side_to_move() == WHITE ? "w" : "b")}};
  else
    o["clock"] = nullptr;
  return o;
}

// The whole state: the game now and its moves in both notations.
json::object state_json(const Table& p) {
  const LiveGame& g = *p.game();
  json::object o = game_now(p, "state");
  o["gameId"] = g.public_id;
  json::array moves;
  for (const std::string& a : g.game.record())
    if (is_move_action(a)) moves.push_back(json::value(a));
  o["moves"] = std::move(moves);
  o["san"] = json::array(g.san.begin(), g.san.end());
  o["sanThai"] = json::array(g.san_thai.begin(), g.san_thai.end());
  return o;
}

// An event: the actions accepted after version `from` (their SAN for the
// moves among them) and the game now. A client holding the state at `from`
// gets the state at "v" by appending the moves and taking the rest.
json::object event_json(const Table& p, int from) {
  const LiveGame& g = *p.game();
  const std::vector<std::string>& record = g.game.record();
  json::object o = game_now(p, "moved");
  o["from"] = from;
  json::array actions;
  size_t moves = 0;
  for (size_t i = size_t(from); i < record.size(); ++i) {
    actions.push_back(json::value(record[i]));
    moves += is_move_action(record[i]);
  }
  o["actions"] = std::move(actions);
  o["san"] = json::array(g.san.end() - std::ptrdiff_t(moves), g.san.end());
  o["sanThai"] = json::array(g.san_thai.end() - std::ptrdiff_t(moves), g.san_thai.end());
  return o;
}

std::shared_ptr<const std::string> message(const json::object& o) {
  return std::make_shared<const std::string>(json::serialize(o));
}

std::shared_ptr<const std::string> error_message(const std::string& id, const Error& e) {
  json::object o{{"t", "error"}};
  for (const auto& field : error_json(e)) o[field.key()] = field.value();
  if (!id.empty()) o["id"] = id;
  return message(o);
}

}  // namespace detail

using namespace detail;

std::string hello_code(const std::string& text) {
  if (text.find("hello") == std::string::npos) return "";
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return "";
  const json::object& o = v.as_object();
  const json::value* t = o.if_contains("t");
  const json::value* code = o.if_contains("code");
  if (!t || !t->is_string() || t->as_string() != "hello" || !code || !code->is_string()) return "";
  return std::string(code->as_string());
}

std::string normalise_code(std::string code) {
  for (char& ch : code) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return code;
}

size_t shard_of(std::string_view code, size_t shards) {
  if (shards <= 1) return 0;
  uint32_t h = 2166136261u;  // FNV-1a: the same on every build and machine
  for (char ch : code) h = (h ^ uint8_t(ch)) * 16777619u;
  return h % shards;
}

#ifdef MAKRUK_FUZZ_REPLAY
// The hub fuzzer's build only: codes and tokens come from a generator the
// fuzzer seeds before each input, so that a crashing input replays exactly.
std::mt19937_64& replay_rng() {
  static std::mt19937_64 rng;
  return rng;
}
void seed_for_replay(uint64_t seed) { replay_rng().seed(seed); }
#endif

uint64_t random_seed() {
#ifdef MAKRUK_FUZZ_REPLAY
  return replay_rng()();
#else
  return std::random_device{}();
#endif
}

std::string random_token() {
  unsigned char bytes[16];
#ifdef MAKRUK_FUZZ_REPLAY
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(replay_rng()());
#else
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no randomness from the OS");
#endif
  return hex(bytes, sizeof bytes);
}

std::string hash_token(const std::string& token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(token.data(), token.size(), digest, &n, EVP_sha256(), nullptr);
  return hex(digest, n);
}

Hub::Hub(Store& store, Post post, std::function<int64_t()> now, int cpu_threads, CpuPool* cpu_pool)
    : store_(store),
      post_(std::move(post)),
      now_(std::move(now)),
      rng_(random_seed()),
      guard_([this] { return this->now(); }),
      own_writer_(std::make_unique<StoreWriter>(store)),
      writer_(own_writer_.get()),
      cpus_(CpuPlayers::Tables{[this](const std::string& code) { return in_memory(code); },
                               [this](const std::vector<std::string>& codes, std::function<void()> then) {
                                 open_all_then(codes, std::move(then));
                               },
                               [this](const std::string& code, int64_t game, int version,
                                      std::vector<std::string> actions) {
                                 play_cpu(code, game, version, std::move(actions));
                               }},
            [this] { return this->now(); }, post_, cpu_threads, cpu_pool),
      sync_(InstanceSync::Tables{[this](const std::string& code) { return in_memory(code); },
                                 [this](const auto& each) {
                                   for (auto& [code, p] : tables_) each(code, p);
                                 },
                                 [this](Table& p, bool table_changed, bool state_changed) {
                                   broadcast(p, table_changed, state_changed);
                                 },
                                 [this](Table& p) {
                                   watch_first_move(p);
                                   watch_clock(p);
                                   cpus_.maybe_play(p);
                                 },
                                 [this](Table& p) { maybe_begin_pairing(p); },
                                 [this](const std::string& code) { reload(code, {}); },
                                 [this](uint64_t connection, const std::string& paired) {
                                   if (lobby_) lobby_->paired_elsewhere(connection, paired);
                                 }},
            post_, [this] { return this->now(); }) {
  cpus_.set_writer(writer_);
  set_limits(limits_);
}

void Hub::set_limits(const HubLimits& limits) {
  limits_ = limits;
  guard_.set_limits(CodeGuard::Limits{limits.wrong_codes_per_minute, limits.proof_bits});
  cpus_.set_limits(CpuPlayers::Limits{limits.cpu_max_ms, limits.cpu_pause, limits.cpu_per_minute, limits.cpu_queue,
                                      limits.cpu_queue_per_address});
}

void Hub::set_defer(Defer defer) {
  defer_ = std::move(defer);
  cpus_.set_defer(defer_);
}

Hub::~Hub() {
  sync_.stop();  // the bus's thread posts to this hub
}

std::vector<std::string> Hub::cpu_turns_at_start() {
  // One process alone holds no lease of another; with a bus, those of the
  // other instances are left to them.
  const int64_t leases_over = bus_ ? now() : std::numeric_limits<int64_t>::max();
  return store_.cpu_turn_tables(leases_over, CPU_TURNS_AT_START);
}

void Hub::load(const std::vector<std::string>& cpu_turns) {
  started_at_ = now();
  // Tables are read when opened; only those where the CPU owes a reply are
  // opened now, so that it comes without anyone asking for it.
  for (const std::string& code : cpu_turns) {
    if (shard_of(code, shards_) != shard_) continue;  // another shard's
    Table* p = tables_.count(code) ? &tables_.at(code) : read_here(code);
    if (p) expire_if_due(*p);
    if (p && (p->expired() || !p->game() || !cpu_to_act(*p->game(), p->cpu_level()))) store_.clear_cpu_turn(code);
  }
}

Table* Hub::in_memory(const std::string& code) {
  auto it = tables_.find(code);
  return it == tables_.end() ? nullptr : &it->second;
}

Table* Hub::find(const std::string& code) {
  auto it = tables_.find(code);
  Table* p = it != tables_.end() ? &it->second : nullptr;
  // Not in memory: being made (open once it is stored), just read and not
  // there, or to read. With a writer of its own, this thread reads nothing:
  // what needs a table not in memory reads it on the writer first (open_then).
  if (!p && !creating_.count(code) && !absent_.count(code) && writer_ == own_writer_.get()) p = read_here(code);
  if (p) expire_if_due(*p);
  return p;
}

Table* Hub::read_here(const std::string& code) {
  std::optional<TableData> data;
  hold_on_bus(code, true);  // its changes from now on, before the read
  try {
    data = store_.load_table(code);
  } catch (const std::exception&) {
    // Storage failed: the table cannot be opened now.
  }
  Table* p = data ? &opened(code, std::move(*data)) : nullptr;
  hold_on_bus(code);
  return p;
}

void Hub::hold_on_bus(const std::string& code, bool reading) {
  if (!bus_) return;
  const bool wanted = reading || tables_.count(code) || creating_.count(code) || opening_.count(code);
  bus_->hold(code, wanted);  // the bus's holders are a set: saying it twice is harmless
}

Table& Hub::opened(const std::string& code, TableData data) {
  Table p = Table::from_record(data);
  // A live table's idle time counts from when it was left, and from the
  // server's start at the earliest: people had no chance to come back before.
  p.everyone_left(std::max(p.last_present(), started_at_));
  p.opened_at = now();
  auto it = tables_.emplace(code, std::move(p)).first;
  cpus_.maybe_play(it->second);
  watch_clock(it->second);  // a clock that ran out while the table was away ends its game now
  return it->second;
}

bool Hub::known(const std::string& code) const {
  return tables_.count(code) || creating_.count(code) || absent_.count(code);
}

bool Hub::would_open(const std::string& code, const std::string& ip, bool credential, bool proof) {
  if (known(code)) return false;
  if (code_guess_allowed(ip, false)) return true;
  if (proof) return false;  // the lookup checks (and uses) its proof itself, and reads there
  return credential && guard_.credential_allowed(ip);
}

void Hub::open_then(const std::string& code, std::function<void()> then) {
  auto& waiting = opening_[code];
  waiting.push_back(std::move(then));
  if (waiting.size() > 1) return;  // its read is on its way
  hold_on_bus(code);  // its changes from now on, before the read
  auto read = std::make_shared<std::optional<TableData>>();
  // Read on the writer's lane of the table (after its writes, in order).
  writer_->submit(
      code,
      [read, code](Store& store) { *read = store.load_table(code); },
      [this, read, code](std::exception_ptr error) {
        auto thens = std::move(opening_[code]);
        opening_.erase(code);
        // Not there, or the store away: the lookups that waited find nothing
        // (as a read on this thread that failed would), without reading again.
        bool absent = false;
        if (!tables_.count(code) && !creating_.count(code)) {
          if (!error && *read) opened(code, std::move(**read));
          else absent = ++absent_[code] > 0;
        }
        hold_on_bus(code);
        for (auto& then : thens) then();
        if (absent) release_absent(code);
      });
}

void Hub::release_absent(const std::string& code) {
  if (auto it = absent_.find(code); it != absent_.end() && --it->second <= 0) absent_.erase(it);
}

void Hub::open_all_then(std::vector<std::string> codes, std::function<void()> then) {
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  std::erase_if(codes, [this](const std::string& code) { return known(code); });
  if (codes.empty()) return then();
  struct Waiting {
    size_t left;
    std::vector<std::string> absent;  // held absent until `then` has run
    std::function<void()> then;
  };
  auto waiting = std::make_shared<Waiting>(Waiting{codes.size(), {}, std::move(then)});
  for (const std::string& code : codes)
    open_then(code, [this, waiting, code] {
      if (absent_.count(code)) {
        ++absent_[code];
        waiting->absent.push_back(code);
      }
      if (--waiting->left) return;
      waiting->then();
      for (const std::string& gone : waiting->absent) release_absent(gone);
    });
}

bool Hub::idle(const std::string& code, const Table& p, int64_t t) const {
  return p.nobody_connected() && t - std::max(p.last_present(), p.opened_at) >= limits_.table_idle_ms &&
         !cpus_.busy(code) && !presence_pending_.count(code) && !watchers_.count(code) && !storing_.count(code) &&
         !leaving_.count(code);
}

void Hub::close_idle_tables() {
  const int64_t t = now();
  std::vector<std::string> idle_codes;
  for (const auto& [code, p] : tables_)
    if (idle(code, p, t)) idle_codes.push_back(code);
  for (const std::string& code : idle_codes) {
    const Table& p = tables_.at(code);
    if (p.turn_based() || p.expired()) {
      forget_table(code);
      continue;
    }
    // A live table's idle time is kept in the store (written off this
    // thread); it leaves memory once that is written, if still idle.
    const int64_t left = p.last_present();
    leaving_.insert(code);
    writer_->submit(
        code, [code, left](Store& store) { store.set_left_at(code, left); },
        [this, code, left](std::exception_ptr error) {
          leaving_.erase(code);
          if (error) return;  // kept in memory: its idle time must not be lost
          auto it = tables_.find(code);
          if (it != tables_.end() && it->second.last_present() == left && idle(code, it->second, now()))
            forget_table(code);
        });
  }
}

void Hub::hand_out(std::vector<std::string> codes, void (*work)(Hub&, std::vector<std::string>)) {
  std::vector<std::vector<std::string>> by_shard(shards_);
  for (std::string& code : codes) by_shard[shard_of(code, shards_)].push_back(std::move(code));
  for (size_t s = 0; s < shards_; ++s) {
    if (by_shard[s].empty()) continue;
    if (s == shard_) work(*this, std::move(by_shard[s]));
    else if (on_shard_)
      on_shard_(s, [work, mine = std::move(by_shard[s])](Hub& h) mutable { work(h, std::move(mine)); });
  }
}

void Hub::expire_stored(std::vector<std::string> codes) {
  auto due = std::make_shared<std::vector<std::string>>(std::move(codes));
  open_all_then(*due, [this, due] {
    for (const std::string& code : *due)
      if (auto it = tables_.find(code); it != tables_.end()) expire_if_due(it->second);
  });
}

void Hub::scan_cpu() {
  if (shard_ != 0) return;  // the first hub asks for all
  cpus_.scan([this](std::vector<std::string> owed) {
    hand_out(std::move(owed), [](Hub& h, std::vector<std::string> mine) { h.cpus_.play_owed(std::move(mine)); });
  });
}

void Hub::forget_table(const std::string& code) {
  states_.erase(code);
  cpus_.forget(code);
  tables_.erase(code);
  hold_on_bus(code);
}

void Hub::expire_if_due(Table& p) {
  // One write of the table at a time: with one on its way, the next look
  // (or the minute's tick) tries again.
  if (storing_.count(p.code())) return;
  const auto due = p.expiry_due(now(), limits_.live_idle_ms);
  if (!due) return;
  // Written by the store's writer, off this thread (the table's messages
  // wait meanwhile); told once it is.
  write_then(
      p.code(), [code = p.code(), x = *due](Store& store) { store.expire_table(code, x.game, x.version, x.at); },
      [this, x = *due](Table* p, std::exception_ptr error) {
        if (!p) return;
        if (error) {
          try {
            std::rethrow_exception(error);
          } catch (const VersionConflict&) {
            reload(*p);  // another instance ended it (and told its players), or moved it on
          } catch (...) {
            // storage failed: nothing changed; the next look or tick tries again
          }
          return;
        }
        if (!p->expire_stored(x)) return reload(*p);  // read again meanwhile: the store has it
        sync_.publish(*p);
        broadcast(*p, true, true);
        if (notices_) notices_->notify(*p, -1, "expired");
        tell_tournament(*p);
      });
}

void Hub::tick() {
  const int64_t now = this->now();
  for (auto& [code, p] : tables_) expire_if_due(p);
  // Pairings whose players did not come (when a deferred check was missed).
  std::vector<std::string> pairings;
  for (auto& [code, p] : tables_)
    if (p.arrive_by && now >= p.arrive_by) pairings.push_back(code);
  for (const std::string& code : pairings) check_pairing(code);
  // Paired games whose first move is overdue (when a deferred check was missed).
  std::vector<std::string> first_moves;
  for (auto& [code, p] : tables_)
    if (p.from_pairing && p.awaiting_first_move() >= 0 && now >= p.last_activity() + limits_.first_move_ms)
      first_moves.push_back(code);
  for (const std::string& code : first_moves) check_first_move(code);
  // Clocks run out, or running without a look scheduled (a table read again).
  std::vector<std::string> clocks;
  for (auto& [code, p] : tables_) {
    if (p.out_of_time(now)) clocks.push_back(code);
    else if (p.flag_at() && !p.clock_check) watch_clock(p);
  }
  for (const std::string& code : clocks) check_clock(code);
  // Turn-based tables out of memory whose 45 days have run out: asked of the
  // store (by the first hub, for all) and read off this thread, then ended
  // as those in memory are, each by its own hub.
  auto due = std::make_shared<std::vector<std::string>>();
  if (shard_ == 0)
    writer_->submit(
        "", [due, since = now - TURN_BASED_EXPIRY_MS](Store& store) {
          *due = store.turn_based_idle_since(since, EXPIRIES_PER_TICK);
        },
        [this, due](std::exception_ptr error) {
          if (error) return;  // storage failed: the next tick asks again
          hand_out(std::move(*due), [](Hub& h, std::vector<std::string> mine) { h.expire_stored(std::move(mine)); });
        });
  close_idle_tables();
  for (const auto& [l, name] : limiters()) l->sweep(now);
  guard_.sweep(now);
  cpus_.sweep(now);
  std::erase_if(fronts_taken_, [&](const auto& f) { return now - f.second > limits_.front_again_ms; });
}

std::string Hub::new_code() {
  for (;;) {
    std::string code;
    for (int i = 0; i < 6; ++i) code += CODE_ALPHABET[rng_() % CODE_ALPHABET.size()];
    // A code in the store already fails the table's insert, which then
    // tries another (store_new_table): no read here.
    if (shard_of(code, shards_) == shard_ && !tables_.count(code) && !creating_.count(code)) return code;
  }
}

std::array<std::pair<AddressLimiter*, const char*>, 2> Hub::limiters() {
  return {{{&creates_, "create"}, {&joins_, "join"}}};
}

void Hub::count_with(Hub& first) {
  auto mine = limiters(), theirs = first.limiters();
  for (size_t i = 0; i < mine.size(); ++i) mine[i].first->count_with(*theirs[i].first);
  guard_.count_with(first.guard_);
  cpus_.count_with(first.cpus_);
}

int Hub::limits_asking() {
  int n = 0;
  for (const auto& [l, name] : limiters()) n += l->asking();
  return n + guard_.asking() + cpus_.limits_asking();
}

bool Hub::code_guess_allowed(const std::string& ip, bool wrong) { return guard_.guess_allowed(ip, wrong); }

namespace detail {

Answer rate_limited(Msg what) { return error_reply(Error{ErrorCode::RateLimited, what}); }

std::optional<Message> get_clock(const json::object& o, const std::string& mode, int64_t& clock_ms,
                                 int64_t& increment_ms) {
  auto clock = o.find("clock");
  if (clock == o.end() || clock->value().is_null()) return std::nullopt;
  const json::object* c = clock->value().if_object();
  int64_t minutes = 0, increment = 0;
  bool minutes_present = false, increment_present = false;
  if (!c || !get_int(*c, "minutes", minutes, minutes_present) || !get_int(*c, "increment", increment, increment_present) ||
      !minutes_present || minutes < 1 || minutes > 180 || increment < 0 || increment > 60)
    return Message(Msg::ClockBad);
  if (mode == "turn") return Message(Msg::ClockTurnBased);
  clock_ms = minutes * 60 * 1000;
  increment_ms = increment * 1000;
  return std::nullopt;
}

}  // namespace detail

Answer Hub::create_table(const std::string& body, const std::string& ip) {
  return answered_at_once([&](Respond respond) { create_table(body, ip, std::move(respond)); });
}

void Hub::create_table(const std::string& body, const std::string& ip, Respond respond) {
  TableRecord r;
  std::string host_name;
  if (auto refused = check_new_table(body, ip, r, host_name)) return respond(std::move(*refused));
  store_new_table(std::move(r), host_name, ip, std::move(respond), 0);
}

std::optional<Answer> Hub::check_new_table(const std::string& body, const std::string& ip, TableRecord& r,
                                              std::string& host_name) {
  if (!creates_.allow(ip, now(), limits_.create_per_minute, false)) return rate_limited(Msg::LimitTables);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string rawName, variant = "makruk", counting = "auto", fen, mode = "live";
  int64_t cpu = 0, startsAt = 0;
  bool cpuPresent = false, startsPresent = false;
  if (!get_string(*o, "name", rawName) || !get_string(*o, "variant", variant) ||
      !get_string(*o, "counting", counting) || !get_bool(*o, "showLegal", r.show_legal) ||
      !get_bool(*o, "swapColors", r.swap_colors) || !get_bool(*o, "labels", r.labels) ||
      !get_int(*o, "cpu", cpu, cpuPresent) || !get_string(*o, "fen", fen) || !get_string(*o, "mode", mode) ||
      !get_int(*o, "startsAt", startsAt, startsPresent))
    return bad_request(Msg::FieldType);
  if (auto bad = get_clock(*o, mode, r.clock_ms, r.increment_ms)) return bad_request(*bad);
  auto name = clean_name(rawName, why);
  if (!name) return bad_request(why);
  Variant v;
  if (!parse_variant(variant, v)) return bad_request({Msg::VariantUnknown, {{"variant", variant}}});
  if (counting != "auto" && counting != "declare") return bad_request(Msg::CountingBad);
  if (cpuPresent && (cpu < 1 || cpu > 8)) return bad_request(Msg::CpuLevel);
  if (mode != "live" && mode != "turn") return bad_request(Msg::ModeBad);
  if (cpuPresent && mode == "turn") return bad_request(Msg::CpuLive);
  const int64_t created = now();
  if (startsPresent) {
    if (cpuPresent) return bad_request(Msg::CpuStartsAtOnce);
    if (startsAt <= created) return bad_request(Msg::StartsAtPast);
    if (startsAt > created + 366LL * 24 * 3600 * 1000) return bad_request(Msg::StartsAtFar);
  }
  if (cpuPresent) {
    if (auto no = cpus_.may_create(ip, created))
      return no->outcome == Outcome::Unavailable ? reply(Outcome::Unavailable, error_json("busy", no->why))
                                                 : rate_limited(no->why);
  }
  if (!fen.empty()) {
    if (fen.size() > 120) return bad_request(Msg::FenTooLong);
    auto start = Game::create(v, counting == "declare" ? Counting::Declaration : Counting::Automatic, fen, &why);
    if (!start) return bad_request(why);
    if (start->over()) return bad_request(Msg::FenOver);
    fen = start->position().fen();
  }
  r.start_fen = fen;
  r.variant = std::string(variant_name(v));
  r.counting = counting;
  r.cpu_level = int(cpu);
  r.created_at = created;
  r.mode = mode;
  r.starts_at = startsPresent ? startsAt : 0;
  r.invite_key = random_token().substr(0, 16);
  host_name = *name;
  return std::nullopt;
}

void Hub::store_new_table(TableRecord r, const std::string& host_name, const std::string& ip, Respond respond,
                          int attempt) {
  r.code = new_code();
  const std::string token = random_token();
  auto made = std::make_shared<Table>(r);
  auto created = std::make_shared<bool>(false);  // the table's row went in (then it is not made again)
  creating_.insert(r.code);
  hold_on_bus(r.code);
  // The table is built and stored on the writer's thread (nothing else holds
  // it yet), and opened here once it is.
  write_then(
      r.code,
      [made, created, r, host_name, token](Store& store) {
        store.create_table(r, SeatRecord{r.code, 0, host_name, hash_token(token)});
        *created = true;
        made->seats().push_back(Seat{host_name, hash_token(token), 0});
        if (r.cpu_level) {
          int seat;
          made->add_player(store, "CPU " + std::to_string(r.cpu_level), "", seat);
          made->begin_game(store, r.created_at);
        }
      },
      [this, made, created, r, host_name, ip, token, respond = std::move(respond), attempt](
          Table*, std::exception_ptr error) mutable {
        creating_.erase(r.code);
        if (error) hold_on_bus(r.code);  // not made: not held
        // A code taken in the store meanwhile (by another instance), or the
        // store away for a moment: another code, twice at most.
        if (error && !*created && attempt < 2)
          return store_new_table(std::move(r), host_name, ip, std::move(respond), attempt + 1);
        if (error) return respond(storage_failed(error));
        creates_.allow(ip, r.created_at, limits_.create_per_minute);
        if (r.cpu_level) cpus_.created(r.code, ip, r.created_at);
        auto [it, _] = tables_.emplace(r.code, std::move(*made));
        cpus_.maybe_play(it->second);
        respond(reply(Outcome::Created, json::object{{"code", r.code},
                                        {"link", invite_link("", it->second)},
                                        {"token", token},
                                        {"seat", 0},
                                        {"party", table_json(it->second)}}));
      });
}

int Hub::seat_of_token(Table& p, const std::string& token, const std::string& ip) {
  const std::string hash = hash_token(token);
  int seat = p.seat_of_token(hash);
  if (seat < 0 && bus_ && p.seats().size() < 2 && code_guess_allowed(ip, false)) code_guess_allowed(ip, true);
  return seat;
}

Table* Hub::find_guarded(const std::string& code, const std::string& ip, std::optional<Error>& e,
                         const std::string& key, const std::string& proof) {
  if (code_guess_allowed(ip, false)) {
    Table* p = find(code);
    if (!p) {
      code_guess_allowed(ip, true);
      e = Error{ErrorCode::NotFound, {Msg::NoParty, {{"code", code}}}};
    }
    return p;
  }
  // Limited. With the work done, the lookup goes through, and a wrong code
  // then asks more work of the address.
  if (!proof.empty() && guard_.proof_valid(proof, ip)) {
    Table* p = find(code);
    if (!p) {
      guard_.proof_missed(ip);
      e = Error{ErrorCode::NotFound, {Msg::NoParty, {{"code", code}}}};
    }
    return p;
  }
  // With the table's key (an invite link), while wrong keys are few.
  if (!key.empty() && guard_.credential_allowed(ip)) {
    Table* p = find(code);
    if (p && key == p->record().invite_key) return p;
    guard_.wrong_credential(ip);
  }
  e = Error{ErrorCode::RateLimited, Msg::LimitWrongCodes};
  return nullptr;
}

void Hub::get_table(const std::string& code, const std::string& ip, const std::string& key, const std::string& proof,
                    Respond respond) {
  once_open(code, would_open(code, ip, !key.empty(), !proof.empty()),
            [this, code, ip, key, proof, respond = std::move(respond)] { respond(get_table(code, ip, key, proof)); });
}

void Hub::once_open(const std::string& code, bool read, std::function<void()> then) {
  auto go = [this, code, then = std::move(then)]() mutable {
    // A table whose time has just run out is answered once its end is
    // stored (so is one with any write on its way: the answer follows it).
    if (auto it = tables_.find(code); it != tables_.end()) expire_if_due(it->second);
    if (!storing_.count(code)) return then();
    after_write(code, std::move(then));
  };
  if (!read) return go();
  open_then(code, std::move(go));
}

Answer Hub::get_table(const std::string& code, const std::string& ip, const std::string& key,
                         const std::string& proof) {
  std::optional<Error> e;
  Table* p = find_guarded(code, ip, e, key, proof);
  if (!p && e->code == ErrorCode::RateLimited && limits_.proof_bits > 0) {
    // The page may prove it is no guess: the work it would take, and a stamp.
    json::object o = error_json(*e);
    o["proof"] = json::object{{"challenge", guard_.proof_challenge()}, {"bits", guard_.proof_bits(ip)}};
    return reply(Outcome::RateLimited, o);
  }
  if (!p) return error_reply(*e);
  return reply(Outcome::Ok, json::object{{"party", table_json(*p)}});
}

Answer Hub::join(const std::string& code, const std::string& body, const std::string& ip) {
  return answered_at_once([&](Respond respond) { join(code, body, ip, std::move(respond)); });
}

void Hub::join(const std::string& code, const std::string& body, const std::string& ip, Respond respond) {
  if (!joins_.allow(ip, now(), limits_.join_per_minute)) return respond(rate_limited(Msg::LimitJoins));
  Message why;
  auto o = parse_object(body, why);
  if (!o) return respond(bad_request(why));
  std::string rawName, token, key;
  if (!get_string(*o, "name", rawName) || !get_string(*o, "token", token) || !get_string(*o, "key", key))
    return respond(bad_request(Msg::FieldType));
  if (token.size() > 64) return respond(bad_request(Msg::TokenTooLong));
  // A table not in memory is read off this thread first; so is one whose
  // seat the token may have taken at another instance.
  auto go_on = [this, code, ip, rawName, token, key, respond = std::move(respond)]() mutable {
    join_known(code, ip, rawName, token, key, std::move(respond));
  };
  if (would_open(code, ip, !token.empty() || !key.empty(), false)) return open_then(code, std::move(go_on));
  if (seat_may_be_elsewhere(code, token, ip))
    return reload(code, [go_on = std::move(go_on)](Table*) mutable { go_on(); });
  go_on();
}

void Hub::join_known(const std::string& code, const std::string& ip, const std::string& rawName, std::string token,
                     const std::string& key, Respond respond) {
  Message why;
  // A returning browser keeps its seat, even when its address is limited for
  // wrong codes: the token shows it is no guess.
  if (Table* p = token.empty() || !guard_.credential_allowed(ip) ? nullptr : find(code)) {
    int seat = seat_of_token(*p, token, ip);
    if (seat >= 0)
      return respond(reply(Outcome::Ok, json::object{{"token", token}, {"seat", seat}, {"party", table_json(*p)}}));
    guard_.wrong_credential(ip);
  }
  std::optional<Error> e;
  Table* p = find_guarded(code, ip, e, key);
  if (!p) return respond(error_reply(*e));
  auto name = clean_name(rawName, why);
  if (!name) return respond(bad_request(why));
  take_seat(p->code(), *name, std::move(respond));
}

void Hub::take_seat(const std::string& code, const std::string& name, Respond respond) {
  auto it = tables_.find(code);
  if (it == tables_.end()) return respond(error_reply(Error{ErrorCode::NotFound, Msg::PartyGone}));
  Table& p = it->second;
  if (storing_.count(code)) {  // after the table's action being stored, in order
    auto& waiting = waiting_[code];
    if (waiting.size() >= MAX_WAITING_ACTIONS) return respond(rate_limited(Msg::LimitMessages));
    waiting.push_back([this, code, name, respond = std::move(respond)]() mutable {
      take_seat(code, name, std::move(respond));
    });
    return;
  }
  int seat = -1;
  if (auto e = p.may_add_player(seat)) {
    Answer r = error_reply(*e);
    if (e->code == ErrorCode::Full) {  // with the table, so that the page can offer to watch it
      json::object o = error_json(*e);
      o["party"] = table_json(p);
      r.body = json::serialize(o);
    }
    return respond(std::move(r));
  }
  const std::string token = random_token(), hash = hash_token(token);
  write_then(
      code, [code, seat, name, hash](Store& store) { store.add_seat(SeatRecord{code, seat, name, hash}); },
      [this, seat, name, hash, token, respond = std::move(respond)](Table* p, std::exception_ptr error) {
        if (!p) return respond(error_reply(Error{ErrorCode::NotFound, Msg::PartyGone}));
        if (error) {
          reload(*p);  // another instance may have taken the seat
          return respond(storage_failed(error));
        }
        // Read again meanwhile (another instance told of a change), the table
        // may hold the seat already.
        if (p->seats().size() == size_t(seat)) p->seat_taken(name, hash);
        if (p->seat_of_token(hash) != seat) {
          reload(*p);
          return respond(storage_failed(std::runtime_error("the seat was taken meanwhile")));
        }
        sync_.publish(*p);
        broadcast(*p, true, false);
        respond(reply(Outcome::Ok, json::object{{"token", token}, {"seat", seat}, {"party", table_json(*p)}}));
      });
}

void Hub::invite(const std::string& code, const std::string& base_url, const std::string& ip, const std::string& key,
                 std::function<void(InviteOrRefusal)> answer) {
  once_open(code, would_open(code, ip, !key.empty(), false),
            [this, code, base_url, ip, key, answer = std::move(answer)] { answer(invite(code, base_url, ip, key)); });
}

InviteOrRefusal Hub::invite(const std::string& code, const std::string& base_url, const std::string& ip,
                            const std::string& key) {
  std::optional<Error> e;
  Table* p = find_guarded(code, ip, e, key);
  if (!p) return error_reply(*e);
  return Invite{p->code(), invite_link(base_url, *p), p->record().variant, p->record().starts_at, now()};
}

void Hub::send_error(Client& c, const std::string& id, const Error& e) { c.send(error_message(id, e)); }

void Hub::broadcast(Table& p, bool table_changed, bool state_changed) {
  auto it = watchers_.find(p.code());
  if (it == watchers_.end()) return;
  std::shared_ptr<const std::string> party, event;
  if (table_changed) {
    json::object o = table_json(p);
    o["t"] = "party";
    party = message(o);
  }
  const LiveGame* g = state_changed && p.game() ? &*p.game() : nullptr;
  // The watchers have this version already (a table-only change, or a table
  // read again at the version it had): no state goes out.
  if (g)
    if (auto sent = states_.find(p.code()); sent != states_.end() && sent->second.game == g->id &&
                                            sent->second.version == g->version)
      g = nullptr;
  if (g) {
    // Those who take events get the actions since the version last sent to
    // this table's watchers; the whole state is made only for the others.
    const CachedState& sent = states_[p.code()];
    if (sent.game == g->id && sent.version >= 0 && sent.version < g->version &&
        g->version - sent.version <= MAX_EVENT_ACTIONS)
      event = message(event_json(p, sent.version));
  }
  for (const auto& c : it->second) {
    if (party) c->send(party);
    if (g) c->send(event && c->events ? event : state_message(p));
  }
  if (g) {
    CachedState& sent = states_[p.code()];
    if (sent.game != g->id || sent.version != g->version) sent = CachedState{g->id, g->version, nullptr};
  }
}

std::shared_ptr<const std::string> Hub::state_message(const Table& p) {
  const LiveGame& g = *p.game();
  CachedState& cached = states_[p.code()];
  if (!cached.text || cached.game != g.id || cached.version != g.version) {
    cached.text = message(state_json(p));
    cached.game = g.id;
    cached.version = g.version;
  }
  return cached.text;
}

void Hub::presence_changed(Table& p) {
  if (!presence_pending_.insert(p.code()).second) return;  // one is already on its way
  auto flush = [this, code = p.code()] {
    presence_pending_.erase(code);
    if (Table* q = find(code)) {
      sync_.publish_presence(*q);
      broadcast(*q, true, false);
    }
  };
  if (defer_) defer_(limits_.presence_delay_ms, std::move(flush));
  else post_(std::move(flush));
}

void Hub::hello(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token,
                const std::string& key, const std::string& name) {
  const std::string code = normalise_code(raw_code);
  if (token.size() > 64) return send_error(*c, "", Error{ErrorCode::BadRequest, Msg::TokenTooLong});
  // A seat's token lets its holder in even while the address is limited for
  // wrong codes: it shows the code is no guess.
  Table* p = token.empty() || !guard_.credential_allowed(c->ip) ? nullptr : find(code);
  int seat = p ? seat_of_token(*p, token, c->ip) : -1;
  if (p && seat < 0) guard_.wrong_credential(c->ip);
  if (seat < 0) {
    std::optional<Error> e;
    p = find_guarded(code, c->ip, e, key);
    if (!p) return send_error(*c, "", *e);
    if (!token.empty()) return send_error(*c, "", Error{ErrorCode::Forbidden, Msg::TokenUnknown});
  }
  // A spectator may give a name, to be listed by it.
  std::string spectator_name;
  if (seat < 0 && !name.empty()) {
    Message why;
    auto clean = clean_name(name, why);
    if (!clean) return send_error(*c, "", Error{ErrorCode::BadRequest, why});
    spectator_name = *clean;
  }
  // Saying hello again to the same table as the same seat (and name) only
  // resends the table to this client; the others hear nothing of it.
  const bool again = c->joined && c->code == code && c->seat == seat && (seat >= 0 || c->name == spectator_name);
  if (!again) {
    if (c->joined) leave(c);  // a hello to another table moves the connection
    c->code = code;
    c->seat = seat;
    c->joined = true;
    c->greeted = true;
    watchers_[code].insert(c);
    if (seat >= 0) {
      ++p->seats()[size_t(seat)].connections;
    } else {
      ++p->spectators;
      c->name = spectator_name;
      if (!c->name.empty()) p->spectator_names.insert(c->name);
    }
  }
  json::object w{{"t", "welcome"}, {"host", seat == 0}, {"now", now()}};
  w["seat"] = seat >= 0 ? json::value(seat) : json::value(nullptr);
  c->send(message(w));
  json::object o = table_json(*p);
  o["t"] = "party";
  c->send(message(o));
  if (p->game()) c->send(state_message(*p));
  if (!again) presence_changed(*p);
  if (!again && seat >= 0) maybe_begin_pairing(*p);
}

void Hub::on_close(const std::shared_ptr<Client>& c) {
  c->gone = true;
  leave(c);
}

void Hub::leave(const std::shared_ptr<Client>& c) {
  if (!c->joined) return;
  auto it = watchers_.find(c->code);
  if (it != watchers_.end()) {
    it->second.erase(c);
    if (it->second.empty()) {
      watchers_.erase(it);
      states_.erase(c->code);  // kept only while someone watches
    }
  }
  c->joined = false;
  if (Table* p = find(c->code)) {
    if (c->seat >= 0) {
      --p->seats()[size_t(c->seat)].connections;
    } else {
      --p->spectators;
      if (auto n = p->spectator_names.find(c->name); n != p->spectator_names.end()) p->spectator_names.erase(n);
    }
    if (p->nobody_connected()) p->everyone_left(now());
    presence_changed(*p);
  }
}

void Hub::on_message(const std::shared_ptr<Client>& c, const std::string& text) {
  if (!c->pace.allows(now())) {
    send_error(*c, "", Error{ErrorCode::RateLimited, Msg::LimitMessages});
    if (c->pace.abusive()) c->close();
    return;
  }
  // The table a message of its named is being read: its next messages follow.
  if (!c->opening.empty()) {
    if (c->held.size() >= MAX_WAITING_PER_CONNECTION)
      return send_error(*c, "", Error{ErrorCode::RateLimited, Msg::LimitMessages});
    c->held.push_back(text);
    return;
  }
  handle(c, text);
}

bool Hub::read_then(const std::string& code, const std::string& token, const std::string& ip, bool credential,
                    std::function<void()>& then) {
  const bool open = would_open(code, ip, credential, false);
  if (!open && !seat_may_be_elsewhere(code, token, ip)) return false;
  if (open) open_then(code, std::move(then));
  else reload(code, [then = std::move(then)](Table*) { then(); });
  return true;
}

bool Hub::read_first(const std::shared_ptr<Client>& c, const std::string& raw_code, const std::string& token,
                     bool credential, std::function<void()> then) {
  const std::string code = normalise_code(raw_code);
  std::function<void()> resume = [this, c, then = std::move(then)] {
    c->opening.clear();
    if (!c->gone) then();
    handle_held(c);
  };
  c->opening = code;  // before the read, which may be done at once (a hub that writes at once)
  if (read_then(code, token, c->ip, credential, resume)) return true;
  c->opening.clear();
  return false;
}

void Hub::handle_held(const std::shared_ptr<Client>& c) {
  while (!c->gone && c->opening.empty() && !c->held.empty()) {
    std::string text = std::move(c->held.front());
    c->held.pop_front();
    handle(c, text);
  }
}

void Hub::handle(const std::shared_ptr<Client>& c, const std::string& text) {
  Message why;
  auto o = parse_object(text, why);
  if (!o) return send_error(*c, "", Error{ErrorCode::BadRequest, why});
  std::string type, id, code, token, move, key, name, phrase;
  int64_t version = -1;
  bool hasVersion = false;
  if (!get_string(*o, "t", type) || !get_string(*o, "id", id) || !get_string(*o, "code", code) ||
      !get_string(*o, "token", token) || !get_string(*o, "move", move) || !get_string(*o, "key", key) ||
      !get_string(*o, "name", name) || !get_string(*o, "phrase", phrase) || !get_int(*o, "v", version, hasVersion))
    return send_error(*c, id, Error{ErrorCode::BadRequest, Msg::FieldType});
  if (id.size() > 64) return send_error(*c, "", Error{ErrorCode::BadRequest, Msg::IdTooLong});
  if (hasVersion && (version < 0 || version > std::numeric_limits<int>::max()))
    return send_error(*c, id, Error{ErrorCode::BadRequest, Msg::VersionBad});

  if (type == "ping") return c->send(message(json::object{{"t", "pong"}, {"now", now()}}));
  if (type == "decline-pairing") {
    if (!token.empty() && token.size() <= 64 &&
        read_first(c, code, token, true, [this, c, code, token] { decline_pairing(c, code, token); }))
      return;
    return decline_pairing(c, code, token);
  }
  if (type == "hello") {
    bool events = false;
    if (!get_bool(*o, "events", events))
      return send_error(*c, id, Error{ErrorCode::BadRequest, Msg::FieldType});
    c->events = events;
    if (token.size() <= 64 && read_first(c, code, token, !token.empty() || !key.empty(),
                                         [this, c, code, token, key, name] { hello(c, code, token, key, name); }))
      return;
    return hello(c, code, token, key, name);
  }
  if (!c->joined) return send_error(*c, id, Error{ErrorCode::BadRequest, Msg::HelloFirst});
  Table* p = find(c->code);
  if (!p) return send_error(*c, id, Error{ErrorCode::NotFound, Msg::PartyGone});
  if (type == "sync") {
    auto send_table = [this, c](Table* p) {
      if (!p || c->gone) return;
      json::object po = table_json(*p);
      po["t"] = "party";
      c->send(message(po));
      if (p->game()) c->send(state_message(*p));
    };
    if (!bus_) return send_table(p);
    // With other instances, this one may have missed a change: read it again
    // first (off this thread; the connection's next messages follow).
    c->opening = p->code();
    return reload(p->code(), [this, c, send_table](Table* p) {
      c->opening.clear();
      send_table(p);
      handle_held(c);
    });
  }
  if (type == "say") return say(c, *p, id, phrase);
  table_action(c, type, id, move, version, hasVersion);
}

// Storage errors as the client hears of them.
static Error storage_error(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const VersionConflict& e) {
    return Error{ErrorCode::Conflict, {Msg::StorageConflict, {{"detail", e.what()}}}};
  } catch (const std::exception& e) {
    return Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", e.what()}}}};
  } catch (...) {
    return Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", "unknown"}}}};
  }
}

void Hub::table_action(const std::shared_ptr<Client>& c, const std::string& type, const std::string& id,
                       const std::string& move, int64_t version, bool hasVersion) {
  if (!c->joined) return send_error(*c, id, Error{ErrorCode::BadRequest, Msg::HelloFirst});
  Table* p = find(c->code);
  if (!p) return send_error(*c, id, Error{ErrorCode::NotFound, Msg::PartyGone});
  // An action of this table is being stored: a player's message follows it
  // (a spectator's is refused whatever the table's state, so at once: it
  // never takes a player's place in the queue).
  if (storing_.count(p->code()) && c->seat >= 0) {
    auto& waiting = waiting_[p->code()];
    if (waiting.size() >= MAX_WAITING_ACTIONS || c->waiting >= MAX_WAITING_PER_CONNECTION)
      return send_error(*c, id, Error{ErrorCode::RateLimited, Msg::LimitMessages});
    ++c->waiting;
    waiting.push_back([this, c, code = p->code(), type, id, move, version, hasVersion] {
      --c->waiting;
      if (c->joined && c->code == code) table_action(c, type, id, move, version, hasVersion);
    });
    return;
  }
  const int64_t now = this->now();
  std::optional<Error> e;
  bool table_changed = false, state_changed = true, stale = false;
  int from = -1;  // for a change that is only actions in the game: its version before them
  try {
    if (type == "start") {
      // A guest who joined at another instance a moment ago, whose message has
      // not come yet: the store has the seat (read first, off this thread).
      if (bus_ && p->seats().size() < 2)
        return reload(p->code(), [this, c, id, code = p->code()](Table* p) {
          if (!c->joined || c->code != code) return;
          if (!p) return send_error(*c, id, Error{ErrorCode::NotFound, Msg::PartyGone});
          if (auto e = p->may_start(c->seat, this->now())) return send_error(*c, id, *e);
          begin_game(c, id, "start", *p);
        });
      e = p->may_start(c->seat, now);
      if (!e) return begin_game(c, id, type, *p);
    } else if (type == "rematch" || type == "decline-rematch") {
      Table::RematchChange change;
      e = type == "rematch" ? p->may_offer_rematch(c->seat, change) : p->may_decline_rematch(c->seat, change);
      if (!e && change.begins) return begin_game(c, id, type, *p);
      if (!e && change.store) return store_rematch(c, id, type, *p, change);
      table_changed = true;  // offered already: nothing changes
      state_changed = false;
    } else if (type == "move" || type == "count" || type == "stop" || type == "claim" || type == "resign" ||
               type == "offer-draw" || type == "accept-draw" || type == "decline-draw") {
      PreparedAction a;
      if (!hasVersion) e = Error{ErrorCode::BadRequest, Msg::VersionRequired};
      else if (type == "move" && move.empty()) e = Error{ErrorCode::BadRequest, Msg::MoveRequired};
      else if (c->seat >= 0 && p->out_of_time(now)) {
        // Too late: the game ends on time first, whoever acts.
        e = Error{ErrorCode::Conflict, Msg::TimeUp};
        check_clock(p->code());
      } else e = p->prepare(c->seat, type, move, int(version), a);
      if (!e) {
        // Stored away from this thread; the mover hears once it is.
        const int before = a.version, seat = c->seat;
        std::vector<PreparedAction> actions;
        actions.push_back(std::move(a));
        return store_actions(p->code(), std::move(actions),
                             [this, c, id, type, before, seat](Table* p, std::exception_ptr error, bool applied) {
                               if (error) return send_error(*c, id, storage_error(error));
                               if (!p) return;
                               finish_change(c, id, seat, type, *p, p->game() && p->game()->game.over(), true,
                                             applied ? before : -1);
                             });
      }
    } else {
      e = Error{ErrorCode::BadRequest, {Msg::MessageUnknown, {{"type", type}}}};
    }
  } catch (const std::exception& ex) {
    e = Error{ErrorCode::Conflict, {Msg::StorageFailed, {{"detail", ex.what()}}}};
    stale = true;
  }
  if (e) {
    send_error(*c, id, *e);
    // Another instance may have changed the table in the store: read it again.
    if (stale) reload(*p);
    return;
  }
  finish_change(c, id, c->seat, type, *p, table_changed, state_changed, from);
}

void Hub::finish_change(const std::shared_ptr<Client>& c, const std::string& id, int seat, const std::string& type,
                        Table& p, bool table_changed, bool state_changed, int from) {
  if (p.cpu_level()) cpus_.works_for(p.code(), c->ip);  // the CPU's next search is for this client
  json::object ack{{"t", "ack"}, {"v", p.game() ? p.game()->version : 0}};
  if (!id.empty()) ack["id"] = id;
  c->send(message(ack));
  after_change(p, table_changed, state_changed, from);
  if (notices_) notices_->notify(p, seat, type);
}

void Hub::write_then(const std::string& code, StoreWriter::Work work, std::function<void(Table*, std::exception_ptr)> then) {
  storing_.insert(code);
  writer_->submit(code, std::move(work), [this, code, then = std::move(then)](std::exception_ptr error) {
    storing_.erase(code);
    auto it = tables_.find(code);
    then(it == tables_.end() ? nullptr : &it->second, error);
    run_waiting(code);
  });
}

void Hub::store_actions(const std::string& code, std::vector<PreparedAction> actions, Stored then) {
  auto stored = std::make_shared<std::vector<PreparedAction>>(std::move(actions));
  const int64_t at = now();
  write_then(
      code,
      [stored, at](Store& store) {
        for (const PreparedAction& a : *stored) store.append_action(a.game, a.version, a.action, at, a.cpu_to_act);
      },
      [this, stored, at, then = std::move(then)](Table* p, std::exception_ptr error) {
        bool applied = false;
        if (p && !error) {
          applied = true;
          actions_stored_ += stored->size();
          for (PreparedAction& a : *stored) applied = applied && p->apply_prepared(std::move(a), at);
        }
        if (!p || applied) return then(p, error, applied);
        // Refused (another instance may have moved the game on), or read
        // again meanwhile: the store has it all. Told once read again.
        reload(p->code(), [then, error](Table* p) { then(p, error, false); });
      });
}

void Hub::store_rematch(const std::shared_ptr<Client>& c, const std::string& id, const std::string& type, Table& p,
                        Table::RematchChange change) {
  const int seat = c->seat;
  write_then(
      p.code(),
      [code = p.code(), change](Store& store) { store.set_rematch(code, change.offer, change.declined_by); },
      [this, c, id, type, seat, change](Table* p, std::exception_ptr error) {
        if (error) {
          send_error(*c, id, storage_error(error));
          if (p) reload(*p);  // another instance may have changed it
          return;
        }
        if (!p) return;
        p->rematch_set(change.offer, change.declined_by);
        finish_change(c, id, seat, type, *p, true, false, -1);
      });
}

void Hub::begin_game(const std::shared_ptr<Client>& c, const std::string& id, const std::string& type, Table& p) {
  auto game = std::make_shared<PreparedGame>(p.prepare_game());
  auto stored_as = std::make_shared<int64_t>(0);
  const int64_t at = now();
  const int seat = c->seat;
  write_then(
      p.code(), [game, stored_as, at](Store& store) { *stored_as = game->store(store, at); },
      [this, c, id, type, seat, game, stored_as, at](Table* p, std::exception_ptr error) {
        if (error) {
          send_error(*c, id, storage_error(error));
          if (p) reload(*p);  // another instance may have begun it
          return;
        }
        if (!p) return;
        if (p->begin_prepared(std::move(*game), *stored_as, at))
          return finish_change(c, id, seat, type, *p, true, true, A_GAME_BEGAN);
        reload(p->code(), [this, c, id, seat, type](Table* p) {
          if (p) finish_change(c, id, seat, type, *p, true, true, -1);
        });
      });
}

void Hub::after_write(const std::string& code, std::function<void()> then) {
  if (!storing_.count(code)) return then();
  waiting_[code].push_back(std::move(then));
}

void Hub::run_waiting(const std::string& code) {
  for (auto it = waiting_.find(code); it != waiting_.end() && !storing_.count(code); it = waiting_.find(code)) {
    if (it->second.empty()) {
      waiting_.erase(it);
      return;
    }
    auto next = std::move(it->second.front());
    it->second.pop_front();
    next();
  }
}

void Hub::after_change(Table& p, bool table_changed, bool state_changed, int from) {
  sync_.publish(p, from);
  broadcast(p, table_changed, state_changed);
  watch_first_move(p);
  watch_clock(p);
  cpus_.maybe_play(p);
  tell_tournament(p);
}

void Hub::tell_tournament(const Table& p) {
  if (tournament_games_ && !p.record().tournament.empty() && p.game() && p.game()->number == 1 &&
      p.game()->game.over())
    tournament_games_(p.record().tournament, p.game()->game.result());
}

void Hub::play_cpu(const std::string& code, int64_t game, int version, std::vector<std::string> actions) {
  // A player's action of this table is being stored: the CPU's follows it.
  if (storing_.count(code)) {
    waiting_[code].push_back([this, code, game, version, actions = std::move(actions)]() mutable {
      play_cpu(code, game, version, std::move(actions));
    });
    return;
  }
  cpus_.finished(code);
  Table* p = find(code);
  if (!p || !p->game()) return;
  // The game moved on while the CPU thought (the player offered a draw, say):
  // think again from where it is now.
  if (p->game()->id != game || p->game()->version != version) return cpus_.maybe_play(*p);
  if (p->out_of_time(now())) return check_clock(code);  // the CPU thought too long: it loses on time
  std::vector<PreparedAction> chain;
  chain.reserve(actions.size());  // each is prepared on the one before
  for (const std::string& a : actions) {
    size_t colon = a.find(':');
    std::string type = colon == std::string::npos ? "move" : a.substr(0, colon);
    if (type == "offer" || type == "accept" || type == "decline") type += "-draw";
    const LiveGame* after = chain.empty() ? nullptr : &*chain.back().next;
    PreparedAction next;
    if (p->prepare(1, type, type == "move" ? a : "", after ? after->version : p->game()->version, next, after)) break;
    chain.push_back(std::move(next));
  }
  if (chain.empty()) return after_change(*p, p->game()->game.over(), true, version);
  // Storage failing leaves the CPU's turn open (the scan tries again).
  store_actions(code, std::move(chain), [this, version](Table* p, std::exception_ptr error, bool applied) {
    if (p && !error) after_change(*p, p->game()->game.over(), true, applied ? version : -1);
  });
}

void Hub::recommending_seat(const std::string& raw_code, const std::string& token, const std::string& ip,
                            std::function<void(std::variant<RecommendingSeat, Answer>)> answer) {
  const std::string code = normalise_code(raw_code);
  if (!token.empty() && token.size() <= 64 && would_open(code, ip, true, false))
    return open_then(code, [this, code, token, ip, answer = std::move(answer)] {
      answer(recommending_seat(code, token, ip));
    });
  answer(recommending_seat(code, token, ip));
}

std::variant<RecommendingSeat, Answer> Hub::recommending_seat(const std::string& code, const std::string& token,
                                                                 const std::string& ip) {
  Seats seats;
  std::vector<std::string> unknown;
  if (auto e = resolve_seats({{code, token}}, ip, seats, unknown)) return error_reply(*e);
  if (seats.empty()) return error_reply(Error{ErrorCode::Forbidden, Msg::TokenNoSeat});
  auto [p, seat] = seats.front();
  return RecommendingSeat{p->code(), seat, p->seats()[size_t(seat)].name, p->record().variant,
                          p->own_moves_in_a_finished_game(seat)};
}

// ---------------------------------------------------------------- quick messages

// The phrases players may send each other: fixed, so that there is nothing to
// moderate; each reader's page shows them in its own language.
static const std::set<std::string>& quick_phrases() {
  static const std::set<std::string> phrases = {"hello", "good-luck", "good-game", "well-played", "thanks",
                                                "your-turn", "one-moment", "oops", "rematch", "bye",
                                                "smile", "wow"};
  return phrases;
}

void Hub::say(const std::shared_ptr<Client>& c, Table& p, const std::string& id, const std::string& phrase) {
  if (c->seat < 0 || p.cpu_level()) return send_error(*c, id, Error{ErrorCode::Forbidden, Msg::QuickPlayersOnly});
  if (!quick_phrases().count(phrase))
    return send_error(*c, id, Error{ErrorCode::BadRequest, {Msg::QuickUnknown, {{"phrase", phrase.substr(0, 32)}}}});
  const int64_t t = now();
  if (t - c->last_said < QUICK_MESSAGE_GAP_MS)
    return send_error(*c, id, Error{ErrorCode::RateLimited, {Msg::QuickTooSoon, {{"seconds", QUICK_MESSAGE_GAP_MS / 1000}}}});
  c->last_said = t;
  json::object ack{{"t", "ack"}, {"v", p.game() ? p.game()->version : 0}};  // as every ack (docs/api.md)
  if (!id.empty()) ack["id"] = id;
  c->send(message(ack));
  auto it = watchers_.find(p.code());
  if (it == watchers_.end()) return;
  auto m = message(json::object{{"t", "said"}, {"seat", c->seat}, {"phrase", phrase}, {"at", t}});
  for (const auto& w : it->second) w->send(m);
}

Hub::Figures& Hub::Figures::operator+=(const Figures& o) {
  tables += o.tables;
  clients += o.clients;
  cpu_queue = std::max(cpu_queue, o.cpu_queue);  // the hubs of a process share one engine pool
  actions_stored += o.actions_stored;
  has_bus = has_bus || o.has_bus;
  bus_up = bus_up && o.bus_up;
  bus_heartbeat_s = std::max(bus_heartbeat_s, o.bus_heartbeat_s);
  return *this;
}

Hub::Figures Hub::figures() const {
  Figures f;
  f.tables = tables_.size();
  for (const auto& [code, clients] : watchers_) f.clients += clients.size();
  f.actions_stored = actions_stored_;
  f.cpu_queue = cpus_.pending();
  if (bus_) {
    f.has_bus = true;
    f.bus_up = bus_->up();
    f.bus_heartbeat_s = sync_.heartbeat_s();
  }
  return f;
}

Answer Hub::metrics(const std::vector<Figures>& hubs, size_t seekers, const StoreWriter* writer) {
  Figures f;
  for (const Figures& hub : hubs) f += hub;
  MetricsText m;
  m.gauge("tables_in_memory", "Tables held in memory (in play, or opened a short while ago).", double(f.tables));
  m.gauge("table_clients", "Connections at a table (players and spectators).", double(f.clients));
  m.counter("actions_stored_total", "Game actions (moves and others) stored and applied.", double(f.actions_stored));
  m.gauge("cpu_queue", "CPU searches waiting for a thread.", double(f.cpu_queue));
  m.gauge("seekers", "People here waiting for an opponent.", double(seekers));
  m.gauge("hub_threads", "Threads serving tables (each holds the tables of its codes).", double(hubs.size()));
  if (writer) {
    m.counter("store_writes_total", "Pieces of work the store writer ran.", double(writer->jobs()));
    m.counter("store_commits_total", "Commits (batches) the store writer made.", double(writer->batches()));
    m.counter("store_commit_seconds_total", "Time the store writer spent in commits.", writer->commit_seconds());
    m.gauge("store_waiting", "Writes waiting for the store writer.", double(writer->waiting()));
  }
  if (f.has_bus) {
    m.gauge("bus_up", "Whether the bus (Redis) answered its last question.", f.bus_up ? 1 : 0);
    m.gauge("bus_heartbeat_seconds", "How long the last heartbeat to the bus took.", f.bus_heartbeat_s);
  }
  return Answer{Outcome::Ok, m.text(), MetricsText::CONTENT_TYPE};
}

void Hub::ready(Respond respond) {
  // A read, off this thread (so the store's writer answers too).
  writer_->submit(
      "", [](Store& store) { store.table_exists(""); },
      [this, respond = std::move(respond)](std::exception_ptr error) {
        if (error) return respond(reply(Outcome::Unavailable, json::object{{"status", "store unavailable"}}));
        if (!bus_) return respond(reply(Outcome::Ok, json::object{{"status", "ready"}}));
        // Then the bus, on its questions' thread (its deadline bounds the question).
        bus_->ask([this, bus = bus_, respond = std::move(respond)] {
          const bool up = bus->healthy();
          post_([up, respond = std::move(respond)] {
            respond(up ? reply(Outcome::Ok, json::object{{"status", "ready"}})
                       : reply(Outcome::Unavailable, json::object{{"status", "bus unavailable"}}));
          });
        });
      });
}

Answer Hub::ready() {
  return answered_at_once([&](Respond respond) { ready(std::move(respond)); });
}

// A testing aid's milliseconds ({"NAME":N}, from 0 to `max`), or its refusal.
static std::variant<int64_t, Answer> test_ms(bool enabled, const std::string& body, const char* name, int64_t max) {
  if (!enabled) return error_reply(Error{ErrorCode::NotFound, Msg::NoEndpoint});
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  int64_t ms = 0;
  bool present = false;
  if (!get_int(*o, name, ms, present) || !present || ms < 0 || ms > max) return bad_request(Msg::ClockAdvance);
  return ms;
}

Answer Hub::advance_clock(const std::string& body) {
  auto ms = test_ms(test_clock_, body, "advanceMs", std::numeric_limits<int64_t>::max() / 4);
  if (auto* refusal = std::get_if<Answer>(&ms)) return *refusal;
  *clock_offset_ += std::get<int64_t>(ms);
  tick();
  if (clock_moved_) clock_moved_();
  return reply(Outcome::Ok, json::object{{"now", now()}});
}

Answer Hub::stall(const std::string& body) {
  auto ms = test_ms(test_clock_, body, "ms", 10000);
  if (auto* refusal = std::get_if<Answer>(&ms)) return *refusal;
  // Next on this hub's thread, after the answer: whatever reaches it now waits.
  post_([ms = std::get<int64_t>(ms)] { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); });
  return reply(Outcome::Ok, json::object{{"stalling", std::get<int64_t>(ms)}});
}

// ---------------------------------------------------------------- seats of tokens

std::optional<Error> Hub::resolve_seats(const std::vector<std::pair<std::string, std::string>>& tables,
                                        const std::string& ip, Seats& seats,
                                        std::vector<std::string>& unknown) {
  for (const auto& [code, token] : tables) {
    if (!guard_.credential_allowed(ip)) return Error{ErrorCode::RateLimited, Msg::LimitWrongCodes};
    Table* p = find(code);
    int seat = p ? p->seat_of_token(hash_token(token)) : -1;
    if (seat >= 0) {
      seats.emplace_back(p, seat);
      continue;
    }
    guard_.wrong_credential(ip);
    if (!code_guess_allowed(ip, true)) return Error{ErrorCode::RateLimited, Msg::LimitWrongCodes};
    unknown.push_back(code);
  }
  return std::nullopt;
}

void Hub::notice_seats(IndexedPairs pairs, const std::string& ip, std::function<void(TurnNotices::Found)> then) {
  // Tables not in memory are read first, and so are those in memory whose
  // seat a token may have taken at another instance (as for a hello).
  std::vector<std::string> codes, stale;
  if (guard_.credential_allowed(ip))
    for (const auto& [index, pair] : pairs) {
      codes.push_back(pair.first);
      if (seat_may_be_elsewhere(pair.first, pair.second, ip) &&
          std::find(stale.begin(), stale.end(), pair.first) == stale.end())
        stale.push_back(pair.first);
    }
  auto found_then = [this, pairs = std::move(pairs), ip, then = std::move(then)] {
    TurnNotices::Found found;
    for (const auto& [index, pair] : pairs) {
      Seats seats;
      std::vector<std::string> unknown;
      if ((found.error = resolve_seats({pair}, ip, seats, unknown))) break;
      for (const auto& [p, seat] : seats) found.seats.push_back({index, p->code(), seat, TurnNotices::game_of(*p, seat)});
      for (std::string& code : unknown) found.unknown.emplace_back(index, std::move(code));
    }
    then(std::move(found));
  };
  if (stale.empty()) return open_all_then(std::move(codes), std::move(found_then));
  auto left = std::make_shared<size_t>(stale.size());
  auto after = std::make_shared<std::function<void()>>(std::move(found_then));
  for (const std::string& code : stale)
    reload(code, [this, left, after, codes](Table*) mutable {
      if (--*left == 0) open_all_then(std::move(codes), std::move(*after));
    });
}

TurnNotices::Tables Hub::notices_tables(size_t shards, OnShard on_shard) {
  shards = std::max<size_t>(shards, 1);
  return {[shards, on_shard](TurnNotices::Pairs pairs, std::string ip, std::function<void(TurnNotices::Found)> then) {
    std::vector<IndexedPairs> by_shard(shards);
    for (size_t i = 0; i < pairs.size(); ++i)
      by_shard[shard_of(pairs[i].first, shards)].emplace_back(i, std::move(pairs[i]));
    // What each hub found, gathered as they answer (on their threads).
    struct Gathered {
      std::mutex mutex;
      size_t left = 0;
      TurnNotices::Found all;
      std::function<void(TurnNotices::Found)> then;
    };
    auto gathered = std::make_shared<Gathered>();
    gathered->then = std::move(then);
    for (const IndexedPairs& mine : by_shard) gathered->left += !mine.empty();
    if (!gathered->left) return gathered->then(TurnNotices::Found{});
    for (size_t s = 0; s < shards; ++s) {
      if (by_shard[s].empty()) continue;
      on_shard(s, [gathered, mine = std::move(by_shard[s]), ip](Hub& hub) mutable {
        hub.notice_seats(std::move(mine), ip, [gathered](TurnNotices::Found part) {
          std::unique_lock lock(gathered->mutex);
          TurnNotices::Found& all = gathered->all;
          for (auto& seat : part.seats) all.seats.push_back(std::move(seat));
          for (auto& code : part.unknown) all.unknown.push_back(std::move(code));
          if (part.error && !all.error) all.error = std::move(part.error);
          if (--gathered->left) return;
          lock.unlock();
          gathered->then(std::move(all));
        });
      });
    }
  }};
}

}  // namespace makruk::server
