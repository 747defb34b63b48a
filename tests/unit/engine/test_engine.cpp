// The engine: mates at small depth, the count inside the search, legal best
// moves everywhere, the UCI front end and the playing levels.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "core/game.h"
#include "core/movegen.h"
#include "core/notation.h"
#include "engine/egtb.h"
#include "engine/levels.h"
#include "engine/match.h"
#include "engine/search.h"
#include "engine/uci.h"

using namespace makruk;
using namespace makruk::engine;

namespace {

Position position(const char* fen, Variant v = Variant::Makruk) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, Counting::Automatic, &error)) << fen << ": " << error;
  return pos;
}

SearchResult search_depth(Engine& engine, const Position& pos, int depth) {
  Limits limits;
  limits.depth = depth;
  return engine.search(pos, limits);
}

std::string uci_session(const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out;
  uci_loop(in, out);
  return out.str();
}

}  // namespace

TEST(Search, MateInOneWithRook) {
  Engine engine;
  // Black king d8 boxed in by the White king on d6: Ra8 mates.
  SearchResult r = search_depth(engine, position("3k4/8/3K4/8/8/8/8/R7 w - - 0 1"), 3);
  EXPECT_EQ(move_to_string(r.best), "a1a8");
  EXPECT_EQ(r.score, mate_in(1));
}

TEST(Search, MateInTwoFound) {
  Engine engine;
  // Two rooks roll the king up the board: Rb7 then Ra8#, or a mirror of it.
  Position pos = position("6k1/8/8/8/8/8/R7/1R4K1 w - - 0 1");
  SearchResult r = search_depth(engine, pos, 5);
  EXPECT_EQ(r.score, mate_in(3));
}

TEST(Search, MatedSideSeesIt) {
  Engine engine;
  // Black to move, mated next move whatever it does.
  Position pos = position("4k3/R7/1R6/8/8/8/8/6K1 b - - 0 1");
  SearchResult r = search_depth(engine, pos, 4);
  EXPECT_EQ(r.score, mated_in(2));
}

TEST(Search, NoMoveWhenGameOverByMate) {
  Engine engine;
  Position pos = position("R2k4/8/3K4/8/8/8/8/8 b - - 0 1");
  ASSERT_EQ(count_legal(pos), 0);
  SearchResult r = search_depth(engine, pos, 5);
  EXPECT_TRUE(r.best.is_none());
}

TEST(Search, CountThatCannotRunLongEnoughIsADraw) {
  Engine engine;
  // K+R vs K is won on material, but Black's piece count stands at 15 of 16:
  // one Black move, then White's single last move cannot mate.
  Position pos = position("8/8/4k3/8/8/2R5/8/3K4 b - - 0 1");
  ASSERT_EQ(pos.count().kind, CountKind::Piece);
  Count c = pos.count();
  c.n = 15;
  pos.set_count(c);
  SearchResult r = search_depth(engine, pos, 8);
  EXPECT_EQ(r.score, VALUE_DRAW);
  // With the count fresh, White wins. (Not from the position above: there the
  // mate needs 14 Black moves and the fresh count allows 13 — a draw; with
  // White's king on d2 it needs 13.)
  Position fresh = position("8/8/4k3/8/8/2R5/3K4/8 b - - 0 1");
  EXPECT_LT(search_depth(engine, fresh, 8).score, -300);
}

TEST(Search, LastMoveOfTheCountMayStillMate) {
  Engine engine;
  // Black's count reaches its limit with Black's move; White's last move mates.
  Position pos = position("3k4/8/2K5/8/8/8/8/R7 b - - 0 1");
  Count c = pos.count();
  ASSERT_EQ(c.kind, CountKind::Piece);
  c.n = c.limit - 1;
  pos.set_count(c);
  // Kc8 walks into Ra8 mate on White's last move; Ke8 and Ke7 hold the draw.
  SearchResult r = search_depth(engine, pos, 6);
  EXPECT_EQ(r.score, VALUE_DRAW);
  EXPECT_NE(move_to_string(r.best), "d8c8");
  Position p = pos;
  p.do_move(parse_move(p, "d8c8"));
  EXPECT_EQ(search_depth(engine, p, 4).score, mate_in(1));
}

