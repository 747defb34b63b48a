// Tournaments by code (tournaments.h): the requests, the events stored and
// replayed, and the games' tables.
#include "server/tournaments/tournaments.h"

#include <algorithm>
#include <boost/json.hpp>
#include <random>

#include "core/pgn.h"
#include "server/tables/hub.h"
#include "server/tables/hub_detail.h"
#include "server/tables/table.h"

namespace makruk::server {

namespace json = boost::json;
namespace tn = tournaments;
using namespace detail;

namespace {

constexpr int MAX_SWISS_ROUNDS = 20;
constexpr int ARENA_MIN_MINUTES = 5, ARENA_MAX_MINUTES = 600;
constexpr size_t MAX_TITLE = 60;             // characters
constexpr int64_t LOOK_EVERY_MS = 20000;     // the games under way looked at, at most this often
constexpr int64_t FORGET_AFTER_MS = 600000;  // a tournament nobody asked for leaves memory
constexpr int APPEND_TRIES = 5;              // appends tried again after another instance's

Error refusal_error(tn::Refusal r) {
  switch (r) {
    case tn::Refusal::full: return Error{ErrorCode::Full, Msg::TournamentFull};
    case tn::Refusal::not_open: return Error{ErrorCode::Conflict, Msg::TournamentNotOpen};
    case tn::Refusal::finished: return Error{ErrorCode::Conflict, Msg::TournamentFinished};
    case tn::Refusal::too_few: return Error{ErrorCode::Conflict, Msg::TournamentTooFew};
    case tn::Refusal::not_running: return Error{ErrorCode::Conflict, Msg::TournamentNotRunning};
    case tn::Refusal::unknown_player: return Error{ErrorCode::NotFound, Msg::TournamentNoPlayer};
    case tn::Refusal::unknown_game: return Error{ErrorCode::NotFound, Msg::TournamentNoGame};
    case tn::Refusal::none: break;
  }
  return Error{ErrorCode::Conflict, Msg::TournamentBusy};
}

const char* format_name(tn::Format f) {
  switch (f) {
    case tn::Format::swiss: return "swiss";
    case tn::Format::round_robin: return "roundrobin";
    case tn::Format::arena: return "arena";
  }
  return "swiss";
}

std::optional<tn::Format> parse_format(const std::string& s) {
  if (s == "swiss") return tn::Format::swiss;
  if (s == "roundrobin") return tn::Format::round_robin;
  if (s == "arena") return tn::Format::arena;
  return std::nullopt;
}

const char* status_name(tn::Tournament::Status s) {
  switch (s) {
    case tn::Tournament::Status::open: return "open";
    case tn::Tournament::Status::running: return "running";
    case tn::Tournament::Status::paused: return "paused";
    case tn::Tournament::Status::finished: return "finished";
  }
  return "open";
}

const char* outcome_text(tn::Outcome o) {
  switch (o) {
    case tn::Outcome::white_wins: return "1-0";
    case tn::Outcome::draw: return "1/2-1/2";
    case tn::Outcome::black_wins: return "0-1";
    case tn::Outcome::pending: break;
  }
  return nullptr;
}

std::optional<tn::Outcome> parse_outcome(const std::string& s) {
  if (s == "1-0") return tn::Outcome::white_wins;
  if (s == "1/2-1/2") return tn::Outcome::draw;
  if (s == "0-1") return tn::Outcome::black_wins;
  return std::nullopt;
}

// A game's end as the tournament counts it: a win, or a draw (also a game
// with no winner: one that ended unplayed or went too long without a move).
tn::Outcome outcome_of_result(Result r) {
  if (r == Result::WhiteWins) return tn::Outcome::white_wins;
  if (r == Result::BlackWins) return tn::Outcome::black_wins;
  return tn::Outcome::draw;
}

const tn::Pairing* find_game(const tn::Tournament& t, int round, int board) {
  for (const tn::Pairing& g : t.games())
    if (g.round == round && g.board == board) return &g;
  return nullptr;
}

std::string event_text(json::object o) { return json::serialize(o); }

// The player who missed their game (decision 20): they lost it on time
// without a move of their own (White moves first from the usual start);
// 0 for none.
int missed_game(const Table& table, const tn::Pairing& g) {
  const Game& game = table.game()->game;
  if (game.reason() != Reason::Time || game.result() == Result::Draw) return 0;
  int moves = 0;
  for (const std::string& a : game.record()) moves += is_move_action(a);
  if (game.result() == Result::BlackWins) return moves == 0 ? g.white : 0;
  return moves <= 1 ? g.black : 0;
}

}  // namespace

std::string Tournaments::game_code(const std::string& secret, int round, int board) {
  const std::string h = hash_token(secret + "/" + std::to_string(round) + "/" + std::to_string(board));
  std::string code;
  for (size_t i = 0; code.size() < 6; i += 2)
    code += CODE_ALPHABET[std::stoul(h.substr(i, 2), nullptr, 16) % CODE_ALPHABET.size()];
  return code;
}

Tournaments::Tournaments(Store& store, Gate gate, std::function<int64_t()> now)
    : store_(store), gate_(std::move(gate)), now_(std::move(now)) {}

// ---------------------------------------------------------------- events

tn::Refusal Tournaments::apply(Held& h, const std::string& text, int64_t at) {
  json::value v;
  try {
    v = json::parse(text);
  } catch (const std::exception&) {
    return tn::Refusal::unknown_game;
  }
  const json::object* o = v.if_object();
  if (!o || !o->contains("e") || !o->at("e").is_string()) return tn::Refusal::unknown_game;
  const std::string e(o->at("e").as_string());
  auto number = [&](const char* key) {
    const json::value* n = o->if_contains(key);
    return n && n->is_int64() ? int(n->as_int64()) : 0;
  };
  size_t first_new = 0;
  if (e == "join") {
    int n = 0;
    const json::value* name = o->if_contains("name");
    const json::value* token = o->if_contains("token");
    if (!name || !name->is_string() || !token || !token->is_string()) return tn::Refusal::unknown_player;
    const tn::Refusal r = h.t.join(std::string(name->as_string()), n);
    if (r == tn::Refusal::none) h.tokens.push_back(std::string(token->as_string()));
    return r;
  }
  if (e == "drop") return h.t.drop(number("p"));
  if (e == "back") return h.t.come_back(number("p"));
  if (e == "start") {
    const tn::Refusal r = h.t.start(first_new);
    if (r == tn::Refusal::none) h.started_at = at;
    return r;
  }
  if (e == "result") {
    const json::value* res = o->if_contains("o");
    const auto outcome = res && res->is_string() ? parse_outcome(std::string(res->as_string())) : std::nullopt;
    if (!outcome) return tn::Refusal::unknown_game;
    return h.t.game_ended(number("r"), number("b"), *outcome, first_new);
  }
  if (e == "pause") return h.t.pause();
  if (e == "resume") return h.t.resume(first_new);
  if (e == "end") return h.t.end();
  if (e == "pair") return h.t.pair_waiting(first_new);
  return tn::Refusal::unknown_game;
}

void Tournaments::catch_up(Held& h) {
  for (const TournamentEvent& e : store_.tournament_events(h.record.code, h.version)) {
    apply(h, e.event, e.at);  // a stored event applied when it was appended; it applies the same way again
    h.version = e.version;
  }
}

tn::Refusal Tournaments::append(Held& h, const std::string& event) {
  for (int attempt = 0;; ++attempt) {
    Held trial = h;
    const int64_t at = now_();
    if (const tn::Refusal r = apply(trial, event, at); r != tn::Refusal::none) return r;
    try {
      store_.append_tournament_event(h.record.code, h.version, event, at);
    } catch (const VersionConflict&) {
      if (attempt + 1 >= APPEND_TRIES) throw;
      catch_up(h);  // another instance appended first: try again on what it did
      continue;
    }
    trial.version = h.version + 1;
    h = std::move(trial);
    // The event is stored: what follows from it (its games' tables, an
    // arena's pairing) is done again whenever the tournament is read, should
    // the store fail now.
    try {
      make_tables(h);
      follow_up(h);
    } catch (const std::exception&) {
    }
    return tn::Refusal::none;
  }
}

bool Tournaments::arena_over(const Held& h) const {
  return h.t.status() == tn::Tournament::Status::running && h.record.arena_ms && h.started_at &&
         now_() >= h.started_at + h.record.arena_ms;
}

void Tournaments::follow_up(Held& h) {
  // An arena whose time is up ends (its games under way still count), and
  // pairs nobody more.
  if (arena_over(h)) {
    append(h, event_text({{"e", "end"}}));
    return;
  }
  // An arena pairs whoever waits, at once; but two who just played each
  // other wait for someone else to be free while any game is under way.
  if (h.t.settings().format != tn::Format::arena || h.t.status() != tn::Tournament::Status::running ||
      h.t.waiting().size() < 2)
    return;
  const tn::History history = h.t.history();
  const bool under_way = std::any_of(history.games.begin(), history.games.end(),
                                     [](const tn::Game& g) { return g.outcome == tn::Outcome::pending; });
  if (under_way) {
    const std::map<int, int> last = tn::last_opponents(history);
    for (const tn::Board& b : tn::pair_arena(h.t.waiting(), history))
      if (auto it = last.find(b.white); it != last.end() && it->second == b.black) return;
  }
  append(h, event_text({{"e", "pair"}}));
}

void Tournaments::make_tables(Held& h) {
  const auto& games = h.t.games();
  if (h.made >= games.size()) return;
  std::vector<std::function<void()>> pieces;
  std::vector<std::string> codes;
  const int64_t at = now_();
  for (size_t i = h.made; i < games.size(); ++i) {
    const tn::Pairing g = games[i];
    if (g.outcome != tn::Outcome::pending) continue;
    TableRecord r;
    r.code = game_code(h.record.secret, g.round, g.board);
    r.variant = h.record.variant;
    r.counting = h.record.counting;
    r.mode = h.record.mode;
    r.swap_colors = false;
    r.clock_ms = h.record.clock_ms;
    r.increment_ms = h.record.increment_ms;
    r.created_at = at;
    r.invite_key = hash_token(h.record.secret + "/key/" + r.code).substr(0, 16);
    r.tournament = tournament_ref({h.record.code, g.round, g.board});
    const std::string white = h.t.names().at(size_t(g.white - 1)), black = h.t.names().at(size_t(g.black - 1));
    const std::string white_token = h.tokens.at(size_t(g.white - 1)), black_token = h.tokens.at(size_t(g.black - 1));
    Store& store = store_;
    codes.push_back(r.code);
    pieces.push_back([&store, r, white, black, white_token, black_token, at] {
      if (store.table_exists(r.code)) return;  // made before (here, or at another instance)
      Table table(r);
      store.create_table(r, SeatRecord{r.code, 0, white, white_token});
      table.seats().push_back(Seat{white, white_token, 0});
      table.seats().push_back(Seat{black, black_token, 0});
      store.add_seat(SeatRecord{r.code, 1, black, black_token});
      table.begin_game(store, at);  // game 1, White at seat 0, its clock running
    });
  }
  std::vector<std::exception_ptr> outcomes(pieces.size());
  store_.in_one_commit(pieces, outcomes);
  // A table another instance made between the look and the making (both
  // saw the round paired at once) is made: only what is still missing is
  // an error, tried again the next time the tournament is asked for.
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i] && !store_.table_exists(codes[i])) std::rethrow_exception(outcomes[i]);
  const size_t first = h.made;
  h.made = games.size();
  if (h.record.mode == "turn") tell_new_games(h, first, games.size());
}

