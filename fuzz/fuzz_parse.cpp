// libFuzzer target for every text parser of the rules core: the input is read
// as a FEN (both variants), as coordinate moves and SAN against the start
// positions and the positions they lead to, and as a list of game actions
// (both counting modes), and as PGN; and as the learned evaluation's network
// file, whole (the input repeated to its size after a valid header) and as it
// comes. Nothing may crash, and the invariants below must hold.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "core/pgn.h"
#include "engine/nnue.h"

using namespace makruk;

namespace {

#define CHECK(cond)                 \
  do {                              \
    if (!(cond)) __builtin_trap();  \
  } while (0)

constexpr size_t MAX_TOKENS = 300;

std::vector<std::string_view> split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size() && out.size() < MAX_TOKENS;) {
    while (i < s.size() && seps.find(s[i]) != std::string_view::npos) ++i;
    size_t j = i;
    while (j < s.size() && seps.find(s[j]) == std::string_view::npos) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Every legal move here round-trips through both notations, and doing and
// undoing it restores the position exactly.
void check_moves(Position& pos) {
  const std::string fen = pos.fen();
  const uint64_t key = pos.key();
  const Bitboard checkers = pos.checkers();
  const Count count = pos.count();
  CHECK(pos.is_consistent());
  MoveList list;
  generate_legal(pos, list);
  CHECK(list.size == count_legal(pos));
  for (Move m : list) {
    CHECK(is_legal(pos, m));
    std::string error;
    CHECK(parse_move(pos, move_to_string(m), &error) == m);
    CHECK(parse_san(pos, move_to_san(pos, m), &error) == m);
    CHECK(!move_to_thai_san(pos, m).empty());
    pos.do_move(m);
    CHECK(pos.key() == pos.compute_key());
    CHECK(pos.is_consistent());
    pos.undo_move();
    CHECK(pos.fen() == fen && pos.key() == key && pos.checkers() == checkers && pos.count() == count);
  }
}

void fuzz_fen(std::string_view text) {
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    for (Counting mode : {Counting::Automatic, Counting::Declaration}) {
      Position pos;
      const std::string before = pos.fen();
      const uint64_t beforeKey = pos.key();
      std::string error;
      if (!pos.set(text, v, mode, &error)) {
        // Refused: an explanation, and the position unchanged.
        CHECK(!error.empty());
        CHECK(pos.fen() == before && pos.key() == beforeKey && pos.variant() == Variant::Makruk);
        continue;
      }
      CHECK(pos.is_consistent());
      CHECK(pos.key() == pos.compute_key());
      // What fen() writes reads back to the same position.
      const std::string written = pos.fen();
      Position again;
      error.clear();
      CHECK(again.set(written, v, mode, &error));
      CHECK(again.fen() == written);
      CHECK(again.key() == pos.key());
      CHECK(again.count() == pos.count());
      CHECK(again.game_ply() == pos.game_ply());
      if (mode == Counting::Automatic) check_moves(pos);
      // A game can start from it too.
      error.clear();
      auto game = Game::create(v, mode, text, &error);
      CHECK(game.has_value());
      CHECK(game->position().fen() == written);
      if (game->over()) CHECK(game->legal_moves().size == 0);
    }
  }
}

// Reads each token as a coordinate move, then as SAN, and plays it when legal.
void fuzz_moves(std::string_view text, Variant v) {
  Position pos;
  std::string error;
  CHECK(pos.set(Position::start_fen(v), v, Counting::Automatic, &error));
  int played = 0;
  for (std::string_view tok : split(text, " \t\r\n,;.")) {
    const std::string fen = pos.fen();
    // What a player types: a legal move or a reason, never a crash.
    TypedError why;
    const Move typed = parse_typed_move(pos, tok, &why);
    CHECK(typed.is_none() ? why != TypedError::None : is_legal(pos, typed));
    Move m = parse_move(pos, tok, &error);
    if (m.is_none()) {
      CHECK(!error.empty());
      error.clear();
      m = parse_san(pos, tok, &error);
      if (m.is_none()) {
        CHECK(!error.empty());
        error.clear();
        continue;
      }
      // Whatever SAN names is legal, and its own SAN reads back to it.
      CHECK(is_legal(pos, m));
      CHECK(parse_san(pos, move_to_san(pos, m)) == m);
    } else {
      CHECK(is_legal(pos, m));
      std::string canonical = move_to_string(m);
      CHECK(tok == canonical || (m.is_promotion() && tok == canonical.substr(0, 4)));
    }
    CHECK(pos.fen() == fen);  // parsing changes nothing
    pos.do_move(m);
    CHECK(pos.is_consistent());
    if (++played % 8 == 0) check_moves(pos);
  }
  check_moves(pos);
  while (pos.history_size() > 1) pos.undo_move();
  CHECK(pos.fen() == Position::start_fen(v));
}

struct GameState {
  std::string fen;
  size_t records;
  Result result;
  Reason reason;
  Count count;
  int repetitions;
  int plies;

  explicit GameState(const Game& g)
      : fen(g.position().fen()), records(g.record().size()), result(g.result()), reason(g.reason()),
        count(g.position().count()), repetitions(g.repetitions()), plies(g.plies()) {}
  bool operator==(const GameState&) const = default;
};