// Plays a game out with the engine on both sides (fixed nodes per move) under
// the rules core's referee; nothing when the FEN is refused.
static std::optional<Game> play_out(const char* fen, uint64_t nodes_per_move, int max_plies) {
  std::string error;
  auto game = Game::create(Variant::Makruk, Counting::Automatic, fen, &error);
  EXPECT_TRUE(game) << fen << ": " << error;
  if (!game) return game;
  Engine engine;
  for (int i = 0; i < max_plies && !game->over(); ++i) {
    Limits limits;
    limits.nodes = nodes_per_move;
    SearchResult r = engine.search(game->position(), limits);
    EXPECT_TRUE(game->play(r.best, &error)) << error;
  }
  return game;
}

TEST(Search, KnightAndTwoMetsMateWithinTheCount) {
  // K+N+2M v K has no table: the search and the mop-up evaluation must mate
  // before the bare king's count (64, from 5) runs out, against the engine's
  // own defence. (With the middlegame placement terms kept against a bare
  // king, most of these were drawn by the count.) The tables a capture leads
  // into are built first, so that every run searches the same tree.
  EgtbStats stats;
  for (const char* m : {"N", "M", "NM", "MM"}) ASSERT_TRUE(egtb_stats(m, stats));
  for (const char* fen : {"8/8/4k3/8/8/3MM3/8/3NK3 w - - 0 1", "3N4/5M2/8/8/3M4/8/2K5/6k1 w - - 0 1",
                          "K3k3/N5M1/8/8/8/8/2M5/8 w - - 0 1", "7k/8/8/8/3K4/8/3MM3/6N1 w - - 0 1"}) {
    std::optional<Game> g = play_out(fen, 20000, 300);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->result(), Result::WhiteWins) << fen << " " << reason_string(g->reason());
    EXPECT_EQ(g->reason(), Reason::Checkmate) << fen;
  }
}

TEST(Search, CountMateInDeclarationModeIsNoWin) {
  // D9: Black (K+R against K+2M) has declared a board count; Ra8 would mate,
  // but a mate by the counting side while it counts is only a draw.
  const char* fen = "7r/8/8/7M/8/8/2k4M/K7 b - - 0 1";
  Position pos;
  std::string error;
  ASSERT_TRUE(pos.set(fen, Variant::Makruk, Counting::Declaration, &error)) << error;
  Engine engine;
  EXPECT_EQ(search_depth(engine, pos, 3).score, mate_in(1));  // not counting: a win
  Count c;
  c.kind = CountKind::Board;
  c.side = BLACK;
  c.n = 3;
  c.limit = 64;
  pos.set_count(c);
  engine.new_game();
  SearchResult r = search_depth(engine, pos, 3);
  EXPECT_LT(r.score, VALUE_MATE_IN_MAX_PLY);
  EXPECT_NE(move_to_string(r.best), "h8a8");
}

TEST(Search, BestMoveIsLegalInRandomPositions) {
  std::mt19937_64 rng(7);
  Engine engine;
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    for (int game = 0; game < 6; ++game) {
      std::string error;
      auto g = Game::create(v, Counting::Automatic, "", &error);
      for (int ply = 0; ply < 120 && !g->over(); ++ply) {
        MoveList legal = g->legal_moves();
        if (ply % 9 == 0) {
          Limits limits;
          limits.nodes = 2000;
          SearchResult r = engine.search(g->position(), limits);
          ASSERT_TRUE(legal.contains(r.best)) << g->position().fen();
        }
        g->play(legal.moves[rng() % legal.size], &error);
      }
    }
  }
}

// What a search learns about move ordering carries over to the next search of
// the game (halved), so a second search of the same position (with the table
// cleared) differs from the first; new_game forgets it, and the search is again
// what it was.
TEST(Search, HistoriesCarryOverUntilANewGame) {
  const Position pos = position("rn1mksr1/2s5/pppp1ppp/4pn2/8/PPPPPPPP/R1KS4/1N2MSNR w - - 0 6");
  Limits limits;
  limits.depth = 7;
  Engine engine;
  const SearchResult first = engine.search(pos, limits);
  engine.set_hash(16);  // a fresh table, the histories kept
  const SearchResult second = engine.search(pos, limits);
  EXPECT_NE(first.nodes, second.nodes);
  engine.new_game();
  const SearchResult again = engine.search(pos, limits);
  EXPECT_EQ(first.nodes, again.nodes);
  EXPECT_EQ(first.best, again.best);
  EXPECT_EQ(first.score, again.score);
}

