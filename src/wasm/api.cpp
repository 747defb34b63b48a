// The rules core and the engine for the browser (WebAssembly, built by
// scripts/build-wasm.sh) behind a small C interface of text in, JSON out, so
// that the web client and the server can never disagree on a rule. The same
// file builds natively (MAKRUK_API_MAIN) into a program that answers the same
// calls line by line, which the tests compare with the WebAssembly build.
//
//   mk_game(variant, counting, fen, actions, playOn) the game after the actions (and what each side may do)
//   mk_search(variant, fen, actions, depth, ms, lines, playOn) the engine's best moves there
//   mk_pgn(text, variant, index)                a PGN, move list or FEN read (pgn.h); a collection's games
//   mk_positions(variant, counting, fen, actions, playOn) the FEN before the first move and after each
//   mk_typed(variant, fen, text)                 a move as a player typed it (notation.h)
//   mk_level_move(variant, counting, fen, actions, level, seed) what the CPU at a level does there
//   mk_network(variant, bytes, size)             the learned evaluation mk_level_move and mk_search play with
//
// variant: "makruk" or "ouk"; counting: "auto" or "declare"; fen: empty for
// the usual start; actions: space-separated, as the server records them
// ("e3e4 count:b d6d5"); playOn: 1 where a record read for analysis goes on past
// the end our rules give the game (Game::play_on), else 0. Each answer is one JSON object, valid until the next
// call: {"ok":false,"error":"…","msg":"…","args":{…}} for bad input (the error
// in English, and as a message id with its parameters: core/messages.h).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "core/count.h"
#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "core/pgn.h"
#include "engine/levels.h"
#include "engine/nnue.h"
#include "engine/search.h"

using namespace makruk;

namespace {

std::string answer;  // the last answer (the caller reads it before the next call)

void quote(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  out += '"';
}

// A refusal: `error` in English (or as given), and the message.
const char* fail(const Message& why, std::string_view error = {}) {
  answer = "{\"ok\":false,\"error\":";
  quote(answer, error.data() ? error : std::string_view(why.english()));
  std::string m = why.json();  // {"msg":…,"args":…}
  answer += "," + m.substr(1);
  return answer.c_str();
}

// The game from the arguments, or nothing (and *error). With `playOn`, a move after the
// end our rules give the game plays on past it (Game::play_on: a record read for analysis).
std::optional<Game> replay(std::string_view variant, std::string_view counting, std::string_view fen,
                           std::string_view actions, Message* error, bool playOn = false) {
  if (variant != "makruk" && variant != "ouk") {
    *error = Msg::VariantBad;
    return std::nullopt;
  }
  if (counting != "auto" && counting != "declare") {
    *error = Msg::CountingBad;
    return std::nullopt;
  }
  auto game = Game::create(variant == "ouk" ? Variant::Ouk : Variant::Makruk,
                           counting == "declare" ? Counting::Declaration : Counting::Automatic, fen, error);
  if (!game) return std::nullopt;
  int n = 0;
  for (size_t i = 0; i < actions.size();) {
    while (i < actions.size() && actions[i] == ' ') ++i;
    size_t j = i;
    while (j < actions.size() && actions[j] != ' ') ++j;
    if (j > i) {
      ++n;
      const std::string_view action = actions.substr(i, j - i);
      if (playOn && game->over() && is_move_action(action)) game->play_on();
      if (!game->apply(action, error)) {
        *error = Message(Msg::ActionFailed, {{"n", n}, {"action", action}, {"reason", *error}});
        return std::nullopt;
      }
    }
    i = j;
  }
  return game;
}

// The CPU opponent's engine (mk_level_move) and the analysis's (mk_search): each kept for
// its hash table, both with the learned evaluation once mk_network has given it (the
// hand-written one until then), as the server's CPU players have it built in.
engine::Engine& level_engine() {
  static engine::Engine* eng = new engine::Engine();
  return *eng;
}
engine::Engine& search_engine() {
  static engine::Engine* eng = new engine::Engine();
  return *eng;
}
engine::nnue::Networks networks;

}  // namespace