void Tournaments::tell_new_games(const Held& h, size_t first, size_t end) {
  const auto& games = h.t.games();
  for (size_t i = first; i < end; ++i) {
    const tn::Pairing& g = games[i];
    if (g.outcome != tn::Outcome::pending) continue;
    const std::string code = game_code(h.record.secret, g.round, g.board);
    try {
      // Each player's browsers subscribed at their last game's table follow
      // them to this one.
      for (const int seat : {0, 1}) {
        const int player = seat == 0 ? g.white : g.black;
        for (size_t j = i; j-- > 0;) {
          const tn::Pairing& before = games[j];
          if (before.white != player && before.black != player) continue;
          const int had = before.white == player ? 0 : 1;
          for (SubscriptionRecord s : store_.load_subscriptions(game_code(h.record.secret, before.round, before.board)))
            if (s.seat == had) {
              s.code = code;
              s.seat = seat;
              s.created_at = now_();
              store_.add_subscription(s);
            }
          break;
        }
      }
      if (!new_game_) continue;
      const auto data = store_.load_table(code);
      if (data) new_game_(Table::from_record(*data));
    } catch (const std::exception&) {
      // the store failed: the players find the game on the tournament's page
    }
  }
}

void Tournaments::record_end(Held& h, const tn::Pairing& g, const Table& table) {
  // The one who missed the game is dropped first, so that the round it may
  // complete is paired without them.
  if (const int missed = missed_game(table, g); missed && !h.t.dropped(missed))
    append(h, event_text({{"e", "drop"}, {"p", missed}}));
  append(h, event_text({{"e", "result"},
                        {"r", g.round},
                        {"b", g.board},
                        {"o", outcome_text(outcome_of_result(table.game()->game.result()))}}));
}