TEST(SearchParams, TextRoundTripsAndBadTextChangesNothing) {
  SearchParams p;
  p.rfp_margin = 87;
  p.lmr_div = 231;
  p.aspiration = 12;
  SearchParams back;
  std::string error;
  ASSERT_TRUE(parse_search_params(format_search_params(p), back, &error)) << error;
  EXPECT_EQ(back, p);
  EXPECT_NE(back, SearchParams{});
  // Commas or spaces; the numbers not named keep theirs.
  SearchParams q;
  ASSERT_TRUE(parse_search_params("rfp_margin=90,lmr_base=40  history_max=500", q, &error)) << error;
  EXPECT_EQ(q.rfp_margin, 90);
  EXPECT_EQ(q.lmr_base, 40);
  EXPECT_EQ(q.history_max, 500);
  EXPECT_EQ(q.lmr_div, SearchParams{}.lmr_div);
  EXPECT_EQ(format_search_params(SearchParams{}).find("rfp_depth=6 rfp_margin=100 "), 0u);
  for (const char* bad : {"nope=3", "rfp_margin", "rfp_margin=", "rfp_margin=9x", "rfp_margin=1e2",
                          "rfp_margin=19", "rfp_margin=401", "lmr_div=0", "rfp_margin=99999999999999999999",
                          "rfp_margin=90 aspiration=-1"}) {
    SearchParams r = p;
    error.clear();
    EXPECT_FALSE(parse_search_params(bad, r, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
    EXPECT_EQ(r, p) << bad;  // nothing changed, not even the good pair before the bad one
  }
  // Every field is named once, its default within its bounds.
  std::set<std::string> names;
  for (const SearchParamField& f : search_param_fields()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_LE(f.min, SearchParams{}.*f.field) << f.name;
    EXPECT_GE(f.max, SearchParams{}.*f.field) << f.name;
    EXPECT_GT(f.step, 0) << f.name;
  }
}

// Quiescence's quiet checks are found without making the move: over random
// games of both variants (Ouk's first moves of king and neang included), every
// quiet legal move's answer agrees with making it.
TEST(Search, QuietChecksAreKnownWithoutMakingTheMove) {
  std::mt19937_64 rng(7);
  int checks = 0, quiets = 0;
  for (Variant v : {Variant::Makruk, Variant::Ouk})
    for (int g = 0; g < 40; ++g) {
      Position pos = position(v == Variant::Ouk ? "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1"
                                                : "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",
                              v);
      for (int ply = 0; ply < 160; ++ply) {
        MoveList legal;
        generate_legal(pos, legal);
        if (legal.size == 0 || pos.count().expired) break;
        for (Move m : legal) {
          if (pos.piece_on(m.to()) != NO_PIECE || m.is_promotion()) continue;
          const bool predicted = quiet_gives_check(pos, m);
          pos.do_move(m);
          ASSERT_EQ(predicted, pos.in_check()) << pos.fen();
          checks += predicted;
          ++quiets;
          pos.undo_move();
        }
        pos.do_move(legal.moves[rng() % legal.size]);
      }
    }
  EXPECT_GT(checks, 100);
  EXPECT_GT(quiets, 10000);
}

TEST(SearchParams, TheyChangeTheSearchAndTheDefaultsRestoreIt) {
  const Position pos = position("rn1mksr1/2s5/pppp1ppp/4pn2/8/PPPPPPPP/R1KS4/1N2MSNR w - - 0 6");
  Engine engine;
  const SearchResult base = search_depth(engine, pos, 10);
  for (const char* text : {"lmr_div=120", "rfp_margin=40", "fut_base=20 fut_margin=40", "lmp_base=8",
                           "history_max=16", "lmr_history=1000", "aspiration=5", "nmp_base=1 nmp_depth_div=12",
                           "check_ext_depth=7", "lmr_checks=1", "fut_lmr=1", "razor_depth=3", "check_see=1",
                           "qs_checks=1", "tt_eval=1"}) {
    SearchParams p;
    std::string error;
    ASSERT_TRUE(parse_search_params(text, p, &error)) << error;
    engine.set_search_params(p);
    engine.new_game();
    EXPECT_NE(search_depth(engine, pos, 10).nodes, base.nodes) << text;
  }
  engine.set_search_params(SearchParams{});
  engine.new_game();
  const SearchResult again = search_depth(engine, pos, 10);
  EXPECT_EQ(again.nodes, base.nodes);
  EXPECT_EQ(again.best, base.best);
}

// Singular extensions: off by default; on, they change the search, their margin too, and a
// forced mate is still found.
TEST(SearchParams, SingularExtensionsChangeTheSearch) {
  const Position pos = position("rn1mksr1/2s5/pppp1ppp/4pn2/8/PPPPPPPP/R1KS4/1N2MSNR w - - 0 6");
  auto nodes_with = [&](const char* text) {
    Engine engine;
    SearchParams p;
    std::string error;
    EXPECT_TRUE(parse_search_params(text, p, &error)) << error;
    engine.set_search_params(p);
    return search_depth(engine, pos, 11).nodes;
  };
  EXPECT_EQ(SearchParams{}.se_depth, 0);
  const uint64_t off = nodes_with(""), on = nodes_with("se_depth=6"), wide = nodes_with("se_depth=6 se_margin=8");
  EXPECT_NE(off, on);
  EXPECT_NE(on, wide);
  Engine engine;
  SearchParams p;
  p.se_depth = 4;
  engine.set_search_params(p);
  EXPECT_EQ(move_to_string(search_depth(engine, position("3k4/8/3K4/8/8/8/8/R7 w - - 0 1"), 8).best), "a1a8");
}

TEST(Search, OukNeangJumpBlocksCheck) {
  Engine engine;
  // The rook on a3 checks the king on f3; the neang's jump e1-e3 is a legal block.
  Position pos = position("4k3/8/8/8/8/r4K2/8/4M3 w E - 0 1", Variant::Ouk);
  ASSERT_TRUE(pos.in_check());
  MoveList legal;
  generate_legal(pos, legal);
  EXPECT_TRUE(legal.contains(parse_move(pos, "e1e3")));
  SearchResult r = search_depth(engine, pos, 4);
  EXPECT_TRUE(legal.contains(r.best));
}

TEST(Search, ThreadsAgreeOnForcedMate) {
  Engine engine;
  engine.set_threads(2);
  SearchResult r = search_depth(engine, position("3k4/8/3K4/8/8/8/8/R7 w - - 0 1"), 6);
  EXPECT_EQ(move_to_string(r.best), "a1a8");
}

// Multi-PV: each line starts with a different move, best first, and each line is legal.
static void expect_lines_sound(const Position& root, const SearchResult& r, size_t n) {
  ASSERT_EQ(r.lines.size(), n);
  EXPECT_EQ(r.lines[0].pv.front(), r.best);
  EXPECT_EQ(r.lines[0].score, r.score);
  for (size_t i = 0; i < r.lines.size(); ++i) {
    if (i) {
      EXPECT_GE(r.lines[i - 1].score, r.lines[i].score) << "line " << i + 1;
    }
    for (size_t j = 0; j < i; ++j) EXPECT_NE(r.lines[i].pv.front(), r.lines[j].pv.front());
    Position p = root;
    for (Move m : r.lines[i].pv) {
      MoveList legal;
      generate_legal(p, legal);
      ASSERT_TRUE(legal.contains(m)) << "line " << i + 1 << ": " << move_to_string(m);
      p.do_move(m);
    }
  }
}

TEST(Search, MultiPvGivesTheBestMovesInOrder) {
  Engine engine;
  // Ra8 mates; no other move comes close.
  Position pos = position("3k4/8/3K4/8/8/8/8/R7 w - - 0 1");
  Limits limits;
  limits.depth = 6;
  limits.multipv = 3;
  SearchResult r = engine.search(pos, limits);
  expect_lines_sound(pos, r, 3);
  EXPECT_EQ(move_to_string(r.best), "a1a8");
  EXPECT_EQ(r.lines[0].score, mate_in(1));
  EXPECT_LT(r.lines[1].score, mate_in(1));
  // A rook (for the knight) or a knight (for the king) to take: the rook first, the
  // knight second, then the rest.
  engine.new_game();
  pos = position("7k/p6p/8/4r3/8/P2N3P/6n1/5K2 w - - 0 1");
  r = engine.search(pos, limits);
  expect_lines_sound(pos, r, 3);
  EXPECT_EQ(move_to_string(r.lines[0].pv.front()), "d3e5");
  EXPECT_EQ(move_to_string(r.lines[1].pv.front()), "f1g2");
  EXPECT_GT(r.lines[1].score, r.lines[2].score + 100) << r.lines[0].score << " " << r.lines[1].score << " " << r.lines[2].score;
}

TEST(Search, MultiPvInRandomPositionsAndBeyondTheLegalMoves) {
  Engine engine;
  std::mt19937 rng(7);
  for (int game = 0; game < 6; ++game) {
    Position pos = position(std::string(Position::MAKRUK_START).c_str());
    for (int ply = 0; ply < 30; ++ply) {
      MoveList legal;
      generate_legal(pos, legal);
      if (legal.size == 0) break;
      pos.do_move(legal.moves[rng() % legal.size]);
    }
    MoveList legal;
    generate_legal(pos, legal);
    if (legal.size == 0) continue;
    Limits limits;
    limits.depth = 5;
    limits.multipv = 4;
    expect_lines_sound(pos, engine.search(pos, limits), std::min<size_t>(4, legal.size));
  }
  // Asked for more lines than there are moves: one per move.
  Position pos = position("k7/8/1K6/8/8/8/8/8 b - - 0 1");
  MoveList legal;
  generate_legal(pos, legal);
  Limits limits;
  limits.depth = 4;
  limits.multipv = 10;
  expect_lines_sound(pos, engine.search(pos, limits), size_t(legal.size));
}

TEST(Search, TheClockShareKeepsAReserveInLongGames) {
  // A fresh 10 s + 0.1 s clock: about a thirtieth of it and most of the increment.
  TimeShare start = time_share(10000, 100, 0, 30);
  EXPECT_GE(start.optimum, 350);
  EXPECT_LE(start.optimum, 450);
  EXPECT_EQ(start.maximum, start.optimum * 4);
  // However low the clock, a move never plans on the reserve of two increments
  // (or half the clock, when it holds less than four): a search stopped at its maximum, with the
  // overhead spent, leaves it.
  for (int64_t inc : {100, 600}) {
    for (int64_t clock = 1; clock <= 20 * inc; ++clock) {
      const TimeShare t = time_share(clock, inc, 0, 30);
      ASSERT_GE(t.optimum, 1);
      ASSERT_LE(t.optimum, t.maximum);
      if (clock > 60 + 30) {
        ASSERT_GE(clock - 30 - t.maximum, std::min(2 * inc, clock / 2)) << clock << " + " << inc;
      }
    }
  }
  // With two increments or less on the clock a move costs less than one, so
  // the clock grows back instead of staying where one slow reply loses on time
  // (at 10 s + 0.1 s a long game used to sit at 0.14 s, 0.1 s a move).
  for (int64_t clock = 1; clock <= 200; ++clock) ASSERT_LT(time_share(clock, 100, 0, 30).maximum + 30, 100) << clock;
  // Without an increment nothing is held back: the clock over 30 moves, or
  // over the moves to go.
  EXPECT_EQ(time_share(60000, 0, 0, 30).optimum, (60000 - 30) / 30);
  EXPECT_EQ(time_share(60000, 0, 20, 30).optimum, (60000 - 30) / 20);
  // Whatever a GUI sends, the share stays within the clock (no overflow).
  const int64_t huge = std::numeric_limits<int64_t>::max();
  for (const TimeShare t : {time_share(huge, huge, 0, 30), time_share(huge, 0, 1, 0), time_share(5, huge, 0, 30)}) {
    EXPECT_GE(t.optimum, 1);
    EXPECT_LE(t.optimum, t.maximum);
  }
  EXPECT_LE(time_share(5, huge, 0, 30).maximum, 5);
}

TEST(Uci, Handshake) {
  std::string out = uci_session("uci\nisready\nquit\n");
  EXPECT_NE(out.find("id name makruk"), std::string::npos);
  EXPECT_NE(out.find("option name UCI_Variant type combo default makruk var makruk var cambodian"),
            std::string::npos);
  EXPECT_NE(out.find("uciok"), std::string::npos);
  EXPECT_NE(out.find("readyok"), std::string::npos);
}

TEST(Uci, GoDepthAnswersWithInfoAndLegalBestMove) {
  std::string out = uci_session("position startpos moves e3e4 d6d5\ngo depth 5\nisready\n");
  EXPECT_NE(out.find("info depth 5 "), std::string::npos);
  EXPECT_NE(out.find(" pv "), std::string::npos);
  size_t at = out.find("bestmove ");
  ASSERT_NE(at, std::string::npos);
  Position pos;
  pos.set(Position::MAKRUK_START, Variant::Makruk, Counting::Automatic, nullptr);
  pos.do_move(parse_move(pos, "e3e4"));
  pos.do_move(parse_move(pos, "d6d5"));
  EXPECT_FALSE(parse_move(pos, out.substr(at + 9, 4)).is_none());
}

TEST(Uci, MultiPvReportsEachLine) {
  std::string out = uci_session("setoption name MultiPV value 3\nposition startpos\ngo depth 5\nisready\n");
  for (const char* k : {" multipv 1 ", " multipv 2 ", " multipv 3 "}) EXPECT_NE(out.find(k), std::string::npos) << k;
  std::set<std::string> firsts;
  std::istringstream lines(out);
  std::string best1;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("info depth 5 ", 0) != 0) continue;
    const size_t at = line.find(" multipv "), pv = line.find(" pv ");
    ASSERT_NE(at, std::string::npos) << line;
    ASSERT_NE(pv, std::string::npos) << line;
    const std::string first = line.substr(pv + 4, line.find(' ', pv + 4) - pv - 4);
    firsts.insert(first);
    if (line.compare(at, 11, " multipv 1 ") == 0) best1 = first;
  }
  EXPECT_EQ(firsts.size(), 3u) << out;
  EXPECT_NE(out.find("bestmove " + best1), std::string::npos) << out;
  out = uci_session("setoption name MultiPV value 0\n");
  EXPECT_NE(out.find("option 'MultiPV' needs a number from 1 to 64"), std::string::npos) << out;
}