extern "C" {

const char* mk_game(const char* variant, const char* counting, const char* fen, const char* actions, int playOn) {
  Message error;
  auto game = replay(variant, counting, fen, actions, &error, playOn != 0);
  if (!game) return fail(error);
  // The moves in both notations, from the start.
  std::string san = "[", thai = "[";
  auto start = Game::create(game->variant(), game->counting(), game->start_fen(), &error);
  Position pos = start->position();
  for (const std::string& a : game->record()) {
    if (!is_move_action(a)) continue;
    Move m = parse_move(pos, a);
    if (san.size() > 1) san += ',', thai += ',';
    quote(san, move_to_san(pos, m));
    quote(thai, move_to_thai_san(pos, m));
    pos.do_move(m);
  }
  san += ']';
  thai += ']';
  const Position& now = game->position();
  answer = "{\"ok\":true,\"fen\":";
  quote(answer, now.fen());
  answer += ",\"turn\":\"";
  answer += now.side_to_move() == WHITE ? 'w' : 'b';
  answer += "\",\"check\":";
  answer += now.in_check() ? "true" : "false";
  answer += ",\"legal\":[";
  bool first = true;
  for (Move m : game->legal_moves()) {
    if (!first) answer += ',';
    first = false;
    quote(answer, move_to_string(m));
  }
  answer += "],\"san\":" + san + ",\"sanThai\":" + thai + ",\"result\":";
  quote(answer, result_string(game->result()));
  answer += ",\"reason\":";
  if (game->over()) quote(answer, reason_string(game->reason()));
  else answer += "null";
  const Count& c = now.count();
  answer += ",\"count\":";
  if (c.running()) {
    answer += "{\"side\":\"";
    answer += c.side == WHITE ? 'w' : 'b';
    answer += "\",\"kind\":";
    quote(answer, count_kind_string(c.kind));
    answer += ",\"n\":" + std::to_string(c.n) + ",\"limit\":" + std::to_string(c.limit) + "}";
  } else {
    answer += "null";
  }
  answer += ",\"repetitions\":" + std::to_string(game->repetitions());
  // Where our rules ended a game that went on past it (playOn).
  answer += ",\"ended\":";
  if (const auto& e = game->ended()) {
    answer += "{\"ply\":" + std::to_string(e->ply) + ",\"result\":";
    quote(answer, result_string(e->result));
    answer += ",\"reason\":";
    quote(answer, reason_string(e->reason));
    answer += "}";
  } else {
    answer += "null";
  }
  // What each side may do besides moving, as the server's state says it (game_now in
  // src/server/tables/hub.cpp): start a count, stop its own, claim a draw; and the offer standing.
  const bool declare = !game->over() && game->counting() == Counting::Declaration;
  auto flag = [](bool b) { return b ? "true" : "false"; };
  auto can_count = [&](Color side) { return declare && !c.running() && qualifying_count(now, side).running(); };
  auto can_stop = [&](Color side) { return declare && c.running() && c.side == side; };
  answer += std::string(",\"canCount\":{\"w\":") + flag(can_count(WHITE)) + ",\"b\":" + flag(can_count(BLACK)) + "}";
  answer += std::string(",\"canStop\":{\"w\":") + flag(can_stop(WHITE)) + ",\"b\":" + flag(can_stop(BLACK)) + "}";
  answer += std::string(",\"canClaim\":") + flag(!game->over() && game->variant() == Variant::Ouk && game->repetitions() >= 3);
  answer += ",\"drawOffer\":";
  answer += game->draw_offer() ? (*game->draw_offer() == WHITE ? "\"w\"" : "\"b\"") : "null";
  answer += "}";
  return answer.c_str();
}

// The best `lines` moves (1 to 8), each with its score and line, best first; the
// first is also given as best, score and pv.
const char* mk_search(const char* variant, const char* fen, const char* actions, int depth, int ms, int lines,
                      int playOn) {
  Message error;
  auto game = replay(variant, "auto", fen, actions, &error, playOn != 0);
  if (!game) return fail(error);
  if (count_legal(game->position()) == 0) return fail(Msg::NoLegalMove);
  engine::Engine* eng = &search_engine();
  engine::Limits limits;
  limits.depth = depth > 0 ? depth : 0;
  limits.movetime = ms > 0 ? ms : 0;
  if (!limits.depth && !limits.movetime) limits.depth = 8;
  limits.multipv = lines < 1 ? 1 : lines > 8 ? 8 : lines;
  engine::SearchResult r = eng->search(game->position(), limits);
  auto moves = [](const std::vector<Move>& pv) {
    std::string out = "[";
    for (size_t i = 0; i < pv.size(); ++i) {
      if (i) out += ',';
      quote(out, move_to_string(pv[i]));
    }
    return out + "]";
  };
  answer = "{\"ok\":true,\"best\":";
  quote(answer, move_to_string(r.best));
  answer += ",\"score\":";
  quote(answer, engine::score_to_uci(r.score));
  answer += ",\"depth\":" + std::to_string(r.depth) + ",\"nodes\":" + std::to_string(r.nodes) +
            ",\"pv\":" + moves(r.pv) + ",\"lines\":[";
  for (size_t i = 0; i < r.lines.size(); ++i) {
    if (i) answer += ',';
    answer += "{\"score\":";
    quote(answer, engine::score_to_uci(r.lines[i].score));
    answer += ",\"pv\":" + moves(r.lines[i].pv) + "}";
  }
  answer += "]}";
  return answer.c_str();
}

const char* mk_positions(const char* variant, const char* counting, const char* fen, const char* actions,
                         int playOn) {
  Message error;
  auto game = replay(variant, counting, fen, actions, &error, playOn != 0);
  if (!game) return fail(error);
  auto start = Game::create(game->variant(), game->counting(), game->start_fen(), &error);
  Position pos = start->position();
  answer = "{\"ok\":true,\"fens\":[";
  quote(answer, pos.fen());
  for (const std::string& a : game->record()) {
    if (!is_move_action(a)) continue;
    pos.do_move(parse_move(pos, a));
    answer += ',';
    quote(answer, pos.fen());
  }
  answer += "]}";
  return answer.c_str();
}

// {"ok":true,"move":"e3e4"}, or {"ok":false,"error":"empty"|"bad"|"illegal"|"ambiguous"} with the
// message (typed.*) ("error" names the position when the FEN is refused).
const char* mk_typed(const char* variant, const char* fen, const char* text) {
  Message error;
  auto game = replay(variant, "auto", fen, "", &error);
  if (!game) return fail(error);
  TypedError why;
  const Move m = parse_typed_move(game->position(), text, &why);
  if (m.is_none()) return fail(typed_error_message(why, text), typed_error_string(why));
  answer = "{\"ok\":true,\"move\":";
  quote(answer, move_to_string(m));
  answer += "}";
  return answer.c_str();
}

// What the CPU at `level` (1 to 8, engine/levels.h) does in the game after the actions, as
// the server's CPU player does it (engine::level_actions, the same steps for both):
// a draw offered to it answered first (accepted when clearly worse, or no better than
// level once a count runs), then, in declaration mode, a count it qualifies for started or
// its own count stopped when it can win, then its move, chosen by play_at_level within
// the server's time (1 s, 1.5 s at level 8). The CPU is the side a draw is offered to, else
// the side to move. `seed` makes the lower levels' choice reproducible.
// {"ok":true,"actions":["count:b","h8a8"]}, or {"ok":false,"error":…} when the game is over.
const char* mk_level_move(const char* variant, const char* counting, const char* fen, const char* actions, int level,
                          double seed) {
  Message error;
  auto game = replay(variant, counting, fen, actions, &error);
  if (!game) return fail(error);
  if (game->over()) return fail(Msg::GameFinished);
  engine::Engine& eng = level_engine();
  std::mt19937_64 rng{static_cast<uint64_t>(seed < 0 ? -seed : seed)};
  level = std::clamp(level, engine::MIN_LEVEL, engine::MAX_LEVEL);
  const bool answer_offer = game->draw_offer().has_value();
  const Color cpu = answer_offer ? ~*game->draw_offer() : game->position().side_to_move();
  const std::vector<std::string> out = engine::level_actions(eng, game->position(), level, 1500, answer_offer, cpu, rng);
  answer = "{\"ok\":true,\"actions\":[";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) answer += ',';
    quote(answer, out[i]);
  }
  answer += "]}";
  return answer.c_str();
}

