// Endgame tables: distances to mate checked by hand and against the move
// generator, the count's arithmetic in the search, and whole endgames played
// by the engine against itself under the count.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include <unistd.h>

#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "engine/egtb.h"
#include "engine/search.h"

using namespace makruk;
using namespace makruk::engine;

namespace {

Position position(const std::string& fen, Variant v = Variant::Makruk,
                  Counting counting = Counting::Automatic) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, counting, &error)) << fen << ": " << error;
  return pos;
}

DtmProbe probe(const std::string& fen, Variant v = Variant::Makruk) {
  DtmProbe p;
  EXPECT_TRUE(probe_dtm(position(fen, v), p)) << fen;
  return p;
}

Value search_depth(Engine& engine, const Position& pos, int depth) {
  Limits limits;
  limits.depth = depth;
  return engine.search(pos, limits).score;
}

// The engine plays both sides from `fen` (automatic counting) until the game ends.
Game play_out(const std::string& fen, Variant v, int depth = 3) {
  std::string error;
  auto game = Game::create(v, Counting::Automatic, fen, &error);
  EXPECT_TRUE(game) << fen << ": " << error;
  Engine engine;
  Limits limits;
  limits.depth = depth;
  for (int ply = 0; ply < 300 && !game->over(); ++ply) {
    SearchResult r = engine.search(game->position(), limits);
    EXPECT_TRUE(game->play(r.best, &error)) << game->position().fen() << ": " << error;
  }
  EXPECT_TRUE(game->over()) << fen;
  return *game;
}

// The search does not wait for a two-piece table (it builds it in the
// background); the tests build theirs first.
void build(const char* material) {
  EgtbStats s;
  ASSERT_TRUE(egtb_stats(material, s)) << material;
}

// Whether the table's mate comes before the count runs out, for a position
// with its fresh count (docs/rules.md §5).
bool mates_within_count(const Position& pos) {
  DtmProbe p;
  if (!probe_dtm(pos, p) || p.wdl == Wdl::Draw) return false;
  const Count& c = pos.count();
  return p.plies / 2 <= c.limit - c.n;
}

// A random legal placement of `hunter` letters (e.g. "SS") with the side to move.
std::string random_fen(std::mt19937_64& rng, const std::string& hunter, bool black_hunts,
                       bool hunter_to_move) {
  char board[64] = {};
  std::string letters = "Kk" + hunter;
  for (char& c : letters) {
    if (black_hunts) c = char(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(c) : std::toupper(c));
    Square s;
    do s = Square(rng() % 64);
    while (board[s]);
    board[s] = c;
  }
  std::string fen;
  for (int r = 7; r >= 0; --r) {
    int empty = 0;
    for (int f = 0; f < 8; ++f) {
      char c = board[make_square(f, r)];
      if (!c) {
        ++empty;
        continue;
      }
      if (empty) fen += char('0' + empty), empty = 0;
      fen += c;
    }
    if (empty) fen += char('0' + empty);
    if (r) fen += '/';
  }
  const bool white_to_move = hunter_to_move != black_hunts;
  return fen + (white_to_move ? " w - - 0 1" : " b - - 0 1");
}

// Negamax form of a probe: win in p plies = 1000 - p, loss in p = -(1000 - p), draw 0.
int score_of(const DtmProbe& p) {
  return p.wdl == Wdl::Win ? 1000 - p.plies : p.wdl == Wdl::Loss ? -(1000 - p.plies) : 0;
}

}  // namespace

TEST(Egtb, TableFigures) {
  struct Expect {
    const char* material;
    int max_plies;  // longest win, hunter to move; -1: not checked
  };
  // K+R vs K: 16 moves at most, as in chess; K+2R vs K: 7 moves.
  for (Expect e : {Expect{"R", 31}, Expect{"RR", 13}, Expect{"N", 0}, Expect{"M", 0}, Expect{"S", -1}}) {
    EgtbStats s;
    ASSERT_TRUE(egtb_stats(e.material, s));
    std::printf("%-5s %6.3f s  %9zu bytes (%9zu while built)  longest %3d plies  %zu of %zu won\n",
                s.name.c_str(), s.seconds, s.bytes, s.peak_bytes, s.max_plies, s.wins, s.legal);
    if (e.max_plies >= 0) {
      EXPECT_EQ(s.max_plies, e.max_plies) << s.name;
    }
  }
  EgtbStats knight, met, khon;
  egtb_stats("N", knight);
  egtb_stats("M", met);
  egtb_stats("S", khon);
  EXPECT_EQ(knight.wins, 0u);  // a lone knight or met can never mate
  EXPECT_EQ(met.wins, 0u);
  // A lone khon mates only a king already caught in a corner.
  EXPECT_GT(khon.wins, 0u);
  EXPECT_LT(khon.wins, khon.legal / 1000);
  EgtbStats bad;
  EXPECT_FALSE(egtb_stats("RRRR", bad));
  EXPECT_FALSE(egtb_stats("P", bad));
}

