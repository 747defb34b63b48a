// Each game by its own link: its record (JSON, PGN) and its snapshot, made
// once per version of the game and kept.
#include "server/records/game_records.h"

#include <boost/json.hpp>
#include <ctime>

#include "core/pgn.h"
#include "server/tables/hub_detail.h"

namespace makruk::server {

namespace json = boost::json;
using namespace detail;

namespace {

// "2026.12.01", as PGN writes dates (UTC).
std::string pgn_date(int64_t ms) {
  const std::time_t t = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y.%m.%d", &tm);
  return buf;
}

// A player's name as the game's pages show it.
std::string player_name(const TableData& d, int seat) {
  if (seat == 1 && d.party.cpu_level) return "CPU (level " + std::to_string(d.party.cpu_level) + ")";
  for (const SeatRecord& s : d.seats)
    if (s.seat == seat) return s.name;
  return "?";
}

}  // namespace

struct GameRecords::Made {
  GameHead head;
  GameSnapshot snapshot;
  std::string json;  // {"game": …}
  std::string pgn;
  size_t bytes() const { return json.size() + pgn.size() + snapshot.fen.size() + 256; }
};

GameRecords::GameRecords(Store& store, GuessAllowed guess_allowed, std::string base_url, size_t cache_bytes)
    : store_(store), guess_allowed_(std::move(guess_allowed)), base_url_(std::move(base_url)),
      cache_bytes_(cache_bytes) {}

uint64_t GameRecords::made() const {
  std::lock_guard lock(mutex_);
  return made_;
}

std::shared_ptr<const GameRecords::Made> GameRecords::find(const std::string& public_id, const std::string& ip,
                                                           Answer& refusal) {
  std::optional<GameHead> head;
  if (public_id.size() <= 32) {
    try {
      head = store_.game_head(public_id);
    } catch (const std::exception& e) {
      refusal = storage_failed(e);
      return nullptr;
    }
  }
  // Unknown ids count like wrong table codes (a game's own id, 48 random
  // bits, always opens).
  if (!head) {
    if (!guess_allowed_(ip, true))
      refusal = error_reply(Error{ErrorCode::RateLimited, Msg::LimitWrongCodes});
    else
      refusal = error_reply(Error{ErrorCode::NotFound, {Msg::NoGame, {{"id", public_id}}}});
    return nullptr;
  }
  // What was made for this version or a later one, with the names now.
  auto current = [&](const Made& m) {
    return m.head.game == head->game && m.head.version >= head->version && m.head.names == head->names;
  };
  std::unique_lock lock(mutex_);
  if (auto it = kept_.find(public_id); it != kept_.end() && current(*it->second.made)) {
    order_.splice(order_.begin(), order_, it->second.order);
    return it->second.made;
  }
  if (auto making = making_.find(public_id); making != making_.end()) {
    // Another request is making it: its record, when current, serves this one.
    auto pending = making->second;
    lock.unlock();
    if (auto made = pending.get(); made && current(*made)) return made;
    lock.lock();
  }
  std::promise<std::shared_ptr<const Made>> promise;
  const bool first = !making_.count(public_id);
  if (first) making_.emplace(public_id, promise.get_future().share());
  lock.unlock();
  std::shared_ptr<const Made> made;
  try {
    const std::optional<TableData> d = store_.load_game(public_id);
    if (d && !d->games.empty()) made = make(*d);
    if (!made) refusal = storage_failed(std::runtime_error("the stored game does not start"));
  } catch (const std::exception& e) {
    refusal = storage_failed(e);
  }
  lock.lock();
  if (made) {
    ++made_;
    keep(public_id, made);
  }
  if (first) {
    making_.erase(public_id);
    promise.set_value(made);
  }
  return made;
}

void GameRecords::keep(const std::string& public_id, std::shared_ptr<const Made> made) {
  if (auto it = kept_.find(public_id); it != kept_.end()) {
    if (it->second.made->head.version > made->head.version && it->second.made->head.game == made->head.game) return;
    bytes_ -= it->second.made->bytes();
    order_.erase(it->second.order);
    kept_.erase(it);
  }
  order_.push_front(public_id);
  bytes_ += made->bytes();
  kept_.emplace(public_id, Kept{std::move(made), order_.begin()});
  while (bytes_ > cache_bytes_ && order_.size() > 1) {
    auto last = kept_.find(order_.back());
    bytes_ -= last->second.made->bytes();
    kept_.erase(last);
    order_.pop_back();
  }
}

std::shared_ptr<const GameRecords::Made> GameRecords::make(const TableData& d) const {
  const TableRecord& party = d.party;
  const GameRecord& rec = d.games.front();
  // The game replayed as a table opened from the store replays it: moves in
  // both notations along the way.
  const Table table = Table::from_record(d);
  if (!table.game()) return nullptr;
  const LiveGame& live = *table.game();
  const Game& game = live.game;
  auto made = std::make_shared<Made>();
  made->head.game = rec.id;
  made->head.version = rec.actions.empty() ? 0 : rec.actions.back().version;
  for (const SeatRecord& s : d.seats) made->head.names.push_back(s.name);

  GameSnapshot& s = made->snapshot;
  s.id = rec.public_id;
  s.variant = party.variant;
  s.white = player_name(d, rec.white_seat);
  s.black = player_name(d, 1 - rec.white_seat);
  s.result = result_string(game.result());
  if (game.over()) s.reason = reason_string(game.reason());
  s.fen = game.position().fen();
  json::array moves;
  for (const std::string& a : game.record())
    if (is_move_action(a)) {
      moves.push_back(json::value(a));
      s.last_move = a;
      ++s.moves;
    }

  made->pgn = write_pgn(game, {{"Event", party.mode == "turn" ? "Turn-based game" : "Casual game"},
                               {"Site", base_url_ + "/g/" + rec.public_id},
                               {"Date", pgn_date(rec.created_at)},
                               {"Round", std::to_string(rec.number)},
                               {"White", s.white},
                               {"Black", s.black}});
  json::object o{{"id", rec.public_id},
                 {"variant", party.variant},
                 {"counting", party.counting},
                 {"number", rec.number},
                 {"white", s.white},
                 {"black", s.black},
                 {"result", s.result},
                 {"startFen", rec.start_fen},
                 {"fen", s.fen},
                 {"turn", game.position().side_to_move() == WHITE ? "w" : "b"},
                 {"check", game.position().in_check()},
                 {"mode", party.mode},
                 {"moves", std::move(moves)},
                 {"san", json::array(live.san.begin(), live.san.end())},
                 {"sanThai", json::array(live.san_thai.begin(), live.san_thai.end())},
                 {"actions", json::array(game.record().begin(), game.record().end())},
                 {"createdAt", rec.created_at},
                 {"lastMoveAt", table.last_activity()},
                 {"pgn", made->pgn}};
  o["reason"] = game.over() ? json::value(s.reason) : json::value(nullptr);
  o["cpu"] = party.cpu_level ? json::value(party.cpu_level) : json::value(nullptr);
  made->json = json::serialize(json::object{{"game", std::move(o)}});
  return made;
}

Answer GameRecords::record(const std::string& public_id, const std::string& ip, bool pgn) {
  Answer refusal;
  const std::shared_ptr<const Made> made = find(public_id, ip, refusal);
  if (!made) return refusal;
  if (pgn) return Answer{Outcome::Ok, made->pgn, "application/x-chess-pgn; charset=utf-8"};
  return Answer{Outcome::Ok, made->json};
}

std::variant<GameSnapshot, Answer> GameRecords::snapshot(const std::string& public_id, const std::string& ip) {
  Answer refusal;
  const std::shared_ptr<const Made> made = find(public_id, ip, refusal);
  if (!made) return refusal;
  return made->snapshot;
}

}  // namespace makruk::server
