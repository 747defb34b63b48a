#include "server/tables/table.h"

#include <algorithm>
#include <ctime>

#include "core/notation.h"

namespace makruk::server {

std::string_view error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::BadRequest: return "bad-request";
    case ErrorCode::NotFound: return "not-found";
    case ErrorCode::Forbidden: return "forbidden";
    case ErrorCode::RateLimited: return "rate-limited";
    case ErrorCode::Conflict: return "conflict";
    case ErrorCode::Full: return "full";
  }
  return "bad-request";
}

Outcome outcome_of(ErrorCode c) {
  switch (c) {
    case ErrorCode::BadRequest: return Outcome::BadRequest;
    case ErrorCode::NotFound: return Outcome::NotFound;
    case ErrorCode::Forbidden: return Outcome::Forbidden;
    case ErrorCode::RateLimited: return Outcome::RateLimited;
    case ErrorCode::Conflict:
    case ErrorCode::Full: return Outcome::Conflict;
  }
  return Outcome::BadRequest;
}

namespace {

Error err(ErrorCode c, Message msg) { return Error{c, std::move(msg)}; }

}  // namespace

std::string tournament_ref(const TournamentGame& g) {
  return g.code + "/" + std::to_string(g.round) + "/" + std::to_string(g.board);
}

std::optional<TournamentGame> parse_tournament_ref(const std::string& ref) {
  const size_t a = ref.find('/'), b = a == std::string::npos ? a : ref.find('/', a + 1);
  if (b == std::string::npos) return std::nullopt;
  TournamentGame g;
  try {
    g.code = ref.substr(0, a);
    g.round = std::stoi(ref.substr(a + 1, b - a - 1));
    g.board = std::stoi(ref.substr(b + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (g.round <= 0 || g.board <= 0) return std::nullopt;
  return g;
}

std::string iso_time(int64_t ms) {
  std::time_t secs = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}


Variant Table::variant() const { return record_.variant == "ouk" ? Variant::Ouk : Variant::Makruk; }
Counting Table::counting() const {
  return record_.counting == "declare" ? Counting::Declaration : Counting::Automatic;
}

bool apply_action(LiveGame& g, const std::string& action, Why error, int64_t at) {
  const Position& pos = g.game.position();
  const Color to_move = pos.side_to_move();
  Move m;
  if (is_move_action(action)) {
    m = parse_move(pos, action, error);
    if (m.is_none()) return false;
  }
  std::string san = m.is_none() || g.game.over() ? "" : move_to_san(pos, m);
  std::string thai = m.is_none() || g.game.over() ? "" : move_to_thai_san(pos, m);
  const bool was_over = g.game.over();
  if (!g.game.apply(action, error)) return false;
  if (!m.is_none()) {
    g.san.push_back(std::move(san));
    g.san_thai.push_back(std::move(thai));
  }
  ++g.version;
  // The clock of the side to move stops at its move (which adds the
  // increment), or when the game ends; a clock that ran out shows nothing left.
  if (g.clock && at >= 0 && !was_over && (!m.is_none() || g.game.over())) {
    GameClock& c = *g.clock;
    c.left[to_move] -= at - c.since;
    if (!m.is_none() && !g.game.over()) c.left[to_move] += c.increment;
    if (action.rfind("time:", 0) == 0 || c.left[to_move] < 0) c.left[to_move] = 0;
    c.since = at;
  }
  return true;
}

namespace {

// The moves each seat made in a game of `moves` moves whose first was
// `first`'s.
void own_moves(int moves, Color first, int white_seat, int out[2]) {
  const int by_first = (moves + 1) / 2, by_second = moves / 2;
  const int first_seat = first == WHITE ? white_seat : 1 - white_seat;
  out[first_seat] = by_first;
  out[1 - first_seat] = by_second;
}

}  // namespace

int Table::own_moves_in_a_finished_game(int seat) const {
  if (seat < 0 || seat > 1) return 0;
  int best = finished_moves_[seat];
  if (game_ && game_->game.over()) {
    const int moves = int(game_->san.size());
    const Color now = game_->game.position().side_to_move();
    int mine[2];
    own_moves(moves, moves % 2 == 0 ? now : Color(1 - now), game_->white_seat, mine);
    best = std::max(best, mine[seat]);
  }
  return best;
}

bool cpu_to_act(const LiveGame& g, int cpu_level) {
  if (!cpu_level || g.game.over()) return false;
  const bool offered = g.game.draw_offer() && g.seat_of(*g.game.draw_offer()) == 0;
  return offered || g.seat_of(g.game.position().side_to_move()) == 1;
}

Table Table::from_record(const TableData& data) {
  Table p(data.party);
  p.last_present_ = data.party.left_at;
  for (const SeatRecord& s : data.seats) {
    if (s.seat != int(p.seats_.size())) break;
    p.seats_.push_back(Seat{s.name, s.token_hash, 0});
  }
  // Every game before the last one ended (a table begins its next game only
  // then): the moves each seat made in them.
  for (size_t i = 0; i + 1 < data.games.size(); ++i) {
    const GameRecord& g = data.games[i];
    const int moves = int(std::count_if(g.actions.begin(), g.actions.end(),
                                        [](const ActionRecord& a) { return is_move_action(a.action); }));
    const size_t side = g.start_fen.find(' ');
    const Color first = side != std::string::npos && g.start_fen.compare(side, 3, " b ") == 0 ? BLACK : WHITE;
    int mine[2];
    own_moves(moves, first, g.white_seat, mine);
    for (int s = 0; s < 2; ++s) p.finished_moves_[s] = std::max(p.finished_moves_[s], mine[s]);
  }
  if (!data.games.empty()) {
    const GameRecord& rec = data.games.back();
    p.last_activity_ = std::max(p.last_activity_, rec.created_at);
    // The end of a table (its "expire") is no activity: the time shown stays
    // that of the last move, as it was before a restart.
    for (auto a = rec.actions.rbegin(); a != rec.actions.rend(); ++a)
      if (a->action != "expire") {
        p.last_activity_ = std::max(p.last_activity_, a->at);
        break;
      }
    std::string error;
    auto game = Game::create(p.variant(), p.counting(), rec.start_fen, &error);
    if (game) {
      LiveGame g{rec.id, rec.number, rec.white_seat, std::move(*game), 0, {}, {}, rec.public_id, p.clock_from(rec.created_at)};
      for (const ActionRecord& a : rec.actions)
        if (!apply_action(g, a.action, &error, a.at)) break;  // cannot happen: only accepted actions are stored
      p.game_ = std::move(g);
    }
  }
  return p;
}

std::string Table::status() const {
  if (expired()) return "expired";
  if (game_) return game_->game.over() ? "finished" : "playing";
  return seats_.size() >= 2 ? "ready" : "waiting";
}

int Table::seat_of_token(const std::string& token_hash) const {
  for (size_t i = 0; i < seats_.size(); ++i)
    if (seats_[i].token_hash == token_hash) return int(i);
  return -1;
}

int64_t Table::expires_at() const {
  if (!turn_based() || expired()) return 0;
  return std::max(last_activity_, record_.starts_at) + TURN_BASED_EXPIRY_MS;
}

bool Table::apply_stored(int64_t game, int version, const std::vector<std::string>& actions, int64_t at) {
  if (!game_ || game_->id != game || game_->version + int(actions.size()) != version || expired()) return false;
  LiveGame next = *game_;
  std::string error;
  for (const std::string& a : actions)
    if (!apply_action(next, a, &error, at)) return false;
  game_ = std::move(next);
  last_activity_ = std::max(last_activity_, at);
  return true;
}

void Table::carry_presence_from(const Table& old) {
  for (size_t i = 0; i < seats_.size() && i < old.seats_.size(); ++i) seats_[i].connections = old.seats_[i].connections;
  spectators = old.spectators;
  spectator_names = old.spectator_names;
  elsewhere = old.elsewhere;
  opened_at = old.opened_at;
  last_present_ = std::max(last_present_, old.last_present_);
  if (!game_ && !expired()) arrive_by = old.arrive_by;
  pairing_ended = old.pairing_ended;
  pairing_missing = old.pairing_missing;
  from_pairing = old.from_pairing;
  first_move_check = old.first_move_check;
  clock_check = old.clock_check;
}

int64_t Table::flag_at() const {
  if (!game_ || !game_->clock || game_->game.over() || expired()) return 0;
  const GameClock& c = *game_->clock;
  return c.since + std::max<int64_t>(c.left[game_->game.position().side_to_move()], 0);
}

std::optional<GameClock> Table::clock_from(int64_t at) const {
  if (!has_clock()) return std::nullopt;
  return GameClock{{record_.clock_ms, record_.clock_ms}, at, record_.increment_ms};
}

int Table::awaiting_first_move() const {
  if (!game_ || game_->number != 1 || game_->game.over() || expired() || game_->game.plies() >= 2) return -1;
  return game_->seat_of(game_->game.position().side_to_move());
}

int Table::called_off_seat() const {
  if (!game_ || game_->game.reason() != Reason::Aborted) return -1;
  for (auto it = game_->game.record().rbegin(); it != game_->game.record().rend(); ++it)
    if (it->rfind("abort:", 0) == 0) return game_->seat_of(it->back() == 'w' ? WHITE : BLACK);
  return -1;
}

int Table::connections_anywhere(int seat) const {
  int n = seat >= 0 && size_t(seat) < seats_.size() ? seats_[size_t(seat)].connections : 0;
  for (const auto& [instance, e] : elsewhere) n += seat >= 0 && seat < 2 ? e.seats[seat] : 0;
  return n;
}

int Table::spectators_anywhere() const {
  int n = spectators;
  for (const auto& [instance, e] : elsewhere) n += e.spectators;
  return n;
}

bool Table::nobody_anywhere() const {
  return nobody_connected() && std::all_of(elsewhere.begin(), elsewhere.end(), [](const auto& e) {
           return e.second.seats[0] == 0 && e.second.seats[1] == 0 && e.second.spectators == 0;
         });
}

bool Table::nobody_connected() const {
  if (spectators > 0) return false;
  return std::all_of(seats_.begin(), seats_.end(), [](const Seat& s) { return s.connections == 0; });
}

std::optional<Error> Table::refuse_if_expired() const {
  if (expired())
    return err(ErrorCode::Conflict, turn_based() ? Msg::PartyEndedTurn : Msg::PartyEndedLive);
  return std::nullopt;
}

std::optional<Table::Expiry> Table::expiry_due(int64_t now, int64_t live_idle_ms) const {
  int64_t due = expires_at();
  if (!turn_based() && !expired() && live_idle_ms > 0 && nobody_anywhere())
    due = std::max({last_activity_, last_present_, record_.starts_at}) + live_idle_ms;
  if (due == 0 || now < due) return std::nullopt;
  const bool running = game_ && !game_->game.over();
  return Expiry{now, running ? game_->id : 0, running ? game_->version : 0};
}

bool Table::expire_stored(const Expiry& x) {
  if (expired()) return false;
  const bool running = game_ && !game_->game.over();
  if (running ? game_->id != x.game || game_->version != x.version : x.game != 0) return false;
  if (running) {
    std::string error;
    apply_action(*game_, "expire", &error, x.at);
  }
  record_.expired_at = x.at;
  return true;
}

std::optional<Error> Table::add_player(Store& store, const std::string& name, const std::string& token_hash,
                                       int& seat) {
  if (auto e = may_add_player(seat)) return e;
  store.add_seat(SeatRecord{record_.code, seat, name, token_hash});
  seat_taken(name, token_hash);
  return std::nullopt;
}

std::optional<Error> Table::may_add_player(int& seat) const {
  seat = -1;
  if (seats_.size() < 2)
    if (auto e = refuse_if_expired()) return e;
  if (seats_.size() >= 2) return err(ErrorCode::Full, Msg::PartyFull);
  seat = int(seats_.size());
  return std::nullopt;
}

void Table::seat_taken(const std::string& name, const std::string& token_hash) {
  seats_.push_back(Seat{name, token_hash, 0});
}

LiveGame Table::fresh_game(int number) const {
  const int white = record_.swap_colors && number % 2 == 0 ? 1 : 0;
  std::string error;
  auto game = Game::create(variant(), counting(), record_.start_fen, &error);
  if (!game) game = Game::create(variant(), counting(), "", &error);  // checked at creation; cannot happen
  return LiveGame{0, number, white, std::move(*game), 0, {}, {}, "", clock_from(0)};
}

void Table::now_playing(LiveGame game, int64_t at) {
  for (int s = 0; s < 2; ++s) finished_moves_[s] = own_moves_in_a_finished_game(s);  // the game that ends here
  record_.rematch_offer = -1;
  record_.rematch_declined_by = -1;
  game_ = std::move(game);
  if (game_->clock) game_->clock->since = at;  // White's clock runs from the start
  last_activity_ = at;
}

PreparedGame Table::prepare_game() const {
  LiveGame next = fresh_game(game_ ? game_->number + 1 : 1);
  next.public_id = random_token().substr(0, 12);
  PreparedGame g;
  g.code = record_.code;
  g.clear_rematch = record_.rematch_offer >= 0 || record_.rematch_declined_by >= 0;
  g.cpu_to_act = cpu_to_act(next, cpu_level());
  g.next = std::move(next);
  return g;
}

int64_t PreparedGame::store(Store& store, int64_t at) const {
  if (clear_rematch) store.set_rematch(code, -1, -1);
  return store.create_game(code, next->number, next->white_seat, next->game.position().fen(), at, cpu_to_act,
                           next->public_id);
}

bool Table::begin_prepared(PreparedGame&& g, int64_t id, int64_t at) {
  if (expired() || !g.next || g.next->number != (game_ ? game_->number + 1 : 1)) return false;
  g.next->id = id;
  now_playing(std::move(*g.next), at);
  return true;
}

void Table::begin_game(Store& store, int64_t now) {
  PreparedGame g = prepare_game();
  const int64_t id = g.store(store, now);
  begin_prepared(std::move(g), id, now);
}

bool Table::begin_stored(int64_t id, int number, int white, int64_t at, const std::string& public_id) {
  if (expired() || seats_.size() < 2 || number != (game_ ? game_->number + 1 : 1)) return false;
  LiveGame next = fresh_game(number);
  if (next.white_seat != white) return false;
  next.id = id;
  next.public_id = public_id;
  now_playing(std::move(next), at);
  return true;
}

std::optional<Error> Table::may_start(int seat, int64_t now) const {
  if (seat != 0) return err(ErrorCode::Forbidden, Msg::StartHostOnly);
  if (game_) return err(ErrorCode::Conflict, Msg::StartAlready);
  if (seats_.size() < 2) return err(ErrorCode::Conflict, Msg::StartWaiting);
  if (auto e = refuse_if_expired()) return e;
  if (now < record_.starts_at)
    return err(ErrorCode::Conflict, {Msg::StartTooEarly, {{"time", iso_time(record_.starts_at)}}});
  return std::nullopt;
}

std::optional<Error> Table::start(Store& store, int seat, int64_t now) {
  if (auto e = may_start(seat, now)) return e;
  begin_game(store, now);
  return std::nullopt;
}

std::optional<Error> Table::may_offer_rematch(int seat, RematchChange& out) const {
  out = RematchChange{};
  if (seat < 0 || seat > 1) return err(ErrorCode::Forbidden, Msg::RematchSpectator);
  if (!game_ || !game_->game.over()) return err(ErrorCode::Conflict, Msg::RematchRunning);
  if (!record_.tournament.empty()) return err(ErrorCode::Conflict, Msg::RematchTournament);
  if (auto e = refuse_if_expired()) return e;
  const int offer = record_.rematch_offer;
  if (offer == seat) return std::nullopt;  // offered already
  if (offer < 0 && !cpu_level()) {
    out.store = true;
    out.offer = seat;
    return std::nullopt;
  }
  out.begins = true;  // the other player's offer accepted, or the CPU's consent
  return std::nullopt;
}

std::optional<Error> Table::offer_rematch(Store& store, int seat, bool& begins) {
  RematchChange change;
  auto e = may_offer_rematch(seat, change);
  begins = change.begins;
  if (e || !change.store) return e;
  store.set_rematch(record_.code, change.offer, change.declined_by);
  rematch_set(change.offer, change.declined_by);
  return std::nullopt;
}

std::optional<Error> Table::rematch(Store& store, int seat, int64_t now, bool& started) {
  if (auto e = offer_rematch(store, seat, started)) return e;
  if (started) begin_game(store, now);
  return std::nullopt;
}

std::optional<Error> Table::may_decline_rematch(int seat, RematchChange& out) const {
  out = RematchChange{};
  if (seat < 0 || seat > 1) return err(ErrorCode::Forbidden, Msg::RematchDeclineSpectator);
  const int offer = record_.rematch_offer;
  if (offer < 0) return err(ErrorCode::Conflict, Msg::RematchNone);
  out.store = true;
  out.declined_by = offer == seat ? -1 : seat;  // an offer withdrawn is no decline
  return std::nullopt;
}

std::optional<Error> Table::decline_rematch(Store& store, int seat) {
  RematchChange change;
  if (auto e = may_decline_rematch(seat, change)) return e;
  store.set_rematch(record_.code, change.offer, change.declined_by);
  rematch_set(change.offer, change.declined_by);
  return std::nullopt;
}

std::optional<Error> Table::prepare(int seat, const std::string& type, const std::string& move, int version,
                                    PreparedAction& out, const LiveGame* after) const {
  if (seat < 0 || seat > 1) return err(ErrorCode::Forbidden, Msg::ActSpectator);
  if (!game_) return err(ErrorCode::Conflict, Msg::ActNotStarted);
  if (auto e = refuse_if_expired()) return e;
  const LiveGame& live = after ? *after : *game_;
  if (version != live.version)
    return err(ErrorCode::Conflict, {Msg::ActVersion, {{"version", live.version}, {"sent", version}}});
  Color me = live.color_of_seat(seat);
  const std::string side = me == WHITE ? "w" : "b";
  std::string action;
  if (type == "move") {
    if (live.game.over()) return err(ErrorCode::Conflict, Msg::GameFinished);
    if (live.game.position().side_to_move() != me) return err(ErrorCode::Forbidden, Msg::NotYourTurn);
    action = move;
  } else if (type == "count" || type == "stop" || type == "claim" || type == "resign") {
    action = type + ":" + side;
  } else if (type == "offer-draw" || type == "accept-draw" || type == "decline-draw") {
    action = type.substr(0, type.find('-')) + ":" + side;
  } else if (type == "abort" || type == "time") {
    action = type + ":" + side;
  } else {
    return err(ErrorCode::BadRequest, {Msg::ActionUnknown, {{"action", type}}});
  }
  // Tried on a copy: nothing here changes until it is stored.
  LiveGame next = live;
  Message error;
  if (!apply_action(next, action, &error)) return err(ErrorCode::BadRequest, std::move(error));
  out.game = live.id;
  out.version = live.version;
  out.action = next.game.record().back();
  out.cpu_to_act = cpu_to_act(next, cpu_level());
  out.next = std::move(next);
  return std::nullopt;
}

bool Table::apply_prepared(PreparedAction&& a, int64_t now) {
  if (!game_ || !a.next || game_->id != a.game || game_->version != a.version) return false;
  if (game_->clock) {
    // The clocks count from the time it was stored: played again with it.
    std::string error;
    if (!apply_action(*a.next = *game_, a.action, &error, now)) return false;
  }
  *game_ = std::move(*a.next);
  last_activity_ = now;
  return true;
}

std::optional<Error> Table::act(Store& store, int seat, const std::string& type, const std::string& move,
                                int version, int64_t now) {
  PreparedAction a;
  if (auto e = prepare(seat, type, move, version, a)) return e;
  try {
    store.append_action(a.game, a.version, a.action, now, a.cpu_to_act);
  } catch (const VersionConflict& e) {
    return err(ErrorCode::Conflict, {Msg::StorageConflict, {{"detail", e.what()}}});
  }
  apply_prepared(std::move(a), now);
  return std::nullopt;
}

}  // namespace makruk::server
