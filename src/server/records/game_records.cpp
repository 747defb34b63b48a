// The hub after the game: each game by its own link, as JSON and as PGN.
#include <boost/json.hpp>
#include <ctime>

#include "core/pgn.h"
#include "server/tables/hub.h"
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
std::string player_name(const PartyData& d, int seat) {
  if (seat == 1 && d.party.cpu_level) return "CPU (level " + std::to_string(d.party.cpu_level) + ")";
  for (const SeatRecord& s : d.seats)
    if (s.seat == seat) return s.name;
  return "?";
}

}  // namespace

std::optional<PartyData> Hub::load_public_game(const std::string& public_id, const std::string& ip,
                                                HttpReply& refusal) {
  std::optional<PartyData> d;
  if (public_id.size() <= 32) {
    try {
      d = store_.load_game(public_id);
    } catch (const std::exception& e) {
      refusal = storage_failed(e);
      return std::nullopt;
    }
  }
  // Unknown ids count like wrong table codes (a game's own id, 48 random
  // bits, always opens).
  if (!d || d->games.empty()) {
    if (!code_guess_allowed(ip, true))
      refusal = error_reply(Error{ErrorCode::RateLimited, Msg::LimitWrongCodes});
    else
      refusal = error_reply(Error{ErrorCode::NotFound, {Msg::NoGame, {{"id", public_id}}}});
    return std::nullopt;
  }
  return d;
}

std::variant<GameSnapshot, HttpReply> Hub::game_snapshot(const std::string& public_id, const std::string& ip) {
  HttpReply refusal;
  const std::optional<PartyData> d = load_public_game(public_id, ip, refusal);
  if (!d) return refusal;
  const Party table = Party::from_record(*d);
  if (!table.game()) return storage_failed(std::runtime_error("the stored game does not start"));
  const Game& game = table.game()->game;
  const GameRecord& rec = d->games.front();
  GameSnapshot s;
  s.id = rec.public_id;
  s.variant = d->party.variant;
  s.white = player_name(*d, rec.white_seat);
  s.black = player_name(*d, 1 - rec.white_seat);
  s.result = result_string(game.result());
  if (game.over()) s.reason = reason_string(game.reason());
  s.fen = game.position().fen();
  for (const std::string& a : game.record())
    if (is_move_action(a)) {
      s.last_move = a;
      ++s.moves;
    }
  return s;
}

HttpReply Hub::game_record(const std::string& public_id, const std::string& base_url, const std::string& ip,
                           bool pgn) {
  HttpReply refusal;
  const std::optional<PartyData> d = load_public_game(public_id, ip, refusal);
  if (!d) return refusal;
  const PartyRecord& party = d->party;
  const GameRecord& rec = d->games.front();
  // The game replayed as a table opened from the store replays it: moves in
  // both notations along the way.
  const Party table = Party::from_record(*d);
  if (!table.game()) return storage_failed(std::runtime_error("the stored game does not start"));
  const LiveGame& live = *table.game();
  const Game* game = &live.game;
  json::array moves;
  for (const std::string& a : game->record())
    if (is_move_action(a)) moves.push_back(json::value(a));
  json::array san(live.san.begin(), live.san.end()), thai(live.san_thai.begin(), live.san_thai.end());
  const int64_t last = table.last_activity();
  const std::string white = player_name(*d, rec.white_seat), black = player_name(*d, 1 - rec.white_seat);
  const std::string text = write_pgn(*game, {{"Event", party.mode == "turn" ? "Turn-based game" : "Casual game"},
                                             {"Site", base_url + "/g/" + rec.public_id},
                                             {"Date", pgn_date(rec.created_at)},
                                             {"Round", std::to_string(rec.number)},
                                             {"White", white},
                                             {"Black", black}});
  if (pgn) return HttpReply{200, text, "application/x-chess-pgn; charset=utf-8"};
  json::object o{{"id", rec.public_id},
                 {"variant", party.variant},
                 {"counting", party.counting},
                 {"number", rec.number},
                 {"white", white},
                 {"black", black},
                 {"result", result_string(game->result())},
                 {"startFen", rec.start_fen},
                 {"fen", game->position().fen()},
                 {"turn", game->position().side_to_move() == WHITE ? "w" : "b"},
                 {"check", game->position().in_check()},
                 {"mode", party.mode},
                 {"moves", std::move(moves)},
                 {"san", std::move(san)},
                 {"sanThai", std::move(thai)},
                 {"actions", json::array(game->record().begin(), game->record().end())},
                 {"createdAt", rec.created_at},
                 {"lastMoveAt", last},
                 {"pgn", text}};
  o["reason"] = game->over() ? json::value(reason_string(game->reason())) : json::value(nullptr);
  o["cpu"] = party.cpu_level ? json::value(party.cpu_level) : json::value(nullptr);
  return reply(200, json::object{{"game", std::move(o)}});
}

}  // namespace makruk::server