TEST(Egtb, HandCheckedDistances) {
  // Ra8 mates at once; after it Black is mated.
  EXPECT_EQ(probe("3k4/8/3K4/8/8/8/8/R7 w - - 0 1").wdl, Wdl::Win);
  EXPECT_EQ(probe("3k4/8/3K4/8/8/8/8/R7 w - - 0 1").plies, 1);
  EXPECT_EQ(probe("R2k4/8/3K4/8/8/8/8/8 b - - 0 1").wdl, Wdl::Loss);
  EXPECT_EQ(probe("R2k4/8/3K4/8/8/8/8/8 b - - 0 1").plies, 0);
  // Mirrored left to right, and colours swapped with the board turned over.
  EXPECT_EQ(probe("4k3/8/4K3/8/8/8/8/7R w - - 0 1").plies, 1);
  EXPECT_EQ(probe("r7/8/8/8/8/3k4/8/3K4 b - - 0 1").wdl, Wdl::Win);
  EXPECT_EQ(probe("r7/8/8/8/8/3k4/8/3K4 b - - 0 1").plies, 1);
  // Two rooks: no mate in one (the king steps to f7 or h7), Rb7 then Ra8 mates.
  EXPECT_EQ(probe("6k1/8/8/8/8/8/R7/1R4K1 w - - 0 1").plies, 3);
  EXPECT_EQ(probe("1r4k1/r7/8/8/8/8/8/6K1 b - - 0 1").plies, 3);
  // Black to move between the two rooks' rungs is mated after two plies.
  EXPECT_EQ(probe("4k3/R7/1R6/8/8/8/8/6K1 b - - 0 1").wdl, Wdl::Loss);
  EXPECT_EQ(probe("4k3/R7/1R6/8/8/8/8/6K1 b - - 0 1").plies, 2);
  // K+R vs K with the rook hanging and Black to move: Kxc3 draws.
  EXPECT_EQ(probe("8/8/8/8/3k4/2R5/8/7K b - - 0 1").wdl, Wdl::Draw);
  // A khon on b7 guarded by the king mates a king in the corner; a White khon
  // below the king does not (it steps forward only).
  EXPECT_EQ(probe("k7/1S6/1K6/8/8/8/8/8 b - - 0 1").plies, 0);
  EXPECT_EQ(probe("k7/8/1KS5/8/8/8/8/8 w - - 0 1").plies, 1);   // Sc6-b7
  EXPECT_EQ(probe("8/8/8/8/8/1ks5/8/K7 b - - 0 1").plies, 1);   // the same, Black hunting
  // A promoted pawn is probed as a met: the same value either way.
  DtmProbe met = probe("8/8/8/3k4/8/2SM4/3K4/8 w - - 0 1");
  DtmProbe promoted = probe("8/8/8/3k4/8/2SM~4/3K4/8 w - - 0 1");
  EXPECT_EQ(met.wdl, Wdl::Win);
  EXPECT_EQ(met.plies, promoted.plies);

  int plies;
  EXPECT_TRUE(probe_dtm(position("4k3/R7/1R6/8/8/8/8/6K1 b - - 0 1"), plies));
  EXPECT_EQ(plies, -2);
  // Not covered: pawns, four pieces, material on both sides, Ouk first-move rights.
  for (const char* fen : {"4k3/8/8/8/8/2P5/8/R2K4 w - - 0 1", "4k3/8/8/8/8/2S5/8/RNMK4 w - - 0 1",
                          "4k3/8/8/8/8/2s5/8/R2K4 w - - 0 1"})
    EXPECT_FALSE(egtb_covers(position(fen))) << fen;
  EXPECT_FALSE(egtb_covers(position("4k3/8/8/8/8/8/8/R2K4 w D - 0 1", Variant::Ouk)));
  EXPECT_TRUE(egtb_covers(position("4k3/8/8/8/8/8/8/R2K4 w - - 0 1", Variant::Ouk)));
}