std::optional<Table> Tournaments::game_table(const Held& h, const tn::Pairing& g) {
  const auto data = store_.load_table(game_code(h.record.secret, g.round, g.board));
  if (!data || data->party.tournament != tournament_ref({h.record.code, g.round, g.board})) return std::nullopt;
  Table table = Table::from_record(*data);
  if (!table.game() || table.game()->number != 1) return std::nullopt;
  return table;
}

std::optional<Table> Tournaments::ended_table(const Held& h, const tn::Pairing& g) {
  auto table = game_table(h, g);
  if (!table || !table->game()->game.over()) return std::nullopt;
  return table;
}

void Tournaments::look_at_games(Held& h) {
  h.looked_at = now_();
  std::vector<tn::Pairing> pending;
  for (const tn::Pairing& g : h.t.games())
    if (g.outcome == tn::Outcome::pending) pending.push_back(g);
  for (const tn::Pairing& g : pending) {
    const auto table = ended_table(h, g);
    if (!table) continue;
    const tn::Pairing* now = find_game(h.t, g.round, g.board);
    if (now && now->outcome == tn::Outcome::pending) record_end(h, g, *table);
  }
}

// ---------------------------------------------------------------- in memory

Tournaments::Held* Tournaments::held(const std::string& code) {
  auto it = held_.find(code);
  if (it == held_.end()) {
    auto record = store_.load_tournament(code);
    if (!record) return nullptr;
    Held h;
    tn::Settings s;
    s.format = parse_format(record->format).value_or(tn::Format::swiss);
    s.rounds = record->rounds;
    h.t = tn::Tournament(s);
    h.record = std::move(*record);
    it = held_.emplace(code, std::move(h)).first;
  }
  Held& h = it->second;
  h.asked_at = now_();
  catch_up(h);
  // What an instance that died (or a store that failed) may have left
  // undone: the games' tables, an arena's end or pairing. Should that fail
  // (the store, or other instances appending faster five times over), the
  // answer is what is stored; the next read tries again.
  try {
    make_tables(h);
    follow_up(h);
  } catch (const std::exception&) {
  }
  return &h;
}