// The learned evaluation for one variant's CPU moves and searches (a network file,
// src/engine/nets/): {"ok":true}, or {"ok":false,"error":…} (the evaluation stays as it was).
const char* mk_network(const char* variant, const unsigned char* bytes, int size) {
  std::string error;
  std::shared_ptr<const engine::nnue::Network> net =
      engine::nnue::load(std::string_view(reinterpret_cast<const char*>(bytes), size < 0 ? 0 : size), &error);
  if (!net) return fail(Message::detail(error));
  if (std::string_view(variant) == "ouk") networks.ouk = net;
  else networks.makruk = net;
  level_engine().set_networks(networks);
  search_engine().set_networks(networks);
  answer = "{\"ok\":true}";
  return answer.c_str();
}

// The game `index` (from 0) of the text; when the text holds several, "games" lists each
// (read or refused, its tags and length) so that one can be picked, also when the one asked
// for is refused.
const char* mk_pgn(const char* text, const char* variant, int index) {
  const Variant fallback = std::string_view(variant) == "ouk" ? Variant::Ouk : Variant::Makruk;
  const std::vector<std::string_view> texts = split_pgn_games(text);
  const size_t pick = index < 0 ? 0 : std::min(size_t(index), texts.size() - 1);
  auto tags = [](std::string& out, const PgnTags& t) {
    out += "{";
    for (size_t i = 0; i < t.size(); ++i) {
      if (i) out += ',';
      quote(out, t[i].first);
      out += ':';
      quote(out, t[i].second);
    }
    out += "}";
  };
  std::string games;
  Message error;
  std::optional<PgnGame> g;  // the game picked, read once (in the list when there is one)
  if (texts.size() > 1) {
    games = ",\"index\":" + std::to_string(pick) + ",\"games\":[";
    for (size_t i = 0; i < texts.size(); ++i) {
      Message why;
      auto one = read_pgn(texts[i], fallback, &why);
      if (i) games += ',';
      games += one ? "{\"ok\":true" : "{\"ok\":false";
      if (one) {
        games += ",\"plies\":" + std::to_string(one->moves.size()) + ",\"result\":";
        quote(games, one->result);
        games += ",\"tags\":";
        tags(games, one->tags);
      } else {
        games += ",\"error\":";
        quote(games, why.english());
      }
      games += "}";
      if (i == pick) g = std::move(one), error = std::move(why);
    }
    games += "]";
  } else {
    g = read_pgn(texts[pick], fallback, &error);
  }
  if (!g) {
    fail(error);
    answer.pop_back();  // the closing brace: the list follows
    answer += games + "}";
    return answer.c_str();
  }
  answer = "{\"ok\":true,\"variant\":";
  quote(answer, g->variant == Variant::Ouk ? "ouk" : "makruk");
  answer += ",\"fen\":";
  quote(answer, g->fen);
  answer += ",\"moves\":[";
  for (size_t i = 0; i < g->moves.size(); ++i) {
    if (i) answer += ',';
    quote(answer, g->moves[i]);
  }
  answer += "],\"result\":";
  quote(answer, g->result);
  answer += ",\"tags\":";
  tags(answer, g->tags);
  answer += games + "}";
  return answer.c_str();
}

}  // extern "C"