TEST(Uci, StopEndsInfiniteSearch) {
  std::string out = uci_session("position startpos\ngo infinite\nstop\n");
  EXPECT_NE(out.find("bestmove "), std::string::npos);
}

TEST(Uci, GameOverAnswersNone) {
  std::string out = uci_session("position fen R2k4/8/3K4/8/8/8/8/8 b - - 0 1\ngo depth 3\n");
  EXPECT_NE(out.find("bestmove (none)"), std::string::npos);
}

// A game our count has ended (K+R+R+S+S+N v K: the count runs out on a
// check that is no mate) may go on under another program's rules: `go`
// answers a legal move, and says in an info string that the game is over
// here; moves given past the end are played on.
TEST(Uci, PlaysOnWhereOurRulesEndedTheGame) {
  const std::string fen = "7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1";
  std::string out = uci_session("position fen " + fen + " moves h8h7 a1a7\ngo depth 4\nisready\n");
  EXPECT_NE(out.find("info string the game is over by these rules (count-expired)"), std::string::npos) << out;
  size_t at = out.find("bestmove ");
  ASSERT_NE(at, std::string::npos);
  Position pos;
  ASSERT_TRUE(pos.set(fen, Variant::Makruk, Counting::Automatic, nullptr));
  pos.do_move(parse_move(pos, "h8h7"));
  pos.do_move(parse_move(pos, "a1a7"));
  EXPECT_FALSE(parse_move(pos, out.substr(at + 9, 4)).is_none()) << out.substr(at);
  // Past the end: the moves are played on.
  out = uci_session("position fen " + fen + " moves h8h7 a1a7 h7h8\nd\ngo depth 4\nisready\n");
  EXPECT_EQ(out.find("invalid position"), std::string::npos) << out;
  pos.do_move(parse_move(pos, "h7h8"));
  const std::string now = pos.fen();
  EXPECT_NE(out.find(now.substr(0, now.find(' ') + 2)), std::string::npos) << out;
  at = out.find("bestmove ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_FALSE(parse_move(pos, out.substr(at + 9, 4)).is_none()) << out.substr(at);
  // Bare kings: a draw here, a legal move all the same.
  out = uci_session("position fen 8/8/4k3/8/8/3K4/8/8 w - - 0 1\ngo depth 2\nisready\n");
  EXPECT_NE(out.find("(bare-kings)"), std::string::npos);
  EXPECT_EQ(out.find("bestmove (none)"), std::string::npos) << out;
}

TEST(Uci, CambodianVariantAndJumps) {
  std::string out = uci_session(
      "setoption name UCI_Variant value cambodian\n"
      "position startpos moves d1b2 e8g7 e3e4 d6d5 e1e3 d8d6\nd\n");
  EXPECT_NE(out.find("rns2snr/6k1/pppmpppp/3p4/4P3/PPPPMPPP/1K6/RNS2SNR w - - 0 4"), std::string::npos);
}

TEST(Uci, MalformedInputIsReportedAndIgnored) {
  std::string out = uci_session(
      "position startpos moves e3e4\nfoo bar\nposition fen nonsense\nposition startpos moves e3e5\n"
      "setoption name Hash value lots\nsetoption name Nope value 1\ngo depth 1 wtime -5\nd\n");
  EXPECT_NE(out.find("info string unknown command 'foo'"), std::string::npos);
  EXPECT_NE(out.find("info string invalid position: FEN"), std::string::npos);
  EXPECT_NE(out.find("info string invalid position: illegal move 'e3e5'"), std::string::npos);
  EXPECT_NE(out.find("info string option 'Hash' needs a number"), std::string::npos);
  EXPECT_NE(out.find("info string unknown option 'Nope'"), std::string::npos);
  // The last good position stands: after e3e4, Black to move.
  EXPECT_NE(out.find("rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"), std::string::npos);
  EXPECT_NE(out.find("bestmove "), std::string::npos);
}

TEST(Uci, SearchParamsOptionSetsTheSearchOrSaysWhatIsWrong) {
  auto nodes_at_depth = [](const std::string& options) {
    const std::string out = uci_session(options + "position startpos moves e3e4 e6e5\ngo depth 8\n");
    const size_t at = out.rfind(" nodes ");
    EXPECT_NE(at, std::string::npos) << out;
    return at == std::string::npos ? std::string() : out.substr(at, out.find(' ', at + 7) - at);
  };
  const std::string plain = nodes_at_depth("");
  EXPECT_NE(nodes_at_depth("setoption name SearchParams value lmr_div=120 rfp_margin=60\n"), plain);
  EXPECT_EQ(nodes_at_depth("setoption name SearchParams value lmr_div=120\n"
                           "setoption name SearchParams value <default>\n"), plain);
  const std::string out = uci_session("uci\nsetoption name SearchParams value lmr_div=120 bogus=1\n");
  EXPECT_NE(out.find("option name SearchParams type string default <default>"), std::string::npos);
  EXPECT_NE(out.find("info string option 'SearchParams': no search parameter named 'bogus'"), std::string::npos);
  // A refused value leaves the search as it was (lmr_div=120 was not taken).
  EXPECT_EQ(nodes_at_depth("setoption name SearchParams value lmr_div=120 bogus=1\n"), plain);
  EXPECT_EQ(nodes_at_depth("setoption name SearchParams value rfp_margin=5000\n"), plain);
}

TEST(Levels, LowLevelNeverWalksIntoMateInOne) {
  // Black to move with its king behind its own pawns: the king moves Kf8 and
  // Kh8 allow Ra8 mate; a pawn step gives the king air.
  Position pos = position("6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 1");
  Engine engine;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 30; ++i) {
    Limits limits;
    SearchResult r = play_at_level(engine, pos, 1, limits, rng);
    EXPECT_FALSE(allows_mate_in_one(pos, r.best)) << move_to_string(r.best);
  }
}