// Every probed value must be what one ply of search over the legal moves
// (the rules core's move generator) makes of its children's probes. Checks
// `count` random positions of the material; returns how many are decided.
int check_against_move_generator(std::mt19937_64& rng, const std::string& material, int count) {
  int checked = 0, wins = 0;
  while (checked < count) {
    Position pos;
    if (!pos.set(random_fen(rng, material, rng() & 1, rng() & 1), Variant::Makruk,
                 Counting::Automatic, nullptr))
      continue;  // the side not to move is in check
    DtmProbe p;
    EXPECT_TRUE(probe_dtm(pos, p)) << pos.fen();
    ++checked;
    wins += p.wdl != Wdl::Draw;
    MoveList list;
    generate_legal(pos, list);
    int best = list.size ? -100000 : pos.in_check() ? -1000 : 0;
    for (Move m : list) {
      pos.do_move(m);
      DtmProbe child;
      int v = count_legal(pos) == 0 ? (pos.in_check() ? -1000 : 0)
              : probe_dtm(pos, child) ? score_of(child)
                                      : 0;  // bare kings
      pos.undo_move();
      best = std::max(best, v > 0 ? 1 - v : v < 0 ? -v - 1 : 0);
    }
    EXPECT_EQ(score_of(p), best) << material << " " << pos.fen();
    if (score_of(p) != best) break;
  }
  return wins;
}

TEST(Egtb, AgreesWithTheMoveGenerator) {
  std::mt19937_64 rng(11);
  for (const char* material : {"R", "S", "N", "M", "RR", "SS", "SM", "NM"}) {
    const int wins = check_against_move_generator(rng, material, 2000);
    if (std::string(material).find_first_of("NMS") == std::string::npos ||
        (std::string(material).size() == 2 && std::string(material) != "NM")) {
      EXPECT_GT(wins, 500) << material;
    }
  }
}

// Three mets (promoted pawns) against the bare king: the smallest three-piece
// table, checked against the move generator, written to a file and checked
// there, and played out by the engine under the count.
TEST(Egtb, ThreeMets) {
  EgtbStats s;
  ASSERT_TRUE(egtb_stats("MMM", s));
  EXPECT_EQ(s.name, "KMMMK");
  EXPECT_FALSE(s.from_file);
  EXPECT_GT(s.wins, s.legal / 2);  // most placements are won
  EXPECT_LT(s.wins, s.legal);
  EXPECT_GT(s.max_plies, 60);
  EXPECT_EQ(s.max_plies % 2, 1);
  std::printf("%s %.1f s, %zu bytes (%zu while built), longest %d plies, %zu of %zu won\n", s.name.c_str(),
              s.seconds, s.bytes, s.peak_bytes, s.max_plies, s.wins, s.legal);

  std::mt19937_64 rng(12);
  EXPECT_GT(check_against_move_generator(rng, "MMM", 3000), 1000);

  // A met promoted from a pawn is the same piece.
  EXPECT_EQ(score_of(probe("8/8/8/3k4/8/2MMM3/3K4/8 w - - 0 1")),
            score_of(probe("8/8/8/3k4/8/2M~MM~3/3K4/8 w - - 0 1")));

  // The file: written, read back entry for entry; a changed byte or a
  // truncated file is refused.
  char tmpl[] = "/tmp/makruk-egtb-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string error;
  EXPECT_FALSE(egtb_check_file("MMM", dir, &error));
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  ASSERT_TRUE(egtb_save("MMM", dir, &error)) << error;
  EXPECT_TRUE(egtb_check_file("MMM", dir, &error)) << error;
  EXPECT_EQ(egtb_files_present(dir), 1);
  const std::string path = dir + "/KMMMK.mktb";
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 1000000, SEEK_SET);
    const int c = std::fgetc(f);
    std::fseek(f, 1000000, SEEK_SET);
    std::fputc(c ^ 1, f);
    std::fclose(f);
  }
  EXPECT_FALSE(egtb_check_file("MMM", dir, &error));
  EXPECT_NE(error.find("differs"), std::string::npos) << error;
  ASSERT_EQ(truncate(path.c_str(), 1000), 0);
  EXPECT_FALSE(egtb_check_file("MMM", dir, &error));
  EXPECT_EQ(egtb_files_present(dir), 0);
  std::remove(path.c_str());
  rmdir(dir.c_str());

  // A search does not build a three-piece table it has no file for.
  egtb_set_path("");
  egtb_set_build_in_search(false);
  DtmProbe p;
  EXPECT_FALSE(probe_dtm(position("8/8/8/3k4/8/8/2NMM3/3K4 w - - 0 1"), p, false));
  for (const EgtbStats& g : egtb_generated()) EXPECT_NE(g.name, "KNMMK");

  // The engine mates from won placements, both colours, within the count.
  int played = 0;
  while (played < 4) {
    const bool black = played & 1;
    Position pos;
    if (!pos.set(random_fen(rng, "MMM", black, true), Variant::Makruk, Counting::Automatic, nullptr) ||
        !mates_within_count(pos))
      continue;
    ++played;
    Game g = play_out(pos.fen(), Variant::Makruk);
    EXPECT_EQ(g.reason(), Reason::Checkmate) << pos.fen();
    EXPECT_EQ(g.result(), black ? Result::BlackWins : Result::WhiteWins) << pos.fen();
  }
}