Tournaments::Held* Tournaments::find(const std::string& raw, const std::string& ip, Answer& refusal) {
  const std::string code = normalise_code(raw);
  // As for tables: an address limited for wrong codes looks nothing up, so
  // that neither the answer nor its time tells whether a code exists.
  if (!gate_.code_guess_allowed(ip, false)) {
    refusal = rate_limited(Msg::LimitWrongCodes);
    return nullptr;
  }
  Held* h = nullptr;
  try {
    if (code.size() == 6 && code.find_first_not_of(CODE_ALPHABET) == std::string::npos) h = held(code);
  } catch (const std::exception& e) {
    refusal = storage_failed(e);
    return nullptr;
  }
  if (!h) {
    gate_.code_guess_allowed(ip, true);
    refusal = error_reply(Error{ErrorCode::NotFound, {Msg::TournamentUnknown, {{"code", code}}}});
  }
  return h;
}

// ---------------------------------------------------------------- requests

Answer Tournaments::create(const std::string& body, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  TournamentRecord r;
  std::string rawTitle, variant = "makruk", format;
  r.counting = "auto";
  r.mode = "live";
  int64_t rounds = 5, minutes = 60;
  bool roundsPresent = false, minutesPresent = false;
  if (!get_string(*o, "title", rawTitle) || !get_string(*o, "variant", variant) ||
      !get_string(*o, "counting", r.counting) || !get_string(*o, "mode", r.mode) ||
      !get_string(*o, "format", format) || !get_int(*o, "rounds", rounds, roundsPresent) ||
      !get_int(*o, "minutes", minutes, minutesPresent))
    return bad_request(Msg::FieldType);
  if (auto bad = get_clock(*o, r.mode, r.clock_ms, r.increment_ms)) return bad_request(*bad);
  if (!rawTitle.empty()) {
    auto title = clean_text(rawTitle, MAX_TITLE, why);
    if (!title) return bad_request(why);
    r.title = *title;
  }
  Variant v;
  if (!parse_variant(variant, v)) return bad_request({Msg::VariantUnknown, {{"variant", variant}}});
  if (r.counting != "auto" && r.counting != "declare") return bad_request(Msg::CountingBad);
  if (r.mode != "live" && r.mode != "turn") return bad_request(Msg::ModeBad);
  const auto f = parse_format(format);
  if (!f) return bad_request(Msg::TournamentFormat);
  if (*f == tn::Format::swiss && (rounds < 1 || rounds > MAX_SWISS_ROUNDS))
    return bad_request({Msg::TournamentRounds, {{"max", MAX_SWISS_ROUNDS}}});
  if (*f == tn::Format::arena && (minutes < ARENA_MIN_MINUTES || minutes > ARENA_MAX_MINUTES))
    return bad_request({Msg::TournamentMinutes,
                        {{"min", ARENA_MIN_MINUTES}, {"max", ARENA_MAX_MINUTES}}});
  if (!gate_.may_create(ip)) return rate_limited(Msg::LimitTables);
  r.variant = std::string(variant_name(v));
  r.format = format_name(*f);
  r.rounds = *f == tn::Format::swiss ? int(rounds) : 0;
  r.arena_ms = *f == tn::Format::arena ? minutes * 60000 : 0;
  r.created_at = now_();
  r.secret = random_token();
  const std::string token = random_token();
  r.host_hash = hash_token(token);
  // A code held by no tournament (and, as far as anyone can tell, no table).
  std::mt19937_64 rng(random_seed());
  for (int attempt = 0;; ++attempt) {
    r.code.clear();
    for (int i = 0; i < 6; ++i) r.code += CODE_ALPHABET[rng() % CODE_ALPHABET.size()];
    try {
      if (store_.table_exists(r.code) || store_.load_tournament(r.code)) continue;
      store_.create_tournament(r);
      break;
    } catch (const std::exception& e) {
      if (attempt >= 2) return storage_failed(e);  // a code taken meanwhile: another, twice at most
    }
  }
  return reply(Outcome::Created, json::object{{"code", r.code}, {"hostToken", token}});
}