TEST(Levels, LowLevelsVaryAndFullStrengthDoesNot) {
  Position pos = position("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1");
  Engine engine;
  std::mt19937_64 rng(3);
  std::set<uint16_t> low, full;
  for (int i = 0; i < 12; ++i) {
    Limits limits;
    low.insert(play_at_level(engine, pos, 1, limits, rng).best.raw());
    limits.depth = 4;
    engine.new_game();
    full.insert(play_at_level(engine, pos, MAX_LEVEL, limits, rng).best.raw());
  }
  EXPECT_GT(low.size(), 2u);
  EXPECT_EQ(full.size(), 1u);
}

TEST(Levels, PawnlessEndingsArePlayedWithoutTemperature) {
  // K+R+N v K+M (no table): under the count a low level plays its best move,
  // the same every time, searched at least ENDGAME_MIN_DEPTH deep.
  Position pos = position("8/8/3k4/4m3/8/2R5/8/3KN3 w - - 0 1");
  Engine engine;
  std::mt19937_64 rng(7);
  std::set<uint16_t> moves;
  for (int i = 0; i < 8; ++i) {
    engine.new_game();  // the same search each time: only a temperature could vary the move
    SearchResult r = play_at_level(engine, pos, 1, Limits{}, rng);
    EXPECT_GE(r.depth, ENDGAME_MIN_DEPTH);
    moves.insert(r.best.raw());
  }
  EXPECT_EQ(moves.size(), 1u);
}