#ifdef MAKRUK_API_MAIN
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>

// One call per line, fields separated by tabs: "game\tVARIANT\tCOUNTING\tFEN\tACTIONS[\tPLAYON]"
// (or "positions\t…" with the same fields), "typed\tVARIANT\tFEN\tTEXT",
// "search\tVARIANT\tFEN\tACTIONS\tDEPTH[\tLINES]", "pgn\tTEXT\tVARIANT[\tINDEX]" (TEXT with "\n" for
// new lines), "level\tVARIANT\tCOUNTING\tFEN\tACTIONS\tLEVEL\tSEED" or "network\tVARIANT\tFILE";
// one JSON answer per line. For
// searches the node count and time go to standard error.
int main() {
  for (std::string line; std::getline(std::cin, line);) {
    std::vector<std::string> f;
    for (size_t i = 0;; ++i) {
      size_t j = line.find('\t', i);
      f.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
      if (j == std::string::npos) break;
      i = j;
    }
    const int last = std::atoi(f.back().c_str());  // the optional last field: play on, or the game's index
    if (f[0] == "game" && (f.size() == 5 || f.size() == 6)) {
      std::cout << mk_game(f[1].c_str(), f[2].c_str(), f[3].c_str(), f[4].c_str(), f.size() == 6 ? last : 0) << "\n";
    } else if (f[0] == "typed" && f.size() == 4) {
      std::cout << mk_typed(f[1].c_str(), f[2].c_str(), f[3].c_str()) << "\n";
    } else if (f[0] == "positions" && (f.size() == 5 || f.size() == 6)) {
      std::cout << mk_positions(f[1].c_str(), f[2].c_str(), f[3].c_str(), f[4].c_str(), f.size() == 6 ? last : 0)
                << "\n";
    } else if (f[0] == "pgn" && (f.size() == 3 || f.size() == 4)) {
      std::string text = f[1];  // "\n" stands for a new line
      for (size_t k; (k = text.find("\\n")) != std::string::npos;) text.replace(k, 2, "\n");
      std::cout << mk_pgn(text.c_str(), f[2].c_str(), f.size() == 4 ? last : 0) << "\n";
    } else if (f[0] == "level" && f.size() == 7) {
      std::cout << mk_level_move(f[1].c_str(), f[2].c_str(), f[3].c_str(), f[4].c_str(), std::atoi(f[5].c_str()),
                                 std::atof(f[6].c_str()))
                << "\n";
    } else if (f[0] == "network" && f.size() == 3) {
      std::ifstream in(f[2], std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::cout << mk_network(f[1].c_str(), reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()))
                << "\n";
    } else if (f[0] == "search" && (f.size() == 5 || f.size() == 6)) {
      auto t0 = std::chrono::steady_clock::now();
      const int lines = f.size() == 6 ? std::atoi(f[5].c_str()) : 1;
      std::cout << mk_search(f[1].c_str(), f[2].c_str(), f[3].c_str(), std::atoi(f[4].c_str()), 0, lines, 0) << "\n";
      std::cerr << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() << " ms\n";
    } else {
      std::cout << "{\"ok\":false,\"error\":\"unknown call\"}\n";
    }
  }
  return 0;
}
#endif