TEST(Egtb, LoneKhonOrMetIsNeverAWinFromOrdinaryPositions) {
  Engine engine;
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (const char* fen : {"8/8/3k4/8/8/3S4/3K4/8 w - - 0 1", "8/8/3k4/8/8/3M4/3K4/8 w - - 0 1",
                            "8/8/2k5/8/4K3/3S4/8/8 b - - 0 1", "8/8/3k4/8/8/3M~4/3K4/8 w - - 0 1",
                            "8/8/3K4/8/8/3s4/3k4/8 b - - 0 1"}) {
      Position pos = position(fen, v);
      EXPECT_EQ(probe(fen, v).wdl, Wdl::Draw) << fen;
      EXPECT_EQ(search_depth(engine, pos, 6), VALUE_DRAW) << fen;
    }
}

// The search's score of a table position against the count: a mate counts
// only when the bare king's moves before it fit in limit - n.
TEST(Egtb, SearchScoresTheMateOnlyWithinTheCount) {
  build("SS");
  std::mt19937_64 rng(5);
  Engine engine;
  for (const char* material : {"R", "SS"}) {
    int tried = 0;
    while (tried < 12) {
      const bool hunter_to_move = tried % 2 == 0;
      Position pos;
      if (!pos.set(random_fen(rng, material, rng() & 1, hunter_to_move), Variant::Makruk,
                   Counting::Automatic, nullptr))
        continue;
      DtmProbe p;
      ASSERT_TRUE(probe_dtm(pos, p));
      const int defender_moves = p.plies / 2;
      Count c = pos.count();
      if (p.wdl == Wdl::Draw || p.plies < 4 || defender_moves >= c.limit) continue;
      ++tried;
      ASSERT_EQ(c.kind, CountKind::Piece);
      c.n = uint8_t(c.limit - defender_moves);  // exactly enough
      pos.set_count(c);
      engine.new_game();
      const Value mate = hunter_to_move ? mate_in(p.plies) : mated_in(p.plies);
      EXPECT_EQ(search_depth(engine, pos, 2), mate) << pos.fen() << " n " << int(c.n);
      c.n += 1;  // one move short
      pos.set_count(c);
      engine.new_game();
      EXPECT_EQ(search_depth(engine, pos, 2), VALUE_DRAW) << pos.fen() << " n " << int(c.n);
    }
  }
}

TEST(Egtb, RookMatesWithinAFreshCount) {
  // Black's 13 moves (n from 3 to 16) are exactly what the mate needs.
  for (const char* fen : {"8/8/4k3/8/8/2R5/3K4/8 b - - 0 1", "8/8/4k3/8/8/2R5/8/3K4 w - - 0 1",
                          "8/3k4/8/8/8/8/2r5/4K3 w - - 0 1"}) {
    Position pos = position(fen);
    ASSERT_TRUE(mates_within_count(pos)) << fen;
    Engine engine;
    EXPECT_GE(std::abs(search_depth(engine, pos, 3)), VALUE_MATE_IN_MAX_PLY) << fen;
    Game g = play_out(fen, Variant::Makruk);
    EXPECT_EQ(g.reason(), Reason::Checkmate) << fen;
    EXPECT_EQ(g.result(), pos.pieces(WHITE, ROOK) ? Result::WhiteWins : Result::BlackWins) << fen;
  }
}