TEST(Levels, TheShortestSeenMateIsPlayed) {
  // Rh8 mates at once; almost every other rook move mates next time. With
  // pawns on the board the temperature applies, but not between mates.
  Position pos = position("k7/8/1K6/8/8/P7/8/7R w - - 0 1");
  Engine engine;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(move_to_string(play_at_level(engine, pos, 5, Limits{}, rng).best), "h1h8");
}

TEST(Levels, EloMapsOntoLevels) {
  EXPECT_EQ(level_from_elo(MIN_ELO), MIN_LEVEL);
  EXPECT_EQ(level_from_elo(MAX_ELO), MAX_LEVEL);
  EXPECT_LT(level_from_elo(1200), level_from_elo(1800));
}

// The SPRT on game pairs (pentanomial), against figures worked out by hand.
TEST(Sprt, LogLikelihoodRatioOfPairs) {
  Pentanomial even{{10, 20, 40, 20, 10}};
  EXPECT_NEAR(sprt_llr(even, 0, 5), -0.0345128, 1e-6);  // an even match leans to H0
  EXPECT_NEAR(sprt_llr(even, -5, 0), 0.0345128, 1e-6);   // and towards 0 from -5, as much
  Pentanomial ahead{{5, 20, 40, 25, 10}};
  EXPECT_NEAR(sprt_llr(ahead, 0, 5), 0.3798438, 1e-6);
  Pentanomial twice{{10, 40, 80, 50, 20}};
  EXPECT_NEAR(sprt_llr(twice, 0, 5), 2 * 0.3798438, 1e-6);  // twice the evidence
  Pentanomial strong{{2, 10, 30, 40, 18}};
  EXPECT_NEAR(sprt_llr(strong, 0, 10), 3.7160647, 1e-6);
  SprtConfig sprt;
  EXPECT_NEAR(sprt.lower(), -2.9444390, 1e-6);
  EXPECT_NEAR(sprt.upper(), 2.9444390, 1e-6);
  EXPECT_GT(sprt_llr(strong, 0, 10), sprt.upper());
  // One kind of pair only: no variance, no evidence yet.
  EXPECT_EQ(sprt_llr(Pentanomial{{0, 0, 7, 0, 0}}, 0, 5), 0);
  EXPECT_EQ(sprt_llr(Pentanomial{}, 0, 5), 0);
  auto [elo, margin] = pentanomial_elo(ahead);
  EXPECT_NEAR(elo, 26.1067, 1e-3);
  EXPECT_NEAR(margin, 34.8271, 1e-3);
  EXPECT_NEAR(pentanomial_elo(even).first, 0, 1e-9);
}