void fuzz_actions(std::string_view startFen, std::string_view actions) {
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    for (Counting mode : {Counting::Automatic, Counting::Declaration}) {
      std::string error;
      auto game = Game::create(v, mode, startFen, &error);
      if (!game) {
        CHECK(!error.empty());
        continue;
      }
      for (std::string_view action : split(actions, " \t\r\n")) {
        const GameState before(*game);
        error.clear();
        bool wasOver = game->over();
        if (game->apply(action, &error)) {
          CHECK(!wasOver);
          CHECK(game->record().size() == before.records + 1);
          // The record spells the action canonically; a move's spelling reads back.
          const std::string& last = game->record().back();
          CHECK(!last.empty());
          CHECK(game->plies() == before.plies || game->plies() == before.plies + 1);
          CHECK(game->position().is_consistent());
          if (game->over()) CHECK(game->legal_moves().size == 0);
          else CHECK(game->legal_moves().size > 0);
        } else {
          // A refused action: an error, and nothing changed.
          CHECK(!error.empty());
          CHECK(GameState(*game) == before);
        }
      }
      // Replaying the record from the start gives the same game.
      auto replay = Game::create(v, mode, game->start_fen(), &error);
      CHECK(replay.has_value());
      for (const std::string& action : game->record()) CHECK(replay->apply(action, &error));
      CHECK(GameState(*replay) == GameState(*game));
    }
  }
}

// Read as PGN: refused with a reason, or a game whose moves are legal in turn
// and whose own PGN reads back to the same moves.
void fuzz_pgn(std::string_view text) {
  // A collection's games: the text cut into pieces, in order, nothing lost.
  std::string joined;
  for (std::string_view one : split_pgn_games(text)) joined += one;
  CHECK(joined == text);
  std::string error;
  auto g = read_pgn(text, Variant::Makruk, &error);
  if (!g) {
    CHECK(!error.empty());
    return;
  }
  auto game = Game::create(g->variant, Counting::Automatic, g->fen, &error);
  CHECK(game.has_value());
  Position pos = game->position();
  for (const std::string& m : g->moves) {
    Move move = parse_move(pos, m, &error);
    CHECK(!move.is_none());
    pos.do_move(move);
    // A record that goes on past our rules' end plays on (the analysis board's reading).
    if (game->over()) CHECK(game->play_on());
    CHECK(game->apply(m, &error));
  }
  CHECK(game->position().fen() == pos.fen());
  if (game->over() || game->ended()) return;  // ended by our rules before the moves did: nothing to write
  auto back = read_pgn(write_pgn(*game, {{"White", "a \"b\" \\ c"}}), Variant::Ouk, &error);
  CHECK(back.has_value());
  CHECK(back->variant == g->variant && back->moves == g->moves);
}

// A network file: the input as it is (refused unless it is one), then a valid
// header followed by the input repeated to the weights' size. A network that
// loads evaluates positions without overflow (UBSan) and incremental updates
// agree with a refresh.
void fuzz_network(std::string_view text) {
  namespace nnue = engine::nnue;
  std::string error;
  auto as_is = nnue::load(text, &error);
  CHECK(as_is || !error.empty());  // refused with a reason
  if (text.empty()) return;
  static const std::string header = [] {
    std::string full = nnue::save(nnue::Network{});
    return full.substr(0, 4 + 7 * 4);
  }();
  static const size_t total = nnue::save(nnue::Network{}).size();
  std::string bytes = header;
  bytes[24] = char(text[0] & 7);  // the flags: residual, variants
  while (bytes.size() < total) bytes.append(text.substr(0, total - bytes.size()));
  auto net = nnue::load(bytes, &error);
  if (!net) return;  // weights beyond the bounds the file may hold
  Position pos;
  CHECK(pos.set(Position::start_fen(Variant::Ouk), Variant::Ouk, Counting::Automatic, &error));
  nnue::Accumulator acc, next, fresh;
  nnue::refresh(*net, pos, acc);
  (void)nnue::evaluate(*net, acc, pos.side_to_move(), nnue::bucket_of(pos));
  MoveList list;
  generate_legal(pos, list);
  pos.do_move(list.moves[uint8_t(text[0]) % list.size]);
  nnue::update(*net, acc, nnue::last_move_delta(pos), next);
  nnue::refresh(*net, pos, fresh);
  CHECK(std::memcmp(&next, &fresh, sizeof next) == 0);
  (void)nnue::evaluate(*net, next, pos.side_to_move(), nnue::bucket_of(pos));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  // The whole input, and each line, as a FEN.
  fuzz_fen(text);
  std::vector<std::string_view> lines = split(text, "\n");
  for (size_t i = 0; i < lines.size() && i < 4; ++i)
    if (lines[i] != text) fuzz_fen(lines[i]);

  // Move strings and SAN, in both variants.
  fuzz_moves(text, Variant::Makruk);
  fuzz_moves(text, Variant::Ouk);
  fuzz_pgn(text);

  // Game actions from the start position, and from the first line read as a
  // FEN with the remaining lines as actions.
  fuzz_actions("", text);
  if (lines.size() >= 2) {
    std::string_view rest = text.substr(lines[1].data() - text.data());
    fuzz_actions(lines[0], rest);
  }
  fuzz_network(text);
  return 0;
}