TEST(Egtb, CountTooShortIsADrawAndTheHunterFailsToMate) {
  // One Black move too few: Black is mated after 14 moves, the count allows 13.
  const char* fen = "8/8/4k3/8/8/2R5/8/3K4 b - - 0 1";
  Position pos = position(fen);
  DtmProbe p = probe(fen);
  ASSERT_EQ(p.wdl, Wdl::Loss);
  EXPECT_EQ(p.plies, 28);
  Engine engine;
  EXPECT_EQ(search_depth(engine, pos, 4), VALUE_DRAW);
  Game g = play_out(fen, Variant::Makruk);
  // Every White move scores a draw, so White may even give the rook away
  // (bare kings): the result is the same.
  EXPECT_EQ(g.result(), Result::Draw) << reason_string(g.reason()) << " " << g.position().fen();

  // Two khons with the count nearly run out: a draw however close the mate.
  build("SS");
  Position khons = position("8/8/8/3k4/8/2SS4/3K4/8 w - - 0 1");
  Count c = khons.count();
  ASSERT_EQ(c.limit, 22);
  ASSERT_EQ(probe("8/8/8/3k4/8/2SS4/3K4/8 w - - 0 1").plies, 29);  // 14 Black moves
  c.n = uint8_t(c.limit - 13);
  khons.set_count(c);
  EXPECT_EQ(search_depth(engine, khons, 4), VALUE_DRAW);

  // Ouk counts one more (n = P + 1): a mate that just fits in Makruk does not.
  const char* tight = "4k3/8/8/8/8/8/8/2SKS3 w - - 0 1";
  EXPECT_TRUE(mates_within_count(position(tight, Variant::Makruk)));
  EXPECT_FALSE(mates_within_count(position(tight, Variant::Ouk)));
  EXPECT_EQ(search_depth(engine, position(tight, Variant::Ouk), 3), VALUE_DRAW);
  EXPECT_GE(search_depth(engine, position(tight, Variant::Makruk), 3), VALUE_MATE_IN_MAX_PLY);
}

TEST(Egtb, DeclarationModeCountsTheCountThatWouldStart) {
  // No count runs yet, but the bare king may start one at any time, and best
  // at once: a mate longer than that count allows is no win.
  build("SS");
  Engine engine;
  const Counting decl = Counting::Declaration;
  Position khons = position("8/8/8/3k4/8/2SS4/3K4/8 b - - 0 1", Variant::Makruk, decl);
  ASSERT_FALSE(khons.count().running());
  ASSERT_EQ(probe("8/8/8/3k4/8/2SS4/3K4/8 b - - 0 1").plies, 38);  // 19 Black moves; 18 allowed
  EXPECT_EQ(search_depth(engine, khons, 3), VALUE_DRAW);
  ASSERT_EQ(probe("8/8/8/8/8/3k4/2R5/7K w - - 0 1").plies, 31);  // 15 Black moves; 13 allowed
  EXPECT_EQ(search_depth(engine, position("8/8/8/8/8/3k4/2R5/7K w - - 0 1", Variant::Makruk, decl), 3),
            VALUE_DRAW);
  EXPECT_EQ(search_depth(engine, position("8/8/4k3/8/8/2R5/8/3K4 b - - 0 1", Variant::Makruk, decl), 3),
            VALUE_DRAW);  // 14 Black moves
  EXPECT_EQ(search_depth(engine, position("8/8/4k3/8/8/2R5/3K4/8 b - - 0 1", Variant::Makruk, decl), 3),
            mated_in(26));  // 13
  EXPECT_EQ(search_depth(engine, position("8/8/4k3/8/8/2R5/8/3K4 w - - 0 1", Variant::Makruk, decl), 3),
            mate_in(27));  // 13
}

TEST(Egtb, TwoKhonsMateWithinTheCount) {
  build("SS");
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (const char* fen : {"8/8/8/3k4/8/2SS4/3K4/8 w - - 0 1", "8/6k1/8/8/3K4/2SS4/8/8 w - - 0 1",
                            "8/3k4/2ss4/8/3K4/8/8/8 b - - 0 1"}) {
      Position pos = position(fen, v);
      ASSERT_TRUE(mates_within_count(pos)) << fen;
      Game g = play_out(fen, v);
      EXPECT_EQ(g.reason(), Reason::Checkmate) << fen;
      EXPECT_EQ(g.result(), pos.side_to_move() == WHITE ? Result::WhiteWins : Result::BlackWins);
    }
}

TEST(Egtb, KhonAndMetMateWithinTheCount) {
  build("SM");
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (const char* fen : {"8/8/8/3k4/8/2SM4/3K4/8 w - - 0 1", "8/8/3k4/8/8/8/8/2SKM3 w - - 0 1",
                            "8/3k4/2sm4/8/3K4/8/8/8 b - - 0 1"}) {
      Position pos = position(fen, v);
      ASSERT_TRUE(mates_within_count(pos)) << fen;
      Game g = play_out(fen, v);
      EXPECT_EQ(g.reason(), Reason::Checkmate) << fen;
      EXPECT_EQ(g.result(), pos.side_to_move() == WHITE ? Result::WhiteWins : Result::BlackWins);
    }
}