Answer Tournaments::get(const std::string& code, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  if (!h) return refusal;
  try {
    if (h->t.status() == tn::Tournament::Status::running && now_() - h->looked_at >= LOOK_EVERY_MS)
      look_at_games(*h);
  } catch (const std::exception&) {
    // the store failed: the answer is what is known; the next look tries again
  }
  return state(*h);
}

Answer Tournaments::join(const std::string& code, const std::string& body, const std::string& ip) {
  std::lock_guard lock(mutex_);
  if (!joins_.allow(ip, now_(), limits_.join_per_minute)) return rate_limited(Msg::LimitJoins);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string rawName;
  if (!get_string(*o, "name", rawName)) return bad_request(Msg::FieldType);
  auto name = clean_name(rawName, why);
  if (!name) return bad_request(why);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  if (!h) return refusal;
  const std::string token = random_token();
  try {
    if (const tn::Refusal r = append(*h, event_text({{"e", "join"}, {"name", *name}, {"token", hash_token(token)}}));
        r != tn::Refusal::none)
      return error_reply(refusal_error(r));
  } catch (const VersionConflict&) {
    return error_reply(Error{ErrorCode::Conflict, Msg::TournamentBusy});
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  Answer a = state(*h);
  json::value v = json::parse(a.body);
  v.as_object()["you"] = json::object{{"number", int(h->t.names().size())}, {"token", token}};
  a.body = json::serialize(v);
  a.outcome = Outcome::Created;
  return a;
}

Answer Tournaments::act(const std::string& code, const std::string& body, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Message why;
  auto o = parse_object(body, why);
  if (!o) return bad_request(why);
  std::string token, action, result;
  int64_t player = 0, round = 0, board = 0;
  bool present = false;
  if (!get_string(*o, "token", token) || !get_string(*o, "action", action) || !get_string(*o, "result", result) ||
      !get_int(*o, "player", player, present) || !get_int(*o, "round", round, present) ||
      !get_int(*o, "board", board, present))
    return bad_request(Msg::FieldType);
  if (token.size() > 64) return bad_request(Msg::TokenTooLong);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  if (!h) return refusal;
  const std::string hash = hash_token(token);
  const bool host = !token.empty() && hash == h->record.host_hash;
  int self = 0;
  for (size_t i = 0; i < h->tokens.size(); ++i)
    if (!token.empty() && h->tokens[i] == hash) self = int(i + 1);
  std::string event;
  if (action == "leave" || (action == "back" && !host)) {
    if (!self) return error_reply(Error{ErrorCode::Forbidden, Msg::TournamentNotPlayer});
    event = event_text({{"e", action == "leave" ? "drop" : "back"}, {"p", self}});
  } else if (action == "start" || action == "pause" || action == "resume" || action == "end" || action == "drop" ||
             action == "back" || action == "result") {
    if (!host) return error_reply(Error{ErrorCode::Forbidden, Msg::TournamentHostOnly});
    if (action == "drop" || action == "back") {
      event = event_text({{"e", action}, {"p", player}});
    } else if (action == "result") {
      const auto outcome = parse_outcome(result);
      if (!outcome) return bad_request(Msg::TournamentResult);
      event = event_text({{"e", "result"}, {"r", round}, {"b", board}, {"o", result}, {"by", "host"}});
    } else {
      event = event_text({{"e", action}});
    }
  } else {
    return bad_request({Msg::TournamentAction, {{"action", action.substr(0, 32)}}});
  }
  try {
    if (const tn::Refusal r = append(*h, event); r != tn::Refusal::none) {
      if (action == "start" && r == tn::Refusal::not_open)
        return error_reply(Error{ErrorCode::Conflict, Msg::TournamentStarted});
      return error_reply(refusal_error(r));
    }
  } catch (const VersionConflict&) {
    return error_reply(Error{ErrorCode::Conflict, Msg::TournamentBusy});
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  return state(*h);
}

Answer Tournaments::standings_csv(const std::string& code, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  if (!h) return refusal;
  return Answer{Outcome::Ok, h->t.standings_csv(), "text/csv; charset=utf-8"};
}

Answer Tournaments::games_pgn(const std::string& code, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  if (!h) return refusal;
  std::string out;
  const std::string event = h->record.title.empty() ? "Tournament " + h->record.code : h->record.title;
  try {
    for (const tn::Pairing& g : h->t.games()) {
      const auto table = game_table(*h, g);
      if (!table) continue;
      PgnTags tags{{"Event", event},
                   {"Site", h->record.code},
                   {"Date", iso_time(table->record().created_at).substr(0, 10)},
                   {"Round", std::to_string(g.round) + "." + std::to_string(g.board)},
                   {"White", h->t.names().at(size_t(g.white - 1))},
                   {"Black", h->t.names().at(size_t(g.black - 1))}};
      // A game the host decided, or one still under way, carries the
      // tournament's result where it has one.
      if (const char* res = outcome_text(g.outcome)) tags.emplace_back("Result", res);
      out += write_pgn(table->game()->game, tags);
      out += "\n";
    }
  } catch (const std::exception& e) {
    return storage_failed(e);
  }
  return Answer{Outcome::Ok, std::move(out), "application/x-chess-pgn; charset=utf-8"};
}

std::string Tournaments::link(const std::string& code, const std::string& base_url, const std::string& ip) {
  std::lock_guard lock(mutex_);
  Answer refusal;
  Held* h = find(code, ip, refusal);
  return h ? base_url + "/t/" + h->record.code : "";
}

void Tournaments::game_over(const std::string& ref, Result result) {
  std::lock_guard lock(mutex_);
  const auto ref_game = parse_tournament_ref(ref);
  if (!ref_game) return;
  const std::string& code = ref_game->code;
  const int round = ref_game->round, board = ref_game->board;
  try {
    Held* h = held(code);
    if (!h) return;
    const tn::Pairing* g = find_game(h->t, round, board);
    if (!g || g->outcome != tn::Outcome::pending) return;  // told before (or by another instance)
    const tn::Pairing game = *g;
    // The result as the table has it in the store (the hub stored it before telling).
    if (const auto table = ended_table(*h, game)) return record_end(*h, game, *table);
    append(*h, event_text({{"e", "result"}, {"r", round}, {"b", board}, {"o", outcome_text(outcome_of_result(result))}}));
  } catch (const std::exception&) {
    // the store failed: the games under way are looked at again later
  }
}

void Tournaments::tick() {
  std::lock_guard lock(mutex_);
  const int64_t now = now_();
  for (auto it = held_.begin(); it != held_.end();) {
    Held& h = it->second;
    try {
      catch_up(h);
      if (arena_over(h)) append(h, event_text({{"e", "end"}}));
      if (now - h.asked_at > FORGET_AFTER_MS) {
        it = held_.erase(it);
        continue;
      }
      if (h.t.status() == tn::Tournament::Status::running && now - h.looked_at >= LOOK_EVERY_MS) look_at_games(h);
    } catch (const std::exception&) {
      // the store failed: the next tick tries again
    }
    ++it;
  }
  joins_.sweep(now);
}

// ---------------------------------------------------------------- the answer

Answer Tournaments::state(const Held& h) const {
  if (h.cache.version == h.version) return Answer{Outcome::Ok, h.cache.text};
  const TournamentRecord& r = h.record;
  const tn::Tournament& t = h.t;
  json::object o{{"code", r.code},
                 {"title", r.title},
                 {"variant", r.variant},
                 {"counting", r.counting},
                 {"mode", r.mode},
                 {"format", r.format},
                 {"status", status_name(t.status())},
                 {"round", t.round()},
                 {"version", h.version},
                 {"createdAt", r.created_at}};
  o["rounds"] = r.format == "swiss" ? json::value(r.rounds)
                : r.format == "roundrobin" && t.status() != tn::Tournament::Status::open
                    ? json::value(std::max<int>(1, int(t.names().size()) - (t.names().size() % 2 == 0 ? 1 : 0)))
                    : json::value(nullptr);
  o["clock"] = r.clock_ms ? json::value(json::object{{"ms", r.clock_ms}, {"incrementMs", r.increment_ms}})
                          : json::value(nullptr);
  o["startedAt"] = h.started_at ? json::value(h.started_at) : json::value(nullptr);
  o["endsAt"] = r.arena_ms && h.started_at ? json::value(h.started_at + r.arena_ms) : json::value(nullptr);
  json::array players;
  for (size_t i = 0; i < t.names().size(); ++i)
    players.push_back(json::object{{"number", int(i + 1)}, {"name", t.names()[i]}, {"dropped", t.dropped(int(i + 1))}});
  o["players"] = std::move(players);
  json::array games;
  for (const tn::Pairing& g : t.games()) {
    json::object j{{"round", g.round},
                   {"board", g.board},
                   {"white", g.white},
                   {"black", g.black},
                   {"table", game_code(r.secret, g.round, g.board)}};
    const char* res = outcome_text(g.outcome);
    j["result"] = res ? json::value(res) : json::value(nullptr);
    games.push_back(std::move(j));
  }
  o["games"] = std::move(games);
  json::array byes;
  for (const tn::Bye& b : t.byes()) byes.push_back(json::object{{"round", b.round}, {"player", b.player}});
  o["byes"] = std::move(byes);
  o["waiting"] = json::value_from(t.waiting());
  json::array standings;
  for (const tn::Standing& s : t.standings())
    standings.push_back(json::object{{"place", s.place},
                                     {"player", s.player},
                                     {"points", tn::written_points(s.points, 2)},
                                     {"buchholz", tn::written_points(s.buchholz, 2)},
                                     {"sonnebornBerger", tn::written_points(s.sonneborn_berger, 4)},
                                     {"wins", s.wins},
                                     {"games", s.games}});
  o["standings"] = std::move(standings);
  h.cache.text = json::serialize(o);
  h.cache.version = h.version;
  return Answer{Outcome::Ok, h.cache.text};
}

}  // namespace makruk::server
